// Sources/DashportMessages/WireDecodingError.swift - why bytes did not decode as a message.

/// Bytes that are not a valid encoding of the message they were read as.
public struct WireDecodingError: Error, CustomStringConvertible, Hashable {
    /// What was wrong with the bytes.
    public enum Reason: Sendable, Hashable {
        /// The protobuf parser rejected them: truncated, a bad varint or tag, or a known field with
        /// the wrong wire type. (protobuf-c does not say which.)
        case malformed
        /// More bytes than ``WireLimits/maximumMessageBytes``; not parsed at all.
        case tooLarge(limit: Int)
    }

    /// The full proto name of the message, e.g. `dashport.aap.PingRequest`.
    public let messageName: String
    public let reason: Reason
    /// How many bytes were offered.
    public let byteCount: Int

    public init(messageName: String, reason: Reason, byteCount: Int) {
        self.messageName = messageName
        self.reason = reason
        self.byteCount = byteCount
    }

    public var description: String {
        switch reason {
        case .malformed:
            "\(byteCount) bytes are not a valid \(messageName)"
        case .tooLarge(let limit):
            "\(byteCount) bytes are too many for a \(messageName) (limit \(limit))"
        }
    }
}
