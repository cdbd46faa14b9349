import DashportMessages
import DashportTestSupport
import Foundation
import Testing

/// Replays Tests/DashportMessagesTests/FuzzCrashes/ (seeds and inputs that once crashed FuzzMessages)
/// through the same property the fuzzer checks.
@Suite struct FuzzCrashReplayTests {
    @Test func folderHasInputs() throws {
        let inputs = try FuzzReplay.keptInputs()
        #expect(inputs.contains { $0.name.hasPrefix("seed-") }, "FuzzCrashes/ must hold seed-*.bin files")
    }

    @Test func everyInputSurvivesEveryMessageType() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ is empty")
        for (name, bytes) in inputs {
            var decodedAs = 0
            for type in AAP.messageTypes + DashportMedia.messageTypes {
                switch roundTrip(type, bytes) {
                case .notDecoded: break
                case .stable: decodedAs += 1
                case .unstable: Issue.record("\(name) as \(type): encode → decode → encode changed the bytes")
                }
                // What FuzzMessages decodes: byte 0 picks the type, the rest is the encoding.
                if roundTrip(type, Array(bytes.dropFirst())) == .unstable {
                    Issue.record("\(name) without its first byte as \(type): encode → decode → encode changed the bytes")
                }
            }
            if name.hasPrefix("seed-") {
                #expect(decodedAs > 0, "seed \(name) decodes as no message")
            }
        }
    }
}

enum RoundTrip { case notDecoded, stable, unstable }

func roundTrip<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) -> RoundTrip {
    guard let message = try? M(serializedBytes: bytes) else { return .notDecoded }
    let encoded = message.serializedBytes()
    guard let again = try? M(serializedBytes: encoded), again.serializedBytes() == encoded else { return .unstable }
    return .stable
}
