// The fake car every media channel test talks through, its helpers, and the SERVER_HELLO tests.

import DashportClock
import DashportBrowse
import DashportLog
import DashportMessages
import DashportSession
import Synchronization
import Testing
@testable import DashportServices

/// Something the service sent, decoded by its message id as the car would.
enum MediaChannelReceived: Hashable {
    case hello(DashportMedia.ServerHello)
    case browseResult(DashportMedia.BrowseResult)
    case childrenChanged(DashportMedia.ChildrenChanged)
    case commandResult(DashportMedia.CommandResult)
    case playbackState(DashportMedia.PlaybackState)
    case mediaItemState(DashportMedia.MediaItemState)
    case queueState(DashportMedia.QueueState)
    case sessionError(DashportMedia.SessionError)
    case artworkResult(DashportMedia.ArtworkResult)
    case sleepTimer(DashportMedia.SleepTimerState)
    case sleepTimerFired(DashportMedia.SleepTimerFired)
    case remotePlayback(DashportMedia.RemotePlaybackState)
}

/// An artwork registry for tests: hands out `key-1`, `key-2`, … and refuses `bad:` URIs.
final class MediaChannelKeyRegistry: Sendable {
    private let keys = Mutex<[String: String]>([:])

    /// What the driver passes as `artworkKeys`: every URI registered, the refused ones left out.
    func keys(for uris: Set<String>) -> [String: String] {
        var result: [String: String] = [:]
        for uri in uris.sorted() { result[uri] = register(uri) }
        return result
    }

    func register(_ uri: String) -> String? {
        guard !uri.hasPrefix("bad:") else { return nil }
        return keys.withLock { keys in
            if let key = keys[uri] { return key }
            let key = "key-\(keys.count + 1)"
            keys[uri] = key
            return key
        }
    }

    func key(for uri: String) -> String? { keys.withLock { $0[uri] } }
}

/// A car on the Dashport media channel: encodes requests with the generated types, decodes
/// everything the service sends.
struct MediaChannelFakeCar {
    static let channel: UInt8 = 9
    var service: MediaChannelService
    let registry = MediaChannelKeyRegistry()
    let log = CollectingSink()

    init(
        profile: DashportMedia.CarProfile? = DashportMedia.CarProfile(errorScreenSupport: .full, supportsSearch: true),
        profileData: [UInt8]? = nil,
        supportsSearch: Bool = true,
        configuration: MediaChannelConfiguration = MediaChannelConfiguration()
    ) {
        let data = profileData ?? profile?.serializedBytes() ?? []
        service = MediaChannelService(
            channel: Self.channel, carId: "car-1", profileData: data,
            server: MediaChannelServerInfo(name: "Dashport", version: "1.2.3", supportsSearch: supportsSearch),
            configuration: configuration,
            logger: Logger(label: "test", level: .trace, sink: log))
    }

    /// Sends a request (or any message) to the service.
    mutating func send(_ id: DashportMedia.MessageId, _ message: some WireMessage, now: Int64 = 0) -> [MediaChannelAction] {
        sendRaw(UInt16(id.rawValue), message.serializedBytes(), now: now)
    }

    mutating func sendRaw(_ id: UInt16, _ body: [UInt8], now: Int64 = 0) -> [MediaChannelAction] {
        service.receive(messageId: id, body: body, now: ClockInstant(milliseconds: now))
    }

    /// The browse core's answer handed back as the driver does: its URIs registered first.
    mutating func answer(_ ticket: MediaChannelTicket, _ answer: BrowseAnswer) -> [MediaChannelAction] {
        service.browseAnswered(ticket, answer, artworkKeys: registry.keys(for: MediaChannelService.artworkURIs(in: answer)))
    }

    mutating func answer(_ ticket: MediaChannelTicket, item: BrowseItem?) -> [MediaChannelAction] {
        service.browseAnswered(ticket, item: item, artworkKeys: registry.keys(for: MediaChannelService.artworkURIs(in: item)))
    }

    /// A session update handed in as the driver does: its URIs registered first.
    mutating func update(_ update: SessionUpdate, now: ClockInstant) -> [MediaChannelAction] {
        service.sessionUpdated(update, artworkKeys: registry.keys(for: MediaChannelService.artworkURIs(in: update)), now: now)
    }

