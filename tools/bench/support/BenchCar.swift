package import DashportHeadUnit
import DashportLink
package import DashportMessages
package import DashportTLS
package import DashportTransport
import Synchronization

/// When a connect reached each step, in milliseconds from just before the TCP connect.
package struct ConnectTimes: Sendable {
    package var tcp = Double.nan, version = Double.nan, tls = Double.nan, channel = Double.nan, hello = Double.nan, root = Double.nan
    /// "TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256": what the handshake negotiated.
    package var suite = ""

    package init() {}
}

/// A car that went wrong: the benchmark stops with this text.
package struct BenchFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A Dashport car over TCP for the benchmark: the car-role ``HeadUnitLink`` on a ``TCPConnection``
/// of the benchmark's own reactor, plus just enough of the Dashport media channel to time a connect
/// (hello, then GET_CHILDREN of the root) and to keep GET_CHILDREN requests in flight.
///
/// Everything runs on the reactor thread as bytes arrive; the link sits behind a mutex so the
/// benchmark's task can start a load.
package final class BenchCar: Sendable {
    package static let mediaChannel: UInt8 = 16
    /// A whole-timeout for one connect or one one-off browse; the benchmark fails past it.
    package static let timeout: Duration = .seconds(20)

    package let connection: TCPConnection
    private let loop: EventLoop
    private let state: Mutex<CarState>
    private let closed = Flag()

    private init(connection: TCPConnection, loop: EventLoop, state: consuming sending CarState) {
        self.connection = connection
        self.loop = loop
        self.state = Mutex(state)
    }

    /// Connects, runs the AAP handshake and asks for the root's children as soon as the hello
    /// comes; returns once they are there, with the time each step was reached from `start`.
    package static func connect(
        to address: ListenAddress, configuration: HeadUnitConfiguration, tls: TLSContext, loop: EventLoop
    ) async throws -> (BenchCar, ConnectTimes) {
        let start = ContinuousClock.now
        let connection = try await TCPClient.connect(to: address, loop: loop)
        let session: TLSSession
        do {
            session = try TLSSession(context: tls)
        } catch {
            connection.abort()
            throw error
        }
        let link = HeadUnitLink(configuration: configuration, tls: session)
        var times = ConnectTimes()
        times.tcp = milliseconds(ContinuousClock.now - start)
        let car = BenchCar(connection: connection, loop: loop, state: CarState(link: link, start: start, times: times))
        let timer = loop.scheduleTimer(after: timeout) { car.fail("no root tabs within \(timeout)") }
        let outcome = await withCheckedContinuation { (waiter: CheckedContinuation<Result<ConnectTimes, BenchFailure>, Never>) in
            car.state.withLock { $0.connectWaiter = waiter }
            connection.start { event in car.handle(event) }
            car.state.withLock { state in car.perform(state.link.start(now: state.elapsed), &state) }
        }
        timer.cancel()
        switch outcome {
        case .success(let times): return (car, times)
        case .failure(let failure):
            connection.abort()
            throw failure
        }
    }

    /// The id the server's hello named as the root (known once ``connect(to:configuration:tls:loop:)`` returned).
    package var rootId: String { state.withLock { $0.rootId ?? "" } }
    /// The root's answer from the connect.
    package var root: Listing { state.withLock { $0.root } }

    /// One GET_CHILDREN, answered (or an error for a rejection, a screen or a lost link).
    package func children(of parentId: String) async throws -> Listing {
        let timer = loop.scheduleTimer(after: Self.timeout) { self.fail("no answer for '\(parentId)' within \(Self.timeout)") }
        defer { timer.cancel() }
        let outcome = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Listing, BenchFailure>, Never>) in
            state.withLock { state in
                let id = send(parentId: parentId, &state)
                state.oneOffs[id] = waiter
            }
        }
        return try outcome.get()
    }

    /// Keeps `depth` GET_CHILDREN of `parentId` in flight until `deadline`, then waits for the
    /// last answers. Returns every request's latency.
    package func load(parentId: String, depth: Int, until deadline: ContinuousClock.Instant) async -> LoadResult {
        let timer = loop.scheduleTimer(after: deadline - .now + Self.timeout) { self.fail("answers stopped during the load") }
        defer { timer.cancel() }
        return await withCheckedContinuation { (waiter: CheckedContinuation<LoadResult, Never>) in
            state.withLock { state in
                state.load = LoadState(parentId: parentId, deadline: deadline, waiter: waiter)
                for _ in 0..<depth { sendLoadRequest(&state) }
            }
        }
    }

    /// Resets the connection (the server sees the car vanish).
    package func abort() { connection.abort() }

    /// Sends `count` GET_CHILDREN of `parentId` and waits for none of them (the hostile phase's
    /// never-reader, whose transport has stopped reading).
    package func send(count: Int, parentId: String) {
        state.withLock { state in
            for _ in 0..<count where !closed.isSet { _ = send(parentId: parentId, &state) }
        }
    }

    /// What a hostile linked car floods (the hostile phase, issue 23 items 1 and 4).
    package enum Flood: String, Sendable, CaseIterable {
        case pings = "encrypted pings"
        case getChildren = "GET_CHILDREN"
        case searches = "searches"
    }

    /// Sends `count` messages of `flood` through the link, waiting for no answer. Call it on the
    /// car's reactor so its encryption is the attacker's CPU, not the server's.
    package func flood(_ flood: Flood, count: Int, parentId: String) {
        state.withLock { state in
            for _ in 0..<count where !closed.isSet {
                switch flood {
                case .pings:
                    perform(state.link.sendUnchecked(channel: 0, messageId: 11, body: [0x08, 0x01], encrypted: true), &state)
                case .getChildren:
                    _ = send(parentId: parentId, &state)
                case .searches:
                    let id = state.nextRequestId
                    state.nextRequestId &+= 1
                    let search = DashportMedia.Search(requestId: id, query: "a", page: 0, pageSize: 50)
                    guard
                        let actions = try? state.link.send(
                            channel: Self.mediaChannel, messageId: UInt16(DashportMedia.MessageId.search.rawValue),
                            body: search.serializedBytes())
                    else { return }
                    perform(actions, &state)
                }
            }
        }
    }

    /// Whether the connection has closed.
    package var isClosed: Bool { closed.isSet }

    /// Calls `observer` on the reactor, with the car's state locked, for every media channel
    /// message the car does not handle itself (state pushes: media item, playback state, queue);
    /// it must not call back into the car. Replaces an earlier observer.
    package func observePushes(_ observer: @escaping @Sendable (_ messageId: UInt16, _ body: [UInt8]) -> Void) {
        state.withLock { $0.pushObserver = observer }
    }

    /// Sends one message on the Dashport media channel (a playback command, say).
    package func sendMedia(messageId: UInt16, body: [UInt8]) {
        state.withLock { state in
            do {
                perform(try state.link.send(channel: Self.mediaChannel, messageId: messageId, body: body), &state)
            } catch {
                failLocked("cannot send message \(messageId): \(error)", &state)
            }
        }
    }

    // MARK: - Reactor side

    private func handle(_ event: TransportEvent) {
        state.withLock { state in
            switch event {
            case .received(let bytes): perform(state.link.receive(bytes, now: state.elapsed), &state)
            case .closed(let error):
                closed.set()
                failLocked("connection closed (\(error.map { "\($0)" } ?? "orderly"))", &state)
            }
        }
    }

    private func fail(_ reason: String) {
        state.withLock { failLocked(reason, &$0) }
        connection.abort()
    }

    private func failLocked(_ reason: String, _ state: inout CarState) {
        state.connectWaiter?.resume(returning: .failure(BenchFailure(reason)))
        state.connectWaiter = nil
        for waiter in state.oneOffs.values { waiter.resume(returning: .failure(BenchFailure(reason))) }
        state.oneOffs.removeAll()
        if var load = state.load {
            load.failure = reason
            finish(load)
            state.load = nil
        }
    }

    /// Writes every record the link produced, then handles its events and close in order. The
    /// records were encrypted as the link returned them; an event handled first (a SERVER_HELLO
    /// answered with GET_CHILDREN) encrypts a later record, and writing that one before the
    /// rest of `actions` put the records out of sequence: the server closed the car (bad record
    /// MAC).
    private func perform(_ actions: [HeadUnitAction], _ state: inout CarState) {
        for case .send(let bytes) in actions { connection.write(bytes) }
        for action in actions {
            switch action {
            case .send: break
            case .close(let reason):
                connection.close()
                failLocked("link closed: \(reason)", &state)
            case .event(let event):
                switch event {
                case .versionNegotiated: state.mark(\.version)
                case .tlsEstablished(let summary):
                    state.mark(\.tls)
                    state.times.suite = "\(summary.version) \(summary.cipher)"
                case .channelOpened(let service) where service.channel == Self.mediaChannel: state.mark(\.channel)
                case .message(Self.mediaChannel, let id, let body): media(id, body, &state)
                default: break
                }
            }
        }
    }

    private func media(_ id: UInt16, _ body: [UInt8], _ state: inout CarState) {
        switch Int32(id) {
        case DashportMedia.MessageId.serverHello.rawValue:
            guard let hello = try? DashportMedia.ServerHello(serializedBytes: body) else {
                return failLocked("undecodable SERVER_HELLO", &state)
            }
            state.mark(\.hello)
            state.rootId = hello.rootId
            state.rootRequest = send(parentId: hello.rootId, &state)
        case DashportMedia.MessageId.browseResult.rawValue:
            guard let result = try? DashportMedia.BrowseResult(serializedBytes: body) else {
                return failLocked("undecodable BROWSE_RESULT", &state)
            }
            answered(result, bodyBytes: body.count, &state)
        default:
            state.pushObserver?(id, body)  // state pushes: measured only by who asked
        }
    }

    private func answered(_ result: DashportMedia.BrowseResult, bodyBytes: Int, _ state: inout CarState) {
        let items: [DashportMedia.BrowseItem]? = if case .items(let page) = result.outcome { page.items } else { nil }
        if result.requestId == state.rootRequest, let waiter = state.connectWaiter {
            state.mark(\.root)
            state.root = Listing(items: items ?? [], bodyBytes: bodyBytes)
            state.connectWaiter = nil
            waiter.resume(returning: items == nil ? .failure(BenchFailure("the root was not a list")) : .success(state.times))
        } else if let waiter = state.oneOffs.removeValue(forKey: result.requestId) {
            waiter.resume(
                returning: items.map { .success(Listing(items: $0, bodyBytes: bodyBytes)) }
                    ?? .failure(BenchFailure("answer \(result.requestId) was not a list: \(String(describing: result.outcome))")))
        } else if let sentAt = state.load?.sentAt.removeValue(forKey: result.requestId) {
            // Mutated in place: a copy of the load (`if var load = state.load`) copied its whole
            // latency array per answer, which made the car, not the server, the bottleneck.
            let now = ContinuousClock.now
            state.load?.latencies.append(milliseconds(now - sentAt))
            state.load?.lastAnswer = now
            if items == nil { state.load?.rejected += 1 }
            if let deadline = state.load?.deadline, now < deadline {
                sendLoadRequest(&state)
            } else if let load = state.load, load.sentAt.isEmpty {
                finish(load)
                state.load = nil
            }
        }
    }

    private func sendLoadRequest(_ state: inout CarState) {
        guard let parentId = state.load?.parentId else { return }
        let id = send(parentId: parentId, &state)
        state.load?.sentAt[id] = .now
    }

    /// The GET_CHILDREN the car sends: the first page of 50.
    package static func request(id: UInt32, parentId: String) -> DashportMedia.GetChildren {
        DashportMedia.GetChildren(requestId: id, parentId: parentId, page: 0, pageSize: 50)
    }

    /// Sends GET_CHILDREN and returns its request id.
    private func send(parentId: String, _ state: inout CarState) -> UInt32 {
        let id = state.nextRequestId
        state.nextRequestId &+= 1
        let request = Self.request(id: id, parentId: parentId)
        do {
            perform(
                try state.link.send(
                    channel: Self.mediaChannel, messageId: UInt16(DashportMedia.MessageId.getChildren.rawValue),
                    body: request.serializedBytes()), &state)
        } catch {
            failLocked("cannot send GET_CHILDREN: \(error)", &state)
        }
        return id
    }

    private func finish(_ load: LoadState) {
        let elapsed = load.firstSent.map { start in load.lastAnswer.map { $0 - start } ?? .zero } ?? .zero
        load.waiter.resume(
            returning: LoadResult(
                latencies: load.latencies, rejected: load.rejected, seconds: milliseconds(elapsed) / 1000, failure: load.failure))
    }
}

