import DashportBenchSupport
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportMessages
import DashportServer
import DashportTLS
import DashportTransport
import Foundation
import Synchronization

/// The cars' side every phase shares: their own reactor (its thread's CPU is the cars'), one TLS
/// client context, the emulator's car with the Dashport media channel.
struct Cars {
    let loop: EventLoop
    let tls: TLSContext
    let configuration: HeadUnitConfiguration
    let thread: Int32

    static func make() async throws -> Cars {
        let loop = try EventLoop(name: "bench-cars")
        let thread = await withCheckedContinuation { done in loop.execute { done.resume(returning: CPUTime.currentThreadId()) } }
        var configuration = HeadUnitConfiguration()
        let profile = DashportMedia.CarProfile(
            maxRootTabs: 4, artworkSizes: [DashportMedia.ArtworkSize(width: 256, height: 256)], errorScreenSupport: .full,
            supportsSearch: true)
        configuration.car.services = configuration.car.services.map { service in
            guard case .vendorExtension(let name, _) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .vendorExtension(name: name, data: profile.serializedBytes()))
        }
        let identity = try TLSIdentity.generate(commonName: "dashport bench car")
        return Cars(loop: loop, tls: try TLSContext(.client(identity: identity)), configuration: configuration, thread: thread)
    }

    func connect(_ server: DashportServer) async throws -> (BenchCar, ConnectTimes) {
        try await BenchCar.connect(to: server.address, configuration: configuration, tls: tls, loop: loop)
    }

    func connect(_ address: ListenAddress) async throws -> BenchCar {
        try await BenchCar.connect(to: address, configuration: configuration, tls: tls, loop: loop).0
    }
}

/// One library under test: an in-process server and what its Albums tab is called.
struct Subject {
    var name: String
    var server: DashportServer
    var albumsTab: String

    static func start(name: String, state: String, mpd: String?) async throws -> Subject {
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = state
        configuration.mpd = mpd
        configuration.audio = false
        configuration.maxConnections = 64
        configuration.maxPendingConnections = 64
        let server = try await DashportServer.start(configuration: configuration, logger: .silent)
        return Subject(name: name, server: server, albumsTab: mpd == nil ? "tab-albums" : MPDLibraryId.tab(.albums).id)
    }
}

/// Waits (bounded) until the server has let go of every car.
func waitUntilIdle(_ server: DashportServer) async {
    let deadline = ContinuousClock.now + .seconds(5)
    while server.connectionCount > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
}

/// Connect → root tabs, then the first page of Albums, in ms; the first car after the server
/// started (nothing cached) and then warm ones, the two libraries taking turns.
struct ConnectFigures {
    var firstRoot = 0.0
    var firstAlbums = 0.0
    var root: [Double] = []
    var albums: [Double] = []
    /// Rows of the first page the first car got, and the fewest any later car got.
    var firstAlbumCount = 0
    var albumCount: Int?
}

func connectPhase(_ subjects: [Subject], cars: Cars, rounds: Int) async throws -> [ConnectFigures] {
    var figures = Array(repeating: ConnectFigures(), count: subjects.count)
    for round in 0...rounds {
        for (index, subject) in subjects.enumerated() {
            let start = ContinuousClock.now
            let (car, times) = try await cars.connect(subject.server)
            let page = try await car.children(of: subject.albumsTab)
            let total = milliseconds(ContinuousClock.now - start)
            car.abort()
            await waitUntilIdle(subject.server)
            if round == 0 {
                figures[index].firstRoot = times.root
                figures[index].firstAlbums = total
                figures[index].firstAlbumCount = page.items.count
            } else {
                figures[index].root.append(times.root)
                figures[index].albums.append(total)
                figures[index].albumCount = min(figures[index].albumCount ?? .max, page.items.count)
            }
        }
    }
    return figures
}

/// Server CPU (the process's minus the cars' thread) per GET_CHILDREN answered, in ms, for the
/// requests of `parents` in order, one at a time; and mpd's CPU per request meanwhile.
func cpuPerRequest(_ server: DashportServer, parents: [String], cars: Cars, mpd: BenchMPD?) async throws -> (server: Double, mpd: Double) {
    let car = try await cars.connect(server.address)
    defer { car.abort() }
    var split = CPUSplit()
    let mpd0 = mpd?.cpuSeconds ?? 0
    try await split.measure(carThread: cars.thread) {
        for parent in parents { _ = try await car.children(of: parent) }
    }
    let mpdSeconds = (mpd?.cpuSeconds ?? 0) - mpd0
    return (split.server * 1000 / Double(parents.count), mpdSeconds * 1000 / Double(parents.count))
}

