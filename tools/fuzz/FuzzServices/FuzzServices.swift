// libFuzzer target for the sans-IO services: `tools/fuzz/run FuzzServices 180` (see tools/fuzz/README.md).
// The driver and its invariants live in the DashportFuzzDrivers library (tools/fuzz/Drivers), shared
// with the replay tests; main.swift (empty) keeps a plain `swift build` a program that does nothing.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `ServicesFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServices(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ServicesFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
