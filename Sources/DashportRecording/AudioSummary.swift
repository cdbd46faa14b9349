import DashportDigest
public import DashportMessages

/// Media audio in a recording: never the PCM, only summaries of about one second each. DATA on a
/// car's audio sink channels (and the car's ACKs of it) are not recorded one by one; every
/// ``packetsPerSummary`` DATA messages become one line named ``name``, with the packets, PCM bytes
/// and a CRC-32 of the PCM (timestamps left out). Summaries count packets, not wall time, so a
/// replay of the same audio yields the same summaries however fast the machine is.
public enum AudioSummary {
    /// The recording's `name` of a summary line.
    public static let name = "audioSummary"
    /// 24 packets of 2048 frames at 48 kHz: 1.024 s.
    public static let packetsPerSummary = 24

    /// DATA and ACK, the two ids summarised.
    public static let dataId: UInt16 = 0
    public static let ackId: UInt16 = 0x8004

    /// What one summary counts.
    public struct Tally: Sendable, Hashable {
        /// The summary's number on its channel, from 0.
        public var index = 0
        public var packets = 0
        public var bytes = 0
        /// Car ACKs seen meanwhile (informational: a replay's car does not ACK).
        public var acks = 0
        var crc = CRC32()
        /// The CRC-32 of the PCM so far.
        public var crc32: UInt32 { crc.value }

        public init(index: Int = 0) { self.index = index }

        /// Adds one DATA body: its PCM after the 8-byte timestamp.
        public mutating func add(data body: [UInt8]) {
            packets += 1
            let pcm = body.dropFirst(8)
            bytes += pcm.count
            crc.update(pcm)
        }

        public var isFull: Bool { packets >= AudioSummary.packetsPerSummary }

        /// The summary line's body.
        public var json: JSONValue {
            .object([
                JSONMember("summary", .number("\(index)")), JSONMember("packets", .number("\(packets)")),
                JSONMember("bytes", .number("\(bytes)")), JSONMember("crc32", .string(Hex.string(bigEndian: crc.value))),
                JSONMember("acks", .number("\(acks)")),
            ])
        }

        /// What a replay compares: everything but the ACKs.
        public func differences(from recorded: JSONValue) -> [FieldDifference] {
            var problems: [FieldDifference] = []
            for (key, actual) in [("packets", "\(packets)"), ("bytes", "\(bytes)")] {
                if case .number(let text)? = recorded[key], text != actual {
                    problems.append(FieldDifference(path: key, expected: text, actual: actual))
                }
            }
            let digest = Hex.string(bigEndian: crc.value)
            if case .string(let text)? = recorded["crc32"], text != digest {
                problems.append(FieldDifference(path: "crc32", expected: text, actual: digest))
            }
            return problems
        }
    }
}

extension Hex {
    /// Eight hex digits of a 32-bit value, most significant first.
    static func string(bigEndian value: UInt32) -> String {
        string((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) })
    }
}
