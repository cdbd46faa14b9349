// libFuzzer target for the USB gadget's ep0 side: `tools/fuzz/run FuzzUSB 60` (see tools/fuzz/README.md).
// In a plain `swift build` this file holds only declarations, so the product is a program that
// does nothing; only `--sanitize fuzzer` links libFuzzer's main, which calls the entry point.
import DashportUSB

/// Runs arbitrary bytes as an ep0 event stream (with request 52's data stages inline) through
/// `FunctionFSEvent.decode` and `AccessoryControl` in switch and direct mode, and traps on any
/// violation `AccessoryControlChecks` reports (answers within wLength and in the request's
/// direction, strings only for indices 0–5, a switch only on START in switch mode and never twice,
/// link up only on ENABLE, link down on DISABLE/UNBIND/SUSPEND).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUSB(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let violations = AccessoryControlChecks.violations(input)
    if let first = violations.first { fatalError("FuzzUSB: \(first)") }
    return 0
}
