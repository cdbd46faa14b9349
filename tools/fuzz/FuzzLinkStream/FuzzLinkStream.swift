// libFuzzer target for the running phone-side link fed a plaintext byte stream (encrypted frames
// sealed as null records by the driver): `tools/fuzz/run FuzzLinkStream 60` (see
// tools/fuzz/README.md). `LinkFuzz.runPlaintextStream` lives in the DashportFuzzLinkDrivers library
// (tools/fuzz/Link), shared with the replay tests.
import DashportFuzzLinkDrivers

/// libFuzzer's entry point: one input through `LinkFuzz.runPlaintextStream`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LinkFuzz.runPlaintextStream(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
