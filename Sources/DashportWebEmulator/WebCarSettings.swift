public import DashportEmulator
public import DashportHeadUnit
public import DashportLink
import DashportMessages

/// What the page's settings change: the car profile the emulator sends (a change reconnects)
/// and the page's own day/night look (no reconnect).
public struct WebCarSettings: Sendable, Hashable {
    /// Tabs the car draws at the root; nil leaves it to the server (4).
    public var maxTabs: UInt32?
    /// Legacy error screens (two codes) instead of all five.
    public var legacy: Bool
    /// Deepest level the car opens; nil: no limit.
    public var maxDepth: UInt32?
    /// The square artwork box of the profile; nil: the server's choice (256). The page asks
    /// covers at the size its layout draws them, within this.
    public var artSize: UInt32?
    public var night: Bool

    public init(maxTabs: UInt32? = nil, legacy: Bool = false, maxDepth: UInt32? = nil, artSize: UInt32? = nil, night: Bool = false) {
        self.maxTabs = maxTabs
        self.legacy = legacy
        self.maxDepth = maxDepth
        self.artSize = artSize
        self.night = night
    }

    public var profileOptions: CarProfileOptions {
        CarProfileOptions(maxTabs: maxTabs, errorRendering: legacy ? .legacy : .full, maxDepth: maxDepth, artSize: artSize)
    }

    /// True when going from `self` to `other` changes the profile sent to the phone.
    func needsReconnect(to other: WebCarSettings) -> Bool {
        profileOptions != other.profileOptions
    }

    var json: WebJSON {
        .object([
            "maxTabs": .opt(maxTabs), "legacy": .bool(legacy), "maxDepth": .opt(maxDepth), "artSize": .opt(artSize),
            "night": .bool(night), "effectiveMaxTabs": .int(Int64(maxTabs ?? 4)),
        ])
    }
}

/// What a connector gets to start one link: the car's configuration (profile included), where
/// the media sink's PCM goes, and the recording tap.
public struct WebConnectRequest: Sendable {
    public var configuration: HeadUnitConfiguration
    public var audioOutput: @Sendable ([Int16]) -> Void
    public var tap: @Sendable (TappedMessage) -> Void
}

/// Connects the car to the phone (TCP or USB) and returns the started client.
public typealias WebCarConnector = @Sendable (WebConnectRequest) async throws -> HeadUnitClient

/// The link as the page shows it.
struct WebConnectionInfo: Sendable {
    enum State: String { case connecting, linked, reconnecting, stopped }
    var state: State = .connecting
    var version: String?
    var tls: String?
    var phoneName: String?
    var peer: String?
    var reason: String?
    var attempt = 0

    var json: WebJSON {
        .object([
            "state": .string(state.rawValue), "version": .opt(version), "tls": .opt(tls), "phoneName": .opt(phoneName),
            "peer": .opt(peer), "reason": .opt(reason), "attempt": .int(Int64(attempt)),
        ])
    }
}
