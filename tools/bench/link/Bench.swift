import DashportBenchSupport
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportMessages
import DashportServer
import DashportTLS
import DashportTransport
import Foundation

/// What every phase shares: the options, the cars' reactor and TLS context, the car description,
/// and a scratch directory removed at the end.
struct Bench {
    let options: Options
    /// The cars' (and the reference clients') reactor: a thread of its own, so the client side
    /// never queues behind the server's reactor.
    let carLoop: EventLoop
    /// The car role's TLS context, one client certificate for every car (as in the tests).
    let carTLS: TLSContext
    let car: HeadUnitConfiguration
    let workDirectory: String
    /// The kernel's id of ``carLoop``'s thread, whose CPU time is the cars' side of a run.
    let carThread: Int32

    static func make(_ options: Options) async throws -> Bench {
        let directory = NSTemporaryDirectory() + "dashport-bench-link-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let identity = try TLSIdentity.generate(commonName: "dashport bench car")
        let loop = try EventLoop(name: "bench-cars")
        let tid = await withCheckedContinuation { done in loop.execute { done.resume(returning: CPUTime.currentThreadId()) } }
        return Bench(
            options: options, carLoop: loop, carTLS: try TLSContext(.client(identity: identity)), car: dashportCar(),
            workDirectory: directory, carThread: tid)
    }

    /// The emulator's default car (aasdk's channels plus `dashport.media` on 16) whose media
    /// channel entry carries a full-rendering profile, as in the server's tests.
    static func dashportCar() -> HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        let profile = DashportMedia.CarProfile(
            maxRootTabs: 4, artworkSizes: [DashportMedia.ArtworkSize(width: 256, height: 256)],
            errorScreenSupport: .full, supportsSearch: true)
        configuration.car.services = configuration.car.services.map { service in
            guard case .vendorExtension(let name, _) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .vendorExtension(name: name, data: profile.serializedBytes()))
        }
        return configuration
    }

    /// Which of the server's limits a phase's server keeps.
    enum Limits {
        /// The connect and throughput phases: the per-car message budget and the per-address cap
        /// of linked cars are lifted, as those phases measure neither attack: one car with 32
        /// GET_CHILDREN in flight asks for far more than 1,000 messages a second.
        case lifted
        /// The hostile phases: the server's defaults, which are what they measure, except the
        /// linked cars one address may hold when `--cars` asks for more than the default allows
        /// (every good car is 127.0.0.1, and no phase measures that cap).
        case defaults
    }

    /// An in-process server on 127.0.0.1:0 with logging off (warnings and errors only, discarded)
    /// unless `--server-log` asks for it.
    func startServer(stateDirectory: String, limits: Limits) async throws -> DashportServer {
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = stateDirectory
        configuration.maxConnections = max(configuration.maxConnections, options.cars + 16)
        configuration.maxCarsPerAddress = max(configuration.maxCarsPerAddress, options.cars + 16)
        if limits == .lifted {
            configuration.maxMessagesPerSecond = 10_000_000
            configuration.maxPendingConnections = max(configuration.maxPendingConnections, options.cars + 16)
        }
        configuration.reactors = options.reactorCount
        configuration.catalog = options.catalog
        let logger = options.serverLog.map { Logger(label: "server", level: $0) } ?? .silent
        return try await DashportServer.start(configuration: configuration, logger: logger)
    }

    func connectCar(to server: DashportServer) async throws -> (BenchCar, ConnectTimes) {
        try await BenchCar.connect(to: server.address, configuration: car, tls: carTLS, loop: carLoop)
    }

    /// Connects `count` cars, `parallel` at a time, each up to its root tabs.
    func connectCars(_ count: Int, to address: ListenAddress, parallel: Int = 16) async throws -> [BenchCar] {
        var cars: [BenchCar] = []
        while cars.count < count {
            let batch = min(parallel, count - cars.count)
            try await withThrowingTaskGroup(of: BenchCar.self) { group in
                for _ in 0..<batch {
                    group.addTask { [self] in
                        try await BenchCar.connect(to: address, configuration: car, tls: carTLS, loop: carLoop).0
                    }
                }
                for try await car in group { cars.append(car) }
            }
        }
        return cars
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: workDirectory)
    }
}

/// Waits (bounded) until the server has let go of every car, so one measurement's teardown does
/// not run into the next.
func waitUntilIdle(_ server: DashportServer, limit: Duration = .seconds(5)) async {
    let deadline = ContinuousClock.now + limit
    while server.connectionCount > 0, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(2))
    }
}
