// libFuzzer target for the phone-side link: `tools/fuzz/run FuzzLink 180` (see tools/fuzz/README.md).
// The driver and its invariants live in the DashportFuzzLinkDrivers library (tools/fuzz/Link), shared
// with the replay tests; main.swift (empty) keeps a plain `swift build` a program that does nothing.
import DashportFuzzLinkDrivers

/// libFuzzer's entry point: one input through `LinkFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLink(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LinkFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
