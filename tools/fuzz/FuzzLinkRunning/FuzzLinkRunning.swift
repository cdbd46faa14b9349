// libFuzzer target for the phone-side link past its handshake, over null record layers:
// `tools/fuzz/run FuzzLinkRunning 60` (see tools/fuzz/README.md). `LinkFuzz.runPostHandshake` lives
// in the DashportFuzzLinkDrivers library (tools/fuzz/Link), shared with the replay tests.
import DashportFuzzLinkDrivers

/// libFuzzer's entry point: one input through `LinkFuzz.runPostHandshake`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkRunning(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LinkFuzz.runPostHandshake(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
