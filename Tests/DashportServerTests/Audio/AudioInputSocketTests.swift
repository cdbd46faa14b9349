import DashportClock
import DashportControl
import DashportHeadUnit
import DashportSession
import DashportTestSupport
import Foundation
import Synchronization
import Testing

@testable import DashportServer

/// The server's audio input socket over a real Unix socket, fed by `dashport audio-in`'s core: a
/// car hears what is written, the input is drained when no car listens, one writer at a time, a
/// writer that vanishes mid-packet harms nothing, and audio-in outlives a server restart.
@Suite("Audio input socket", .serialized)
struct AudioInputSocketTests {
    static func heard(_ car: TestCar) async -> Double? {
        ToneDetector.dominant(in: await car.heardSamples, frequencies: [440, 1000, 1500])?.frequency
    }

    /// The session plays (as MPD's player says when MPD plays): the cars' sinks START.
    static func playing(_ server: TestServer) async throws {
        try await server.server.core.session.broadcaster.setPlaybackState(PlaybackState(status: .playing, capabilities: [.play, .pause]))
    }

    @Test func aToneWrittenToAudioInReachesACarsMediaSink() async throws {
        try await TestServer.with(handler: ExternalPlayer()) { server in
            let path = try #require(server.server.audioInputSocketPath)
            #expect(path == server.stateDirectory + "/audio-in.sock")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "owner only, like the control socket")
            let input = try #require(server.server.audioInput)
            #expect(!input.isListening)
            let car = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            try await eventually("the input knows a car listens") { input.isListening }
            try await Self.playing(server)
            let feed = try AudioInFeed.start(socket: path, hz: 1000)
            try await car.waitUntil("a second of the fed audio") { ($0.audioStats?.packets ?? 0) >= 24 }
            #expect(await Self.heard(car) == 1000)
            #expect(await car.audioStats?.dataOutsideSession == 0)
            let status = try await ControlClient.send(["status"], socket: try #require(server.server.controlSocketPath))
            guard case .ok(let lines) = status else { throw TestTimeout(what: "a status answer") }
            #expect(lines.contains { $0.hasPrefix("audio-in=writer listening=yes") }, "\(lines)")
            let summary = try await feed.finish()
            #expect(summary.connections == 1)
            #expect(summary.bytesSent > 24 * SessionAudioFormat.bytesPerPacket)
            #expect(summary.bytesDiscarded == 0)
            try await eventually("the writer gone") { !input.hasWriter }
            await car.abort()
            try await eventually("no car listens any more") { !input.isListening }
        }
    }

    /// The demo's tones are what the cars hear; the input is still pulled, unheard, at the pace
    /// it would play: the writer keeps going and never runs ahead of real time.
    @Test func theInputIsDrainedInRealTimeWhenNoCarListens() async throws {
        try await TestServer.with { server in
            let input = try #require(server.server.audioInput)
            let began = ContinuousClock.now
            let feed = try AudioInFeed.start(socket: try #require(server.server.audioInputSocketPath), hz: 440)
            try await eventually("two seconds of audio drained") { input.statistics.framesOut >= 96_000 }
            let elapsed = ContinuousClock.now - began
            let drained = input.statistics.framesOut
            // The pump never runs ahead of the clock (it is late under load, never early).
            let bound = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 + 0.5) * 48_000
            #expect(Double(drained) <= bound, "drained \(drained) frames in \(elapsed)")
            #expect(!input.isListening)
            #expect(input.bufferedBytes <= SessionAudioInput.capacityBytes)
            // What the writer wrote is what was drained, plus what the pipe and socket buffers hold.
            #expect(feed.written.load(ordering: .relaxed) <= Int(input.statistics.bytesIn) + 2 << 20)
            let summary = try await feed.finish()
            #expect(summary.connections == 1 && summary.bytesDiscarded == 0)
        }
    }

    @Test func aSecondWriterIsRefusedAndTakesOverWhenTheFirstGoes() async throws {
        try await TestServer.with(handler: ExternalPlayer()) { server in
            let path = try #require(server.server.audioInputSocketPath)
            let input = try #require(server.server.audioInput)
            let first = try await onAThread { AudioInputClient(socketPath: path).connect() }.get()
            try await eventually("the first is the writer") { input.hasWriter }
            let second = await onAThread { AudioInputClient(socketPath: path).connect() }
            guard case .failure(let problem) = second else {
                Issue.record("a second writer was accepted")
                return
            }
            #expect(problem.text.contains("refused by the server") && problem.text.contains("another writer"), "\(problem.text)")
            try await server.waitForLog("a second writer was refused")
            close(first)
            try await eventually("the first writer gone") { !input.hasWriter }
            let third = try await onAThread { AudioInputClient(socketPath: path).connect() }.get()
            try await eventually("the next one is the writer") { input.hasWriter }
            close(third)
        }
    }

    /// A writer that sends half a packet and an odd byte and vanishes: the next writer's tone is
    /// heard clean (frames aligned), and the car's stream went on.
    @Test func aWriterThatVanishesMidPacketHurtsNothing() async throws {
        try await TestServer.with(handler: ExternalPlayer()) { server in
            let path = try #require(server.server.audioInputSocketPath)
            let input = try #require(server.server.audioInput)
            let car = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            try await Self.playing(server)
            let vanishing = try await onAThread { AudioInputClient(socketPath: path).connect() }.get()
            let half = sinePCM(hz: 440, frames: SessionAudioFormat.framesPerPacket + 1024, first: 0) + [0x55]
            #expect(AudioInputClient.sendAll(vanishing, half[...]) == nil)
            close(vanishing)
            try await eventually("the writer gone") { !input.hasWriter }
            let feed = try AudioInFeed.start(socket: path, hz: 1500)
            let before = await car.audioStats?.packets ?? 0
            try await car.waitUntil("a second of the next writer") { ($0.audioStats?.packets ?? 0) >= before + 24 }
            #expect(await Self.heard(car) == 1500)
            #expect(input.statistics.droppedBytes >= 1, "the odd byte")
            #expect(input.statistics.writers == 2)
            _ = try await feed.finish()
        }
    }

    /// No server yet: audio-in says so and discards at real-time pace; the server comes, it
    /// connects; the server restarts, it reconnects without losing its input; stdin ends, it exits.
    @Test func audioInWaitsForTheServerAndReconnectsWhenItRestarts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let path = state + "/audio-in.sock"
        let feed = try AudioInFeed.start(socket: path, hz: 440) { $0.retryMax = .milliseconds(250) }
        try await eventually("audio-in says there is no server") { feed.lines.contains { $0.contains("no server") } }
        let first = try await TestServer.start(stateDirectory: state, handler: ExternalPlayer())
        try await eventually("connected to the first server") { first.server.audioInput?.hasWriter == true }
        await first.stop(keepingState: true)
        try await eventually("audio-in noticed") { feed.lines.contains { $0.contains("discarding the input until the server is back") } }
        let second = try await TestServer.start(stateDirectory: state, handler: ExternalPlayer())
        try await eventually("connected to the second server") { second.server.audioInput?.hasWriter == true }
        try await eventually("audio flows again") { (second.server.audioInput?.statistics.bytesIn ?? 0) > 0 }
        let summary = try await feed.finish()
        await second.stop()
        #expect(summary.connections == 2)
        #expect(summary.bytesDiscarded > 0)
        #expect(summary.bytesRead == summary.bytesSent + summary.bytesDiscarded)
    }
}

