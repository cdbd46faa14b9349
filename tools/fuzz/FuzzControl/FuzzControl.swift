// libFuzzer target for the control socket's protocol: `tools/fuzz/run FuzzControl 60` (see
// tools/fuzz/README.md). The driver and its invariants live in the DashportFuzzDrivers library
// (tools/fuzz/Drivers/ControlFuzz.swift), shared with the replay test in Tests/DashportControlTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `ControlFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControl(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ControlFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