    /// The one ticket of a single driver action (the test fails when there is not exactly one).
    static func ticket(_ actions: [MediaChannelAction]) throws -> MediaChannelTicket {
        try #require(actions.count == 1)
        switch try #require(actions.first) {
        case .browse(let ticket, _), .command(let ticket, _, _), .artwork(let ticket, _, _, _): return ticket
        case .send: throw MediaChannelTestFailure.unexpectedSend
        }
    }

    /// Every message the actions send, decoded; actions that are not sends are skipped.
    static func received(_ actions: [MediaChannelAction]) throws -> [MediaChannelReceived] {
        try actions.compactMap { action in
            guard case .send(let message) = action else { return nil }
            return try decode(message)
        }
    }

    /// The single message the actions send.
    static func only(_ actions: [MediaChannelAction]) throws -> MediaChannelReceived {
        let all = try received(actions)
        try #require(all.count == 1 && actions.count == 1)
        return try #require(all.first)
    }

    static func decode(_ message: OutgoingMessage) throws -> MediaChannelReceived {
        #expect(message.channel == channel)
        let body = message.body
        switch DashportMedia.MessageId(rawValue: Int32(message.messageId)) {
        case .serverHello: return .hello(try DashportMedia.ServerHello(serializedBytes: body))
        case .browseResult: return .browseResult(try DashportMedia.BrowseResult(serializedBytes: body))
        case .childrenChanged: return .childrenChanged(try DashportMedia.ChildrenChanged(serializedBytes: body))
        case .commandResult: return .commandResult(try DashportMedia.CommandResult(serializedBytes: body))
        case .playbackState: return .playbackState(try DashportMedia.PlaybackState(serializedBytes: body))
        case .mediaItemState: return .mediaItemState(try DashportMedia.MediaItemState(serializedBytes: body))
        case .queueState: return .queueState(try DashportMedia.QueueState(serializedBytes: body))
        case .sessionError: return .sessionError(try DashportMedia.SessionError(serializedBytes: body))
        case .artworkResult: return .artworkResult(try DashportMedia.ArtworkResult(serializedBytes: body))
        case .sleepTimerState: return .sleepTimer(try DashportMedia.SleepTimerState(serializedBytes: body))
        case .sleepTimerFired: return .sleepTimerFired(try DashportMedia.SleepTimerFired(serializedBytes: body))
        case .remotePlaybackState: return .remotePlayback(try DashportMedia.RemotePlaybackState(serializedBytes: body))
        default: throw MediaChannelTestFailure.unknownMessage(message.messageId)
        }
    }

    /// The BROWSE_RESULT among the actions.
    static func browseResult(_ actions: [MediaChannelAction]) throws -> DashportMedia.BrowseResult {
        guard case .browseResult(let result) = try only(actions) else { throw MediaChannelTestFailure.wrongMessage }
        return result
    }

    static func commandResult(_ actions: [MediaChannelAction]) throws -> DashportMedia.CommandResult {
        guard case .commandResult(let result) = try only(actions) else { throw MediaChannelTestFailure.wrongMessage }
        return result
    }

    static func artworkResult(_ actions: [MediaChannelAction]) throws -> DashportMedia.ArtworkResult {
        guard case .artworkResult(let result) = try only(actions) else { throw MediaChannelTestFailure.wrongMessage }
        return result
    }

    /// The page of an `items` outcome.
    static func page(_ result: DashportMedia.BrowseResult) throws -> DashportMedia.ItemPage {
        guard case .items(let page) = result.outcome else { throw MediaChannelTestFailure.wrongMessage }
        return page
    }
}

enum MediaChannelTestFailure: Error {
    case unexpectedSend
    case unknownMessage(UInt16)
    case wrongMessage
}

// MARK: - SERVER_HELLO

@Suite("Media channel: SERVER_HELLO")
struct MediaChannelHelloTests {
    @Test func helloSaysWhoAnswersAndTheLimits() throws {
        var car = MediaChannelFakeCar(configuration: MediaChannelConfiguration(maxInFlightRequests: 7, maxPageSize: 50))
        let actions = car.service.open(now: ClockInstant(milliseconds: 5))
        guard case .hello(let hello) = try MediaChannelFakeCar.only(actions) else {
            Issue.record("the first message is not SERVER_HELLO")
            return
        }
        #expect(hello.protocolVersion == 1)
        #expect(hello.serverName == "Dashport")
        #expect(hello.serverVersion == "1.2.3")
        #expect(hello.supportsSearch)
        #expect(hello.rootId == BrowseItem.rootId)
        #expect(hello.maxInFlightRequests == 7)
        #expect(hello.maxPageSize == 50)
        #expect(car.service.isOpen)
    }

    @Test func helloWithoutSearchAndDefaultLimits() throws {
        var car = MediaChannelFakeCar(supportsSearch: false)
        guard case .hello(let hello) = try MediaChannelFakeCar.only(car.service.open(now: .zero)) else {
            Issue.record("no SERVER_HELLO")
            return
        }
        #expect(!hello.supportsSearch)
        #expect(hello.maxInFlightRequests == 32)
        #expect(hello.maxPageSize == 500)
    }

    @Test func openingTwiceSendsNothingMore() {
        var car = MediaChannelFakeCar()
        _ = car.service.open(now: .zero)
        #expect(car.service.open(now: .zero).isEmpty)
        #expect(car.log.contains(.warning, "open called twice"))
    }

    @Test func configurationClampsNonsense() {
        let configuration = MediaChannelConfiguration(
            maxInFlightRequests: 0, maxPageSize: -3, defaultPageSize: 900, maxIdBytes: 0, maxQueryBytes: -1,
            defaultArtworkSizePx: 0, maxArtworkSizePx: 0)
        #expect(configuration.maxInFlightRequests == 1)
        #expect(configuration.maxPageSize == 1)
        #expect(configuration.defaultPageSize == 1)
        #expect(configuration.maxIdBytes == 1)
        #expect(configuration.maxQueryBytes == 1)
        #expect(configuration.maxArtworkSizePx == 1)
        #expect(configuration.defaultArtworkSizePx == 1)
    }
}
