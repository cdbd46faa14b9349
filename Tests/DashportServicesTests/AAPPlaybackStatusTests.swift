import DashportClock
import DashportMessages
import DashportSession
import Testing
import DashportLog
@testable import DashportServices

@Suite("AAP playback status: MEDIA_PLAYBACK_STATUS")
struct AAPPlaybackStatusTests {
    /// Opening the channel pushes the current status, position projected to now, every field set.
    @Test func startPushesTheCurrentStatus() throws {
        let state = playbackState(.playing, valueMs: 10_400, atMs: 2_000, repeatMode: .all, shuffle: true)
        let (_, actions) = startedService(snapshot(state, item: song("a")), now: ms(5_000), channel: 7)
        let sent = try statuses(in: actions, channel: 7)
        #expect(sent == [expectedStatus(.playing, seconds: 13, shuffle: true, repeatAll: true)])
        let metadata = try metadata(in: actions, channel: 7)
        #expect(metadata.count == 1)
        #expect(actions.allSatisfy { $0.outgoing?.channel ?? 7 == 7 })
    }

    /// The status body is byte-exact: all six fields present, shuffle and repeat as explicit false.
    @Test func statusBytesAreExplicit() throws {
        let (_, actions) = startedService(snapshot(playbackState(.playing, valueMs: 80_000), item: song("a")))
        let message = try #require(actions.compactMap(\.outgoing).first { $0.messageId == statusId })
        let expected: [UInt8] = [0x08, 0x02, 0x12, 0x08] + Array("Dashport".utf8) + [0x18, 0x50, 0x20, 0x00, 0x28, 0x00, 0x30, 0x00]
        #expect(message.body == expected)
    }

    /// Session status → AAP state: buffering counts as playing, error as stopped.
    @Test(arguments: [
        (PlaybackStatus.playing, AAP.MediaPlaybackStatus.State.playing),
        (.buffering, .playing), (.paused, .paused), (.stopped, .stopped), (.error, .stopped),
    ])
    func stateMapping(status: PlaybackStatus, expected: AAP.MediaPlaybackStatus.State) throws {
        let (_, actions) = startedService(snapshot(playbackState(status), item: song("a")))
        #expect(try statuses(in: actions, channel: 13).map(\.state) == [expected])
    }

    /// Repeat modes map to `repeat` (all) and `repeat_one` (one), never both.
    @Test(arguments: [(RepeatMode.none, false, false), (.all, true, false), (.one, false, true)])
    func repeatMapping(mode: RepeatMode, all: Bool, one: Bool) throws {
        let (_, actions) = startedService(snapshot(playbackState(.paused, repeatMode: mode), item: song("a")))
        let status = try #require(try statuses(in: actions, channel: 13).first)
        #expect(status.repeat == all)
        #expect(status.repeatOne == one)
    }

    /// The media source name is configurable.
    @Test func mediaSourceIsConfigurable() throws {
        let configuration = AAPPlaybackStatusService.Configuration(mediaSource: "Car Radio")
        let (_, actions) = startedService(snapshot(playbackState(.paused), item: nil), configuration: configuration)
        #expect(try statuses(in: actions, channel: 13) == [expectedStatus(.paused, seconds: 0, source: "Car Radio")])
    }

