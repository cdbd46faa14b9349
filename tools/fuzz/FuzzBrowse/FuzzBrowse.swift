// libFuzzer target for the browse layer's parsers of outside input: `tools/fuzz/run FuzzBrowse 60`
// (see tools/fuzz/README.md). Every input goes through both drivers of the DashportFuzzDrivers
// library: the catalog's JSON reading (tools/fuzz/Drivers/CatalogFuzz.swift) and catalog search
// against its linear reference (tools/fuzz/Drivers/SearchFuzz.swift), shared with the replay test in
// Tests/DashportBrowseTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `CatalogFuzz.run` and `SearchFuzz.run`, which trap on
/// a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrowse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    CatalogFuzz.run(bytes)
    SearchFuzz.run(bytes)
    return 0
}
