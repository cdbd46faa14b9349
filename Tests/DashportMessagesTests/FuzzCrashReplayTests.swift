import DashportMessages
import Foundation
import Testing

/// Replays Tests/DashportMessagesTests/FuzzCrashes/ (seeds and inputs that once crashed FuzzMessages)
/// through the same property the fuzzer checks.
@Suite struct FuzzCrashReplayTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCrashes")

    static func inputs() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "README.md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func folderHasInputs() throws {
        let inputs = try Self.inputs()
        #expect(inputs.contains { $0.lastPathComponent.hasPrefix("seed-") }, "FuzzCrashes/ must hold seed-*.bin files")
    }

    @Test func everyInputSurvivesEveryMessageType() throws {
        let inputs = try Self.inputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ is empty")
        for url in inputs {
            let bytes = [UInt8](try Data(contentsOf: url))
            var decodedAs = 0
            for type in AAP.messageTypes + DashportMedia.messageTypes {
                switch roundTrip(type, bytes) {
                case .notDecoded: break
                case .stable: decodedAs += 1
                case .unstable: Issue.record("\(url.lastPathComponent) as \(type): encode → decode → encode changed the bytes")
                }
            }
            if url.lastPathComponent.hasPrefix("seed-") {
                #expect(decodedAs > 0, "seed \(url.lastPathComponent) decodes as no message")
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