    /// Each discontinuity pushes exactly one status with the new values.
    @Test func everyDiscontinuitySendsOneStatus() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 0), item: song("a")))
        let steps: [(PlaybackState, Duration, AAP.MediaPlaybackStatus)] = [
            (playbackState(.paused, valueMs: 2_500, atMs: 2_500), ms(2_500), expectedStatus(.paused, seconds: 2)),
            (playbackState(.playing, valueMs: 2_500, atMs: 3_000), ms(3_000), expectedStatus(.playing, seconds: 2)),
            (playbackState(.playing, valueMs: 60_000, atMs: 3_100), ms(3_100), expectedStatus(.playing, seconds: 60)),
            (
                playbackState(.playing, valueMs: 60_000, atMs: 3_100, shuffle: true), ms(3_100),
                expectedStatus(.playing, seconds: 60, shuffle: true)
            ),
            (
                playbackState(.playing, valueMs: 60_100, atMs: 3_200, repeatMode: .one, shuffle: true), ms(3_200),
                expectedStatus(.playing, seconds: 60, shuffle: true, repeatOne: true)
            ),
            (
                playbackState(.playing, valueMs: 60_200, atMs: 3_300, rate: 2, repeatMode: .one, shuffle: true), ms(3_300),
                expectedStatus(.playing, seconds: 60, shuffle: true, repeatOne: true)
            ),
            (playbackState(.stopped, valueMs: 0, atMs: 4_000), ms(4_000), expectedStatus(.stopped, seconds: 0)),
        ]
        for (state, now, expected) in steps {
            let actions = service.sessionUpdated(.playbackState(state), now: now)
            #expect(try statuses(in: actions, channel: 13) == [expected])
        }
    }

    /// Updates that change nothing the car shows (controls, capabilities, a re-anchor on the same
    /// projection, buffering → playing at the same position) send nothing.
    @Test func nonDiscontinuitiesSendNothing() {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 0), item: song("a")))
        var controls = playbackState(.playing, valueMs: 0)
        controls.controls = [.pause]
        controls.capabilities = [.pause]
        #expect(service.sessionUpdated(.playbackState(controls), now: ms(400)).isEmpty)
        #expect(service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 500, atMs: 500)), now: ms(500)).isEmpty)

        var (buffering, _) = startedService(snapshot(playbackState(.buffering, valueMs: 7_000), item: song("a")))
        #expect(buffering.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 7_000, atMs: 900)), now: ms(900)).isEmpty)
        #expect(buffering.sessionUpdated(.queue(.empty), now: ms(900)).isEmpty)
        #expect(buffering.sessionUpdated(.sleepTimerFired, now: ms(900)).isEmpty)
    }

    /// While playing, ticking every 100 ms for 10 s sends exactly one status per second, each a
    /// second further on.
    @Test func onceASecondWhilePlaying() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 0), item: song("a")))
        var sent: [(Duration, AAP.MediaPlaybackStatus)] = []
        for step in 1...100 {
            let now = ms(Int64(step) * 100)
            for status in try statuses(in: service.tick(now: now), channel: 13) { sent.append((now, status)) }
        }
        #expect(sent.map(\.0) == (1...10).map { ms(Int64($0) * 1_000) })
        #expect(sent.map(\.1.playbackSeconds) == (1...10).map { UInt32($0) })
        #expect(service.nextDeadline == ms(11_000))
    }

    /// A driver that ticks exactly at `nextDeadline` gets a status every second.
    @Test func deadlineDrivenCadence() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 0), item: song("a")))
        var seconds: [UInt32?] = []
        for _ in 0..<10 {
            let deadline = try #require(service.nextDeadline)
            seconds += try statuses(in: service.tick(now: deadline), channel: 13).map(\.playbackSeconds)
        }
        #expect(seconds == (1...10).map { UInt32($0) })
    }

    /// The interval is configurable, with a 100 ms floor.
    @Test(arguments: [(Duration.milliseconds(2_500), ms(2_500)), (.zero, ms(100)), (.milliseconds(-5), ms(100))])
    func statusIntervalIsConfigurable(interval: Duration, firstDeadline: Duration) {
        let configuration = AAPPlaybackStatusService.Configuration(statusInterval: interval)
        let (service, _) = startedService(snapshot(playbackState(.playing), item: song("a")), configuration: configuration)
        #expect(service.nextDeadline == firstDeadline)
    }

    /// Nothing periodic while paused or stopped, and no deadline.
    @Test(arguments: [PlaybackStatus.paused, .stopped, .buffering])
    func nothingWhileNotAdvancing(status: PlaybackStatus) {
        var (service, _) = startedService(snapshot(playbackState(status, valueMs: 5_000), item: song("a")))
        #expect(service.nextDeadline == nil)
        var sent = 0
        for step in 1...100 { sent += service.tick(now: ms(Int64(step) * 100)).count }
        #expect(sent == 0)
    }

    /// Pausing stops the cadence; playing again restarts it a second after the play status.
    @Test func pauseStopsTheCadence() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 0), item: song("a")))
        _ = service.sessionUpdated(.playbackState(playbackState(.paused, valueMs: 1_500, atMs: 1_500)), now: ms(1_500))
        #expect(service.nextDeadline == nil)
        #expect(service.tick(now: ms(5_000)).isEmpty)
        let play = service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 1_500, atMs: 6_000)), now: ms(6_000))
        #expect(try statuses(in: play, channel: 13) == [expectedStatus(.playing, seconds: 1)])
        #expect(service.nextDeadline == ms(7_000))
        #expect(try statuses(in: service.tick(now: ms(7_000)), channel: 13) == [expectedStatus(.playing, seconds: 2)])
    }

    /// At rate 2 the projected seconds move two per second.
    @Test func projectsAtRateTwo() throws {
        var (service, start) = startedService(snapshot(playbackState(.playing, valueMs: 1_000, rate: 2), item: song("a")))
        #expect(try statuses(in: start, channel: 13).map(\.playbackSeconds) == [1])
        var seconds: [UInt32?] = []
        for second in 1...4 {
            seconds += try statuses(in: service.tick(now: ms(Int64(second) * 1_000)), channel: 13).map(\.playbackSeconds)
        }
        #expect(seconds == [3, 5, 7, 9])
    }

    /// The projection is clamped to the duration, and a periodic status equal to the last is skipped.
    @Test func clampedToTheDuration() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 98_500), item: song("a", seconds: 100)))
        #expect(try statuses(in: service.tick(now: ms(1_000)), channel: 13).map(\.playbackSeconds) == [99])
        #expect(try statuses(in: service.tick(now: ms(2_000)), channel: 13).map(\.playbackSeconds) == [100])
        #expect(service.tick(now: ms(3_000)).isEmpty)
        #expect(service.nextDeadline == ms(4_000))
    }

    /// `sessionClockOrigin` maps link time onto the session clock's time line.
    @Test func sessionClockOriginShiftsTheProjection() throws {
        let configuration = AAPPlaybackStatusService.Configuration(sessionClockOrigin: .seconds(100))
        let state = playbackState(.playing, valueMs: 0, atMs: 0)
        let (_, actions) = startedService(snapshot(state, item: song("a")), now: .seconds(104), configuration: configuration)
        #expect(try statuses(in: actions, channel: 13).map(\.playbackSeconds) == [4])
    }

    /// The origin helper: a link that started after the session clock has a negative origin, and
    /// the projection uses it.
    @Test func sessionClockOriginFromTwoReadings() throws {
        let origin = AAPPlaybackStatusService.Configuration.sessionClockOrigin(
            linkNow: .milliseconds(500), sessionNow: ClockInstant(milliseconds: 60_500))
        #expect(origin == .seconds(-60))
        let configuration = AAPPlaybackStatusService.Configuration(sessionClockOrigin: origin)
        let state = playbackState(.playing, valueMs: 0, atMs: 58_000)
        let (_, actions) = startedService(snapshot(state, item: song("a")), now: .seconds(3), configuration: configuration)
        #expect(try statuses(in: actions, channel: 13).map(\.playbackSeconds) == [5])
    }

    /// Before `start`, updates and ticks send nothing, and there is no deadline.
    @Test func silentUntilStarted() {
        var service = AAPPlaybackStatusService(channel: 13, car: "car-1")
        #expect(service.sessionUpdated(.playbackState(playbackState(.playing)), now: .zero).isEmpty)
        #expect(service.sessionUpdated(.mediaItem(MediaItemState(item: song("a", art: "u"))), now: .zero).isEmpty)
        #expect(service.nextDeadline == nil)
        #expect(service.tick(now: .seconds(5)).isEmpty)
    }

    /// A command rejection handed back is logged; an acceptance is not.
    @Test func commandOutcomeIsLogged() throws {
        let service = AAPPlaybackStatusService(channel: 13, car: "car-1")
        #expect(service.commandFinished(.skipToNext, result: .accepted).isEmpty)
        let actions = service.commandFinished(.skipToNext, result: .rejected(reason: "end of queue"))
        let entry = try #require(actions.first?.logEntry)
        #expect(entry.level == .notice)
        #expect(entry.message.contains("end of queue"))
    }
}
