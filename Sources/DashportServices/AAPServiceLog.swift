import DashportDigest
import DashportLog
import DashportMessages
import DashportSession

/// A line an AAP service wants logged. Services are sans-IO values and hold no logger: they return
/// this in their actions, and the connection driver writes it with its own logger, which already
/// says who (peer, channel).
public struct AAPServiceLog: Sendable, Hashable, CustomStringConvertible {
    public var level: LogLevel
    public var message: String
    /// The AAP message id the line is about, if any (rendered as `message=0x8001`).
    public var messageId: UInt16?

    public init(level: LogLevel, message: String, messageId: UInt16? = nil) {
        self.level = level
        self.message = message
        self.messageId = messageId
    }

    /// Writes the line to `logger`, with the message id as metadata when there is one.
    public func write(to logger: Logger) {
        if let messageId {
            logger.log(level, message, ["message": Hex.id(messageId)])
        } else {
            logger.log(level, message)
        }
    }

    public var description: String {
        messageId.map { "\(level) \(message) [\(Hex.id($0))]" } ?? "\(level) \(message)"
    }

    /// The line for a body that did not decode: an error, never fatal to the service or the link.
    static func undecodable(_ what: String, messageId: UInt16, _ error: WireDecodingError) -> AAPServiceLog {
        AAPServiceLog(level: .error, message: "\(what) did not decode, ignored: \(error)", messageId: messageId)
    }

    /// The line for a message id the service does not expect from the car.
    static func unexpected(messageId: UInt16, on service: String) -> AAPServiceLog {
        AAPServiceLog(level: .warning, message: "unexpected message on the \(service) channel, ignored", messageId: messageId)
    }

    /// The line for a command's outcome (nil when it was accepted: nothing worth saying).
    static func outcome(of command: SessionCommand, _ result: CommandResult) -> AAPServiceLog? {
        guard case .rejected(let reason) = result else { return nil }
        return AAPServiceLog(level: .notice, message: "\(command.name) from the car was rejected: \(reason)")
    }
}

extension UInt16 {
    /// An AAP message id from its generated enum's raw value (all AAP ids fit 16 bits).
    init(aap rawValue: Int32) {
        self.init(truncatingIfNeeded: rawValue)
    }
}

extension Duration {
    /// Whole milliseconds, truncated toward zero and saturating at the bounds of `Int64`.
    var aapMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflow2 ? (seconds > 0 ? .max : .min) : sum
    }
}
