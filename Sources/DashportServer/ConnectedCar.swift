public import FoundationEssentials
import DashportLink
import DashportServices

/// One connected car as `dashport ctl cars` lists it: the design's "who is connected".
public struct ConnectedCar: Sendable, Hashable {
    /// What the car speaks.
    public enum Kind: String, Sendable, Hashable {
        /// Connected, the AAP setup (version, TLS, discovery) not done yet.
        case linking
        /// An AAP head unit without the Dashport media channel: status, metadata and keys only.
        case stockAAP = "aap"
        /// A head unit that opened the `dashport.media` channel.
        case dashport
    }

    /// The server's number for this connection (counts up from 1).
    public var id: UInt64
    /// The peer's address ("127.0.0.1:40112").
    public var peer: String
    /// "tcp" (USB later).
    public var transport: String
    /// When the connection was accepted.
    public var since: Date
    /// The reactor serving the car (0 up to `--reactors` - 1); nil for a car on no reactor (USB).
    public var reactor: Int?
    public var kind: Kind = .linking
    /// The vehicle from discovery: make, model, year ("Dashport Emulated Car 2026").
    public var car: String?
    /// The head unit from discovery: make, model, software version ("Dashport dashport-hu 1.0").
    public var headUnit: String?
    /// How the car's media audio sink goes; nil while it has none open.
    public var audio: AudioSummary?

    /// A car's media audio, as `dashport ctl cars` shows it.
    public struct AudioSummary: Sendable, Hashable, CustomStringConvertible {
        /// closed, awaitingConfig, ready (stopped) or started.
        public var state: String
        public var packetsSent: Int
        /// Packets this car missed because its window stayed shut or it did not read.
        public var dropped: Int
        public var underflows: Int
        public var window: Int
        public var ackless: Bool

        init(_ statistics: MediaAudioSinkService.Statistics) {
            state = statistics.state.rawValue
            packetsSent = statistics.packetsSent
            dropped = statistics.dropped
            underflows = statistics.underflows
            window = statistics.windowSize
            ackless = statistics.ackless
        }

        public var description: String {
            "\(state),sent:\(packetsSent),dropped:\(dropped),underflows:\(underflows),window:\(ackless ? "ackless" : "\(window)")"
        }
    }

    /// Whether `event` tells something ``observe(_:)`` keeps (so the per-message path skips the registry).
    static func describes(_ event: LinkEvent) -> Bool {
        switch event {
        case .discovered, .channelOpened: true
        default: false
        }
    }

    /// Takes what a link event says about the car: the identity at discovery (a stock AAP car from
    /// then on), the Dashport channel when it opens.
    mutating func observe(_ event: LinkEvent) {
        switch event {
        case .discovered(let description):
            let identity = description.identity
            car = Self.joined([identity.make, identity.model, identity.year])
            headUnit = Self.joined([identity.headUnitMake, identity.headUnitModel, identity.headUnitSoftwareVersion])
            if kind == .linking { kind = .stockAAP }
        case .channelOpened(let service):
            if case .vendorExtension(let name, _) = service.kind, name == LinkConfiguration.dashportMediaServiceName {
                kind = .dashport
            }
        default:
            break
        }
    }

    private static func joined(_ parts: [String?]) -> String? {
        let text = parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}