/// Every browsable id under the root whose children are a list (not an error screen), breadth
/// first, up to `limit`.
func browsableIds(_ server: DashportServer, cars: Cars, limit: Int) async throws -> [String] {
    let car = try await cars.connect(server.address)
    defer { car.abort() }
    var found: [String] = []
    var queue = car.root.items.filter(\.browsable).map(\.id)
    while !queue.isEmpty, found.count < limit {
        let parent = queue.removeFirst()
        guard let listing = try? await car.children(of: parent) else { continue }
        found.append(parent)
        queue += listing.items.filter(\.browsable).map(\.id)
    }
    return found
}

/// The media item's title each car was last sent, and when each car first saw a title other
/// than the one it showed when ``arm()`` was called.
final class ItemTracker: Sendable {
    private struct State {
        var titles: [Int: String] = [:]
        var armed: [Int: String?] = [:]
        var arrivals: [Int: ContinuousClock.Instant] = [:]
        var cars = 0
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    func watch(_ car: BenchCar, index: Int) {
        state.withLock { $0.cars = max($0.cars, index + 1) }
        car.observePushes { [self] id, body in
            guard Int32(id) == DashportMedia.MessageId.mediaItemState.rawValue,
                let title = (try? DashportMedia.MediaItemState(serializedBytes: body))?.item?.title
            else { return }
            saw(title, car: index)
        }
    }

    private func saw(_ title: String, car: Int) {
        let now = ContinuousClock.now
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.titles[car] = title
            if let armed = state.armed[car], armed != title, state.arrivals[car] == nil { state.arrivals[car] = now }
            guard state.arrivals.count == state.cars, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// What every car shows now, once they all show the same title (nil until then).
    var common: String? {
        state.withLock { state in
            let titles = Set(state.titles.values)
            return state.titles.count == state.cars && titles.count == 1 ? titles.first : nil
        }
    }

    /// Remembers what each car shows; arrivals count from here.
    func arm() {
        state.withLock { state in
            state.armed = Dictionary(uniqueKeysWithValues: (0..<state.cars).map { ($0, state.titles[$0]) })
            state.arrivals = [:]
        }
    }

    /// Ends a wait of ``arrivals()`` now, whoever has seen what (the benchmark's time limit).
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits until every car saw a new title (or ``release()``); returns when each did.
    func arrivals() async -> [ContinuousClock.Instant] {
        await withCheckedContinuation { waiter in
            let done = state.withLock { state -> Bool in
                if state.arrivals.count == state.cars { return true }
                state.waiter = waiter
                return false
            }
            if done { waiter.resume() }
        }
        return state.withLock { Array($0.arrivals.values) }
    }
}

/// Until `tracker` shows one title on every car (bounded).
func waitForCommonTitle(_ tracker: ItemTracker) async throws -> String {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if let title = tracker.common { return title }
        try await Task.sleep(for: .milliseconds(5))
    }
    throw BenchFailure("the cars never showed one media item")
}

/// `skips` times: arm, `skip()`, wait until every car shows the next item; the ms from just
/// before the skip to the last car's metadata (and to the first's).
func skipPhase(cars: [BenchCar], loop: EventLoop, skips: Int, skip: () async throws -> Void) async throws -> (
    last: [Double], first: [Double]
) {
    let tracker = ItemTracker()
    for (index, car) in cars.enumerated() { tracker.watch(car, index: index) }
    var last: [Double] = []
    var first: [Double] = []
    for _ in 0..<skips {
        _ = try await waitForCommonTitle(tracker)
        tracker.arm()
        let start = ContinuousClock.now
        try await skip()
        let timer = loop.scheduleTimer(after: .seconds(30)) { tracker.release() }
        let arrivals = await tracker.arrivals()
        timer.cancel()
        guard arrivals.count == cars.count else { throw BenchFailure("a car never showed the next item within 30 s") }
        last.append(milliseconds((arrivals.max() ?? start) - start))
        first.append(milliseconds((arrivals.min() ?? start) - start))
    }
    return (last, first)
}
