import DashportFrames
import Foundation

/// Fixture files and the values they are expected to hold.
enum Fixtures {
    /// `Fixtures/frames` at the package root, found from this file's path.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/frames")

    /// Bytes of a fixture: raw for `.bin`, parsed from hex digits for `.hex`.
    static func bytes(_ name: String) throws -> [UInt8] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        guard name.hasSuffix(".hex") else { return Array(data) }
        return try parseHex(String(decoding: data, as: UTF8.self))
    }

    struct BadHex: Error { let text: String }

    static func parseHex(_ text: String) throws -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count.isMultiple(of: 2) else { throw BadHex(text: text) }
        var result: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { throw BadHex(text: text) }
            result.append(byte)
            index = next
        }
        return result
    }
}

/// The filler bytes `generate.py` uses: byte i = (7i + seed) mod 256.
func filler(_ count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + seed) }
}

/// generate.py's synthetic TLS 1.2 AES-GCM record for `plaintextCount` bytes.
func syntheticTLSRecord(plaintextCount: Int, seed: Int) -> [UInt8] {
    let body = filler(8 + plaintextCount + 16, seed: seed)
    return [0x17, 0x03, 0x03, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
}

/// A fixture file with the frames it must decode to and, for plaintext fixtures, the messages
/// those frames reassemble into.
struct FrameFixture: Sendable, CustomStringConvertible {
    let file: String
    let frames: [Frame]
    let messages: [AssembledMessage]?

    var description: String { file }

    static let versionRequest = FrameFixture(
        file: "version-request.hex",
        frames: [Frame(channel: 0, flags: .bulk, payload: [0x00, 0x01, 0x00, 0x01, 0x00, 0x06])],
        messages: [AssembledMessage(channel: 0, flags: .bulk, bytes: [0x00, 0x01, 0x00, 0x01, 0x00, 0x06])]
    )

    static let versionResponseMessage: [UInt8] = [0x00, 0x02, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00]
    static let versionResponse = FrameFixture(
        file: "version-response.hex",
        frames: [Frame(channel: 0, flags: .bulk, payload: versionResponseMessage)],
        messages: [AssembledMessage(channel: 0, flags: .bulk, bytes: versionResponseMessage)]
    )

    static let message40000 = MessageID.encode(0x8003, body: filler(39_998, seed: 3))
    static let triple40000 = FrameFixture(
        file: "message-40000-first-middle-last.bin",
        frames: [
            Frame(channel: 13, flags: .first, totalLength: 40_000, payload: Array(message40000[0..<16_120])),
            Frame(channel: 13, flags: [], payload: Array(message40000[16_120..<32_244])),
            Frame(channel: 13, flags: .last, payload: Array(message40000[32_244...])),
        ],
        messages: [AssembledMessage(channel: 13, flags: .first, bytes: message40000)]
    )

    static let encryptedBulk = FrameFixture(
        file: "encrypted-bulk.hex",
        frames: [
            Frame(
                channel: 0, flags: [.bulk, .encrypted],
                payload: syntheticTLSRecord(plaintextCount: 6, seed: 11))
        ],
        messages: nil
    )

    static let encryptedControl = FrameFixture(
        file: "encrypted-control.hex",
        frames: [
            Frame(
                channel: 8, flags: FrameFlags(rawValue: 0x0F),
                payload: syntheticTLSRecord(plaintextCount: 4, seed: 17))
        ],
        messages: nil
    )

    static let emptyLast = FrameFixture(
        file: "empty-last.hex",
        frames: [Frame(channel: 5, flags: [.last, .encrypted], payload: [])],
        messages: nil
    )

    static let message32768 = MessageID.encode(0x8001, body: filler(32_766, seed: 5))
    static let aasdkEmptyLast = FrameFixture(
        file: "aasdk-32768-empty-last.bin",
        frames: [
            Frame(channel: 3, flags: .first, totalLength: 32_768, payload: Array(message32768[0..<16_384])),
            Frame(channel: 3, flags: [], payload: Array(message32768[16_384...])),
            Frame(channel: 3, flags: .last, payload: []),
        ],
        messages: [AssembledMessage(channel: 3, flags: .first, bytes: message32768)]
    )

    static let all: [FrameFixture] = [
        versionRequest, versionResponse, triple40000, encryptedBulk, encryptedControl, emptyLast, aasdkEmptyLast,
    ]
}

/// Feeds `frames` through a fresh assembler using each payload as the plaintext.
func assemble(_ frames: [Frame], limits: FrameLimits = .default) throws(FrameError) -> [AssembledMessage] {
    var assembler = MessageAssembler(limits: limits)
    var messages: [AssembledMessage] = []
    for frame in frames {
        if let message = try assembler.add(header: frame.header, plaintext: frame.payload) {
            messages.append(message)
        }
    }
    return messages
}
