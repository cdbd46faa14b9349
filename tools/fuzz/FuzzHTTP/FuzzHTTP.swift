// libFuzzer target for the web emulator's HTTP request parser: `tools/fuzz/run FuzzHTTP 60` (see
// tools/fuzz/README.md). The driver and its invariants live in the DashportFuzzDrivers library
// (tools/fuzz/Drivers/HTTPFuzz.swift), shared with the replay test in Tests/DashportHTTPTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `HTTPFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
