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

/// Byte 0 picks the message type (modulo the 115 types), the rest is decoded as it. Decoding may
/// fail; it must never crash, and a message that decodes must survive encode → decode → encode
/// unchanged (compared as bytes, so NaN is fine). One type per input, not every type: decoding
/// each input 115 times held the target to about 2,600 inputs per CPU second, and protobuf-c's
/// table-driven decoder is one uninstrumented function, so libFuzzer's guidance comes from each
/// type's Swift wrapper, which an input aimed at its type reaches as well. The replay test decodes
/// every kept input as every type, whole and without its first byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let selector = bytes.first else { return 0 }
    let type = fuzzedMessageTypes[Int(selector) % fuzzedMessageTypes.count]
    checkRoundTrip(type, UnsafeBufferPointer(rebasing: bytes.dropFirst()))
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
