import DashportClock
import DashportHeadUnit
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// The demo library's sound reaching cars over real TCP: each car's own sink answers SETUP, takes
/// focus and ACKs (MediaSinkClient in the car-role link), and decodes what it hears. Waits are on
/// events (packets counted, states seen), never on time.
@Suite("Media audio over TCP", .serialized)
struct AudioOverTCPTests {
    /// A car whose sink does as `change` says (window, ACKs, focus).
    static func car(_ change: (inout MediaSinkConfiguration) -> Void = { _ in }) -> HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        var audio = MediaSinkConfiguration()
        change(&audio)
        configuration.audio = audio
        return configuration
    }

    /// The tone the playing item is written to have.
    static func playingTone(_ server: TestServer) async throws -> Double {
        let item = try #require(await server.server.core.session.snapshot.mediaItem.item)
        return try #require(item.extras?["toneHz"].flatMap(Double.init), "\(item.id) has a toneHz")
    }

    /// The strongest of the demo's tones in what the car heard last.
    static func heard(_ car: TestCar, candidates: [Double]) async -> Double? {
        let samples = await car.heardSamples
        return ToneDetector.dominant(in: samples, frequencies: candidates)?.frequency
    }

    static func packets(_ car: TestCar) async -> Int { await car.audioStats?.packets ?? 0 }

    @Test func aCarHearsThePlayingTrackThenTheNextAndGoesQuietOnPause() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            #expect(await car.audioStats?.packets == 0, "nothing streams before play")
            let play = SessionCommand.playFromMediaId("nd-1", parentId: "album-night-drive")
            #expect(await server.server.core.session.perform(play, from: .local) == .accepted)
            try await car.waitUntil("a second of audio") { ($0.audioStats?.packets ?? 0) >= 24 }
            let first = try await Self.playingTone(server)
            #expect(await car.audioStats?.starts == 1)

            #expect(await server.server.core.session.perform(.skipToNext, from: .local) == .accepted)
            let second = try await Self.playingTone(server)
            #expect(second != first)
            let after = await Self.packets(car)
            try await car.waitUntil("a second of the next track") { ($0.audioStats?.packets ?? 0) >= after + 24 }
            #expect(await Self.heard(car, candidates: [first, second]) == second)

            #expect(await server.server.core.session.perform(.pause, from: .local) == .accepted)
            try await car.waitUntil("STOP") { $0.audioStats?.stops == 1 }
            let stopped = await Self.packets(car)
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            try await car.waitUntil("a new START") { $0.audioStats?.starts == 2 && ($0.audioStats?.packets ?? 0) > stopped + 12 }
            #expect(await car.audioStats?.sessionId == 1, "the second START has session id 1")
            #expect(await car.audioStats?.dataOutsideSession == 0)
            #expect(await car.audioStats?.codecConfigs == 0)
            #expect(await Self.heard(car, candidates: [first, second]) == second, "resumed where it paused")
        }
    }

    /// One car never ACKs (a stuck head unit, or one at protocol 5 that sends none): the other
    /// still gets every packet, and the stuck one is streamed without ACKs once 2 s pass.
    @Test func aCarThatNeverAcksDelaysNoOtherCar() async throws {
        try await TestServer.with { server in
            let stuck = try await TestCar.connect(to: server.server.address, configuration: Self.car { $0.sendsAcks = false })
            let good = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            for car in [stuck, good] { try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 } }
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            try await good.waitUntil("three seconds of audio") { ($0.audioStats?.packets ?? 0) >= 72 }
            try await stuck.waitUntil("audio without ACKs after the 2 s grace") { ($0.audioStats?.packets ?? 0) >= 24 }
            let cars = server.server.context.registry.cars.compactMap(\.audio)
            #expect(cars.count == 2)
            #expect(cars.contains { $0.ackless }, "the car that sends no ACKs is streamed without them")
            // The good car kept its window (it was never made to wait for the stuck one's ACKs) and
            // heard the stream's packets in order (a count that grows by whole packets, nothing
            // outside START…STOP): how many it skipped under load is the machine's, not the stuck car's.
            #expect(cars.contains { !$0.ackless && $0.window == 1 })
            #expect(await good.audioStats?.dataOutsideSession == 0)
        }
    }

    /// The car takes focus away mid-song (a phone call): the session pauses; focus back, it resumes.
    @Test func anUnsolicitedLossPausesAndTheGainResumes() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(
                to: server.server.address,
                configuration: Self.car { $0.focus = .unsolicitedLoss(after: .milliseconds(500), regainAfter: .milliseconds(500)) })
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            try await car.waitUntil("stopped by the loss, then started again") { ($0.audioStats?.starts ?? 0) >= 2 }
            #expect(await car.audioStats?.stops ?? 0 >= 1)
            try await eventually("playing again") { await server.server.core.session.snapshot.playbackState.status == .playing }
        }
    }

    /// A car that never answers a gain request is never streamed to; a car beside it is.
    @Test func noFocusNoStream() async throws {
        try await TestServer.with { server in
            let silent = try await TestCar.connect(to: server.server.address, configuration: Self.car { $0.focus = .neverAnswerGain })
            let good = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            for car in [silent, good] { try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 } }
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            try await good.waitUntil("two seconds of audio") { ($0.audioStats?.packets ?? 0) >= 48 }
            #expect(await silent.audioStats?.packets == 0)
            #expect(await silent.audioStats?.starts == 0)
            #expect(await silent.audioStats?.focusRequests ?? 0 >= 2, "RELEASE, then the GAIN it never answered")
        }
    }

    /// A car unplugged mid-stream: the other car keeps hearing, and the pump forgets the gone one.
    @Test func aCarThatUnplugsMidStreamHurtsNoOne() async throws {
        try await TestServer.with { server in
            let leaving = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            let staying = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            for car in [leaving, staying] { try await car.waitUntil("audio") { ($0.audioStats?.packets ?? 0) >= 12 } }
            await leaving.abort()
            try await eventually("the car gone") { server.server.context.registry.count == 1 }
            let before = await Self.packets(staying)
            try await staying.waitUntil("another second") { ($0.audioStats?.packets ?? 0) >= before + 24 }
        }
    }

    /// `--no-audio`: the sink is never opened, and the rest works as before.
    @Test func noAudioLeavesTheSinkClosed() async throws {
        try await TestServer.with(configure: { $0.audio = false }) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.car())
            try await car.waitUntil("linked with its other channels") { $0.openedChannels.count == 4 }
            #expect(await !car.openedChannels.contains(4))
            #expect(await server.server.core.session.perform(.play, from: .local) == .accepted)
            #expect(await car.audioStats?.setups ?? 0 == 0)
        }
    }
}

extension TestCar {
    var audioStats: MediaSinkStats? { link.audio?.stats }
    var heardSamples: [Int16] { link.audio?.recentSamples ?? [] }
}
