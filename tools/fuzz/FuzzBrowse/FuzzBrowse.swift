// libFuzzer target for the browse layer's catalog reading: `tools/fuzz/run FuzzBrowse 60` (see
// tools/fuzz/README.md). The driver and its invariants live in the DashportFuzzBrowseDrivers library
// (tools/fuzz/Browse/CatalogFuzz.swift), shared with the replay test in Tests/DashportBrowseTests.
// Catalog search, which every input went through as well, is FuzzSearch's (its own short inputs).
import DashportFuzzBrowseDrivers

/// libFuzzer's entry point: one input through `CatalogFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrowse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    CatalogFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
