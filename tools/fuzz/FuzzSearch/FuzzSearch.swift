// libFuzzer target for catalog search: `tools/fuzz/run FuzzSearch 60` (see tools/fuzz/README.md).
// The driver and its invariants live in the DashportFuzzBrowseDrivers library
// (tools/fuzz/Browse/SearchFuzz.swift), shared with the replay test in Tests/DashportBrowseTests,
// which replays FuzzBrowse's and FuzzSearch's kept inputs (one folder) through both drivers.
import DashportFuzzBrowseDrivers

/// libFuzzer's entry point: one input through `SearchFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SearchFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
