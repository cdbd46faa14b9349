// tools/fuzz/FuzzMessages/FuzzMessages.swift - libFuzzer target for every generated message type.
//
// Build and run (swift-linux-recipes.md §8):
//   swift build -c release --scratch-path .build-fuzz --product FuzzMessages \
//       --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address
//   SWIFT_BACKTRACE=enable=no .build-fuzz/release/FuzzMessages -max_total_time=60 \
//       <corpus dir> Tests/DashportMessagesTests/FuzzCrashes
// Keep any crash-* file it writes in Tests/DashportMessagesTests/FuzzCrashes/ (replayed by the tests).
// In a plain `swift build` this target is a harmless program that does nothing.

import DashportMessages

/// Decodes the input as every message type. Decoding may fail; it must never crash, and a message
/// that decodes must survive encode → decode → encode unchanged (compared as bytes, so NaN is fine).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for type in fuzzedMessageTypes {
        checkRoundTrip(type, bytes)
    }
    return 0
}

let fuzzedMessageTypes: [any WireMessage.Type] = AAP.messageTypes + DashportMedia.messageTypes

func checkRoundTrip<M: WireMessage>(_ type: M.Type, _ bytes: UnsafeBufferPointer<UInt8>) {
    guard let message = try? M(serializedBytes: bytes) else { return }
    let encoded = message.serializedBytes()
    guard let again = try? M(serializedBytes: encoded) else {
        fatalError("\(M.self): our own encoding does not decode")
    }
    if again.serializedBytes() != encoded {
        fatalError("\(M.self): encode → decode → encode changed the bytes")
    }
}