/// Who hears the audio input: the cars, when the handler makes no sound of its own or hands out
/// the input itself; nobody (drained unheard) when it has its own sound.
@Suite("Audio plan")
struct AudioPlanTests {
    @Test func theCarsHearTheInputUnlessTheHandlerMakesItsOwnSound() {
        let none = AudioPlan(handlerSource: nil, clock: SystemClock())
        #expect(none.carsHearInput && none.fanout.source === none.input)
        let given = SessionAudioInput()
        let handed = AudioPlan(handlerSource: given, clock: SystemClock())
        #expect(handed.carsHearInput && handed.input === given && handed.fanout.source === given)
        let demo = DemoTonePlayer()
        let own = AudioPlan(handlerSource: demo, clock: SystemClock())
        #expect(!own.carsHearInput && own.fanout.source === demo)
        #expect(own.drain?.source === own.input)
    }

    /// The input hears whether a car's sink is subscribed to the stream that carries it, and only then.
    @Test func listeningFollowsTheSubscribersOfTheStreamThatCarriesTheInput() {
        let heard = AudioPlan(handlerSource: nil, clock: SystemClock())
        let first = heard.fanout.subscribe { _ in .woken }
        let second = heard.fanout.subscribe { _ in .woken }
        #expect(heard.input.isListening)
        heard.fanout.unsubscribe(first)
        #expect(heard.input.isListening, "one car still listens")
        heard.fanout.unsubscribe(second)
        #expect(!heard.input.isListening)
        let unheard = AudioPlan(handlerSource: DemoTonePlayer(), clock: SystemClock())
        _ = unheard.fanout.subscribe { _ in .woken }
        #expect(!unheard.input.isListening, "the cars hear the handler's sound, not the input")
    }
}
