import DashportBenchSupport
import DashportClock
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportMessages
import DashportServer
import DashportTLS
import DashportTransport
import Foundation

/// What every phase shares: the options, the cars' reactors and TLS context, and a scratch
/// directory removed at the end. Cars and server share one process; the cars' reactors are
/// threads of their own, so their CPU is told apart from the server's (``CPUSplit``).
struct AudioBench: Sendable {
    let options: Options
    /// The streaming cars' reactor.
    let carLoop: EventLoop
    /// The browsing cars' reactor (a second thread, so browsing load does not delay the audio
    /// cars' reads and show up as the server's lateness).
    let browseLoop: EventLoop
    let carThreads: [Int32]
    let tls: TLSContext
    let directory: String

    static func make(_ options: Options) async throws -> AudioBench {
        let directory = NSTemporaryDirectory() + "dashport-bench-audio-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let identity = try TLSIdentity.generate(commonName: "dashport bench audio car")
        let carLoop = try EventLoop(name: "bench-audio-cars")
        let browseLoop = try EventLoop(name: "bench-browse-cars")
        var threads: [Int32] = []
        for loop in [carLoop, browseLoop] {
            threads.append(await withCheckedContinuation { done in loop.execute { done.resume(returning: CPUTime.currentThreadId()) } })
        }
        // A thread's niceness on Linux: setpriority on its id. Only the cars' own threads.
        for thread in threads where options.carNice > 0 {
            if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), Int32(min(options.carNice, 19))) != 0 {
                progress("could not lower the car threads' priority: \(String(cString: strerror(errno)))")
            }
        }
        return AudioBench(
            options: options, carLoop: carLoop, browseLoop: browseLoop, carThreads: threads,
            tls: try TLSContext(.client(identity: identity)), directory: directory)
    }

    /// A car with the emulator's PCM media sink (48k/16/2), keeping no decoded samples.
    var audioCar: HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        configuration.audio = MediaSinkConfiguration(window: UInt32(options.window), sendsAcks: !options.ackless, retainedFrames: 0)
        return configuration
    }

    /// A Dashport car that only browses: its full-rendering media channel profile, no audio sink.
    var browsingCar: HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        configuration.audio = nil
        let profile = DashportMedia.CarProfile(
            maxRootTabs: 4, artworkSizes: [DashportMedia.ArtworkSize(width: 256, height: 256)],
            errorScreenSupport: .full, supportsSearch: true)
        configuration.car.services = configuration.car.services.compactMap { service -> CarService? in
            switch service.kind {
            case .mediaSink: return nil
            case .vendorExtension(let name, _):
                return CarService(channel: service.channel, kind: .vendorExtension(name: name, data: profile.serializedBytes()))
            default: return service
            }
        }
        return configuration
    }

    /// An in-process server on 127.0.0.1:0 (the embedded demo library and its tones), logging
    /// off, on `clock`.
    func startServer(clock: SystemClock) async throws -> DashportServer {
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = directory + "/state"
        let cars = options.cars + options.browsers
        configuration.maxConnections = max(256, cars + 16)
        configuration.maxPendingConnections = max(64, cars + 16)
        // Every car comes from 127.0.0.1: the per-address bound (128 by default) must not refuse them.
        configuration.maxCarsPerAddress = max(configuration.maxCarsPerAddress, cars + 16)
        return try await DashportServer.start(configuration: configuration, logger: .silent, clock: clock)
    }

    /// Connects `count` streaming cars, 16 at a time, each up to its sink's setup.
    func connectAudioCars(_ count: Int, to address: ListenAddress, origin: ContinuousClock.Instant) async throws -> [AudioCar] {
        var cars: [AudioCar] = []
        while cars.count < count {
            let batch = min(16, count - cars.count)
            try await withThrowingTaskGroup(of: AudioCar.self) { group in
                for _ in 0..<batch {
                    group.addTask { [self] in
                        try await AudioCar.connect(to: address, configuration: audioCar, tls: tls, loop: carLoop, origin: origin)
                    }
                }
                for try await car in group { cars.append(car) }
            }
        }
        return cars
    }

    /// Connects `count` browsing cars, 16 at a time, each up to its root tabs.
    func connectBrowsingCars(_ count: Int, to address: ListenAddress) async throws -> [BenchCar] {
        var cars: [BenchCar] = []
        while cars.count < count {
            let batch = min(16, count - cars.count)
            try await withThrowingTaskGroup(of: BenchCar.self) { group in
                for _ in 0..<batch {
                    group.addTask { [self] in
                        try await BenchCar.connect(to: address, configuration: browsingCar, tls: tls, loop: browseLoop).0
                    }
                }
                for try await car in group { cars.append(car) }
            }
        }
        return cars
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The process's resident memory now (KiB), from /proc/self/status.
func residentKiB() -> Int {
    (try? MemorySample.read(pid: getpid()).rss) ?? 0
}

/// Polls `condition` every millisecond until it holds; fails after `limit`.
func waitFor(_ what: String, limit: Duration = .seconds(20), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw BenchFailure("\(what): not within \(limit)") }
        try await Task.sleep(for: .milliseconds(1))
    }
}