/// One car's state, touched only with ``BenchCar/state`` locked.
struct CarState {
    let link: HeadUnitLink
    let start: ContinuousClock.Instant
    var times: ConnectTimes
    var connectWaiter: CheckedContinuation<Result<ConnectTimes, BenchFailure>, Never>?
    var rootId: String?
    var rootRequest: UInt32?
    var root = Listing(items: [], bodyBytes: 0)
    var oneOffs: [UInt32: CheckedContinuation<Result<Listing, BenchFailure>, Never>] = [:]
    var load: LoadState?
    var nextRequestId: UInt32 = 1
    var pushObserver: (@Sendable (UInt16, [UInt8]) -> Void)?

    init(link: HeadUnitLink, start: ContinuousClock.Instant, times: ConnectTimes) {
        self.link = link
        self.start = start
        self.times = times
    }

    var elapsed: Duration { ContinuousClock.now - start }

    mutating func mark(_ step: WritableKeyPath<ConnectTimes, Double>) {
        times[keyPath: step] = milliseconds(elapsed)
    }
}

/// A BROWSE_RESULT's items, and the size of its body on the channel (for the echo reference).
package struct Listing: Sendable {
    package var items: [DashportMedia.BrowseItem]
    package var bodyBytes: Int

    package init(items: [DashportMedia.BrowseItem], bodyBytes: Int) {
        self.items = items
        self.bodyBytes = bodyBytes
    }
}

/// A load in progress on one car.
struct LoadState {
    var parentId: String
    var deadline: ContinuousClock.Instant
    var waiter: CheckedContinuation<LoadResult, Never>
    var sentAt: [UInt32: ContinuousClock.Instant] = [:]
    var latencies: [Double] = []
    var rejected = 0
    var firstSent: ContinuousClock.Instant? = .now
    var lastAnswer: ContinuousClock.Instant?
    var failure: String?
}

/// What one connection's load did: a latency per answered request (ms), and how long it ran.
package struct LoadResult: Sendable {
    package var latencies: [Double]
    package var rejected = 0
    package var seconds: Double
    package var failure: String?

    package init(latencies: [Double], rejected: Int = 0, seconds: Double, failure: String? = nil) {
        self.latencies = latencies
        self.rejected = rejected
        self.seconds = seconds
        self.failure = failure
    }

    package var answered: Int { latencies.count }
    package var rate: Double { seconds > 0 ? Double(answered) / seconds : 0 }
}

/// A flag set once, read from any thread.
package final class Flag: Sendable {
    package init() {}
    private let value = Atomic<Bool>(false)
    package var isSet: Bool { value.load(ordering: .relaxed) }
    package func set() { value.store(true, ordering: .relaxed) }
}
