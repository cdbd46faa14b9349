import DashportEmulator
import DashportHeadUnit
import DashportMessages
import DashportTLS
import DashportTransport
import Synchronization
import DashportLink

/// A wrong, missing or late answer, or a connection that did not go as a car's would.
struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The first answer seen for each request; every later answer to the same request must equal it
/// (request id aside). The demo library is static, so any difference is a server fault.
final class AnswerBook: Sendable {
    private let browse = Mutex<[String: DashportMedia.BrowseResult]>([:])
    private let artwork = Mutex<[String: DashportMedia.ArtworkResult]>([:])

    func check(_ result: DashportMedia.BrowseResult, for key: String) throws(SoakFailure) {
        var normalized = result
        normalized.requestId = 0
        let reference = browse.withLock { book in
            if let known = book[key] { return known }
            book[key] = normalized
            return normalized
        }
        guard reference == normalized else { throw SoakFailure("\(key): the answer differs from the first one seen") }
    }

    func check(_ result: DashportMedia.ArtworkResult, for key: String) throws(SoakFailure) {
        var normalized = result
        normalized.requestId = 0
        let reference = artwork.withLock { book in
            if let known = book[key] { return known }
            book[key] = normalized
            return normalized
        }
        guard reference == normalized else { throw SoakFailure("artwork \(key): the bytes differ from the first answer") }
    }
}

/// One soak car's session: connect, browse the tabs and a tab, fetch a cover, send a command, then
/// leave one of three ways (bye-bye, a reset, a reset with a request in flight).
struct SoakCar {
    let address: ListenAddress
    let configuration: HeadUnitConfiguration
    let identity: TLSIdentity
    let timeout: Duration
    let artworkSize: UInt32
    let book: AnswerBook
    let counters: SoakCounters

    enum Ending: CaseIterable { case byeBye, reset, resetMidRequest }

    func cycle(car: Int, number: Int) async throws {
        let client = try await HeadUnitClient.connect(
            to: address, configuration: configuration, identity: identity, timeout: timeout)
        let session = try MediaChannelSession.start(client: client, timeout: timeout)
        let drain = Task { for await _ in session.notices {} }
        defer { drain.cancel() }
        do {
            let hello = try await session.hello()
            let tabs = try await browse(session, hello.rootId)
            guard !tabs.isEmpty else { throw SoakFailure("the root has no tabs") }
            let tab = tabs[(car + number) % tabs.count]
            var items = try await browse(session, tab.id)
            if !items.contains(where: { $0.artworkKey != nil }), let container = items.first(where: \.browsable) {
                items = try await browse(session, container.id)
            }
            if let key = items.first(where: { $0.artworkKey != nil })?.artworkKey {
                try await fetchArtwork(session, key)
            }
            try await command(session, number: number, playable: items.first(where: \.playable))
            try await leave(client, session, way: Ending.allCases[(car + number) % Ending.allCases.count], rootId: hello.rootId)
        } catch {
            await client.abort()
            throw error
        }
    }

    private func browse(_ session: MediaChannelSession, _ parent: String) async throws -> [DashportMedia.BrowseItem] {
        guard case .browse(let result) = try await session.request(.getChildren(parentId: parent, page: nil, pageSize: nil)) else {
            throw SoakFailure("children of \(parent): not a browse result")
        }
        counters.answered()
        try book.check(result, for: "children \(parent)")
        guard case .items(let page) = result.outcome else {
            throw SoakFailure("children of \(parent): \(String(describing: result.outcome))")
        }
        return page.items
    }

    private func fetchArtwork(_ session: MediaChannelSession, _ key: String) async throws {
        let answer = try await session.request(.getArtwork(key: key, width: artworkSize, height: artworkSize))
        guard case .artwork(let result) = answer else { throw SoakFailure("artwork \(key): not an artwork result") }
        counters.answered()
        guard case .image(let image) = result.outcome, !image.data.isEmpty else {
            throw SoakFailure("artwork \(key): \(String(describing: result.outcome))")
        }
        try book.check(result, for: key)
    }

    private func command(_ session: MediaChannelSession, number: Int, playable: DashportMedia.BrowseItem?) async throws {
        let kind: MediaChannelRequestKind
        switch number % 3 {
        case 0: kind = .playbackCommand(.play(DashportMedia.Empty()))
        case 1: kind = .playbackCommand(.pause(DashportMedia.Empty()))
        default: kind = playable.map { .playFromMediaId($0.id) } ?? .playbackCommand(.pause(DashportMedia.Empty()))
        }
        guard case .command(let result) = try await session.request(kind) else { throw SoakFailure("\(kind): not a command result") }
        counters.answered()
        guard result.accepted else { throw SoakFailure("\(kind): rejected (\(String(describing: result.reason)))") }
    }

    private func leave(_ client: HeadUnitClient, _ session: MediaChannelSession, way: Ending, rootId: String) async throws {
        switch way {
        case .byeBye:
            await client.byeBye()
            let outcome = await client.closed(within: timeout)
            guard case .link(.byeBye(answered: true))? = outcome else {
                throw SoakFailure("bye-bye: \(outcome.map { "\($0)" } ?? "no close within \(timeout)")")
            }
        case .reset:
            await client.abort()
        case .resetMidRequest:
            let asked = Task { try? await session.request(.getChildren(parentId: rootId, page: nil, pageSize: nil)) }
            try? await Task.sleep(for: .milliseconds(2))
            await client.abort()
            _ = await asked.value
        }
    }
}

/// The run's counters, shared by every car and the sampler.
final class SoakCounters: Sendable {
    private struct State {
        var cycles = 0
        var answers = 0
        var failures = 0
        var firstFailures: [String] = []
    }
    private let state = Mutex(State())

    func cycled() { state.withLock { $0.cycles += 1 } }
    func answered() { state.withLock { $0.answers += 1 } }
    func failed(_ text: String) {
        state.withLock { state in
            state.failures += 1
            if state.firstFailures.count < 20 { state.firstFailures.append(text) }
        }
    }

    var snapshot: (cycles: Int, answers: Int, failures: Int, firstFailures: [String]) {
        state.withLock { ($0.cycles, $0.answers, $0.failures, $0.firstFailures) }
    }
}
