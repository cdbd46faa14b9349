// libFuzzer target for the server's audio input buffer: `tools/fuzz/run FuzzSession 60` (see
// tools/fuzz/README.md). The driver and its invariants live in the DashportFuzzDrivers library
// (tools/fuzz/Drivers/AudioInputFuzz.swift), shared with the replay test in Tests/DashportSessionTests.
import DashportFuzzDrivers

/// libFuzzer's entry point: one input through `AudioInputFuzz.run`, which traps on a broken invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSession(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    AudioInputFuzz.run(size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : [])
    return 0
}
