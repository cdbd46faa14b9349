// libFuzzer target for catalog search: `tools/fuzz/run FuzzBrowse 60` (see tools/fuzz/README.md). The
// driver and its invariants live in the DashportFuzzDrivers library (tools/fuzz/Drivers/SearchFuzz.swift),
// shared with the replay test in Tests/DashportBrowseTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `SearchFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrowse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SearchFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
