// libFuzzer target for MPD's line protocol: `tools/fuzz/run FuzzMPD 60` (see tools/fuzz/README.md).
// The driver and its invariants live in the DashportFuzzDrivers library (tools/fuzz/Drivers/MPDFuzz.swift),
// shared with the replay test in Tests/DashportMPDTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `MPDFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPD(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    MPDFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
