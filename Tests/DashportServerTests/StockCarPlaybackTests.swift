import DashportClock
import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportMessages
import DashportSession
@testable import DashportServer

/// A stock AAP head unit (no Dashport media channel): it binds the media keys, sees playback
/// status and metadata with a cover, and drives playback with its keys, over real TCP.
@Suite("Stock AAP car over TCP", .serialized)
struct StockCarPlaybackTests {
    static let inputChannel: UInt8 = 8
    static let statusChannel: UInt8 = 13

    func statuses(_ car: TestCar) async -> [AAP.MediaPlaybackStatus] {
        await car.messages(on: Self.statusChannel).filter { $0.id == 0x8001 }
            .compactMap { try? AAP.MediaPlaybackStatus(serializedBytes: $0.body) }
    }

    func metadata(_ car: TestCar) async -> [AAP.MediaPlaybackMetadata] {
        await car.messages(on: Self.statusChannel).filter { $0.id == 0x8003 }
            .compactMap { try? AAP.MediaPlaybackMetadata(serializedBytes: $0.body) }
    }

    func press(_ keycode: UInt32, on car: TestCar) async {
        for down in [true, false] {
            let report = AAP.InputReport(
                timestamp: 1, keyEvent: AAP.KeyEvent(keys: [AAP.KeyEvent.Key(keycode: keycode, down: down, metastate: 0)]))
            await car.sendUnchecked(channel: Self.inputChannel, messageId: 0x8001, body: report.serializedBytes())
        }
    }

    @Test func mediaKeysDrivePlaybackAndTheCarSeesStatusAndMetadataWithACover() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address)
            try await car.waitUntil("key binding request and a first status") { car in
                car.messages(on: Self.inputChannel).contains { $0.id == 0x8002 }
                    && car.messages(on: Self.statusChannel).contains { $0.id == 0x8001 }
            }
            let binding = try #require(await car.messages(on: Self.inputChannel).first { $0.id == 0x8002 })
            let request = try AAP.KeyBindingRequest(serializedBytes: binding.body)
            #expect(Set(request.keycodes) == [85, 86, 87, 88, 126, 127])
            #expect(await statuses(car).last?.state == .stopped)

            // PLAY with nothing queued starts the first playable item of the first tab.
            await press(126, on: car)
            try await car.waitUntil("playing, with metadata and a cover") { car in
                let messages = car.messages(on: Self.statusChannel)
                let playing = messages.contains {
                    $0.id == 0x8001 && (try? AAP.MediaPlaybackStatus(serializedBytes: $0.body))?.state == .playing
                }
                let art = messages.contains {
                    $0.id == 0x8003 && ((try? AAP.MediaPlaybackMetadata(serializedBytes: $0.body))?.albumArt?.count ?? 0) > 0
                }
                return playing && art
            }
            let first = try #require(await metadata(car).last)
            #expect(first.song?.isEmpty == false)
            #expect((first.durationSeconds ?? 0) > 0)
            let art = try #require(first.albumArt)
            #expect(art.starts(with: [0xFF, 0xD8]) || art.starts(with: [0x89, 0x50, 0x4E, 0x47]))  // JPEG or PNG

            // NEXT changes the song; PAUSE pauses.
            await press(87, on: car)
            try await car.waitUntil("metadata of the next song") { car in
                let songs = car.messages(on: Self.statusChannel).filter { $0.id == 0x8003 }
                    .compactMap { try? AAP.MediaPlaybackMetadata(serializedBytes: $0.body).song }
                return Set(songs).count >= 2
            }
            await press(127, on: car)
            try await car.waitUntil("paused") { car in
                car.messages(on: Self.statusChannel).last { $0.id == 0x8001 }
                    .flatMap { try? AAP.MediaPlaybackStatus(serializedBytes: $0.body) }?.state == .paused
            }
            #expect(await server.server.core.session.playbackState.status == .paused)
        }
    }

    @Test func aRestartedServerRestoresTheSessionPausedWhereItStopped() async throws {
        let first = try await TestServer.start()
        let car = try await TestCar.connect(to: first.server.address)
        try await car.waitUntil("input channel open") { $0.openedChannels.contains(Self.inputChannel) }
        let pressed = ContinuousClock.now
        await press(126, on: car)
        try await car.waitUntil("playing") { car in
            car.messages(on: Self.statusChannel).contains {
                $0.id == 0x8001 && (try? AAP.MediaPlaybackStatus(serializedBytes: $0.body))?.state == .playing
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let before = await first.server.core.session.snapshot
        await first.stop(keepingState: true)
        // Playback cannot have run longer than the real time since play was pressed, however
        // slow the machine: the bound moves with it.
        let elapsed = (ContinuousClock.now - pressed).wholeMilliseconds

        try await TestServer.with(stateDirectory: first.stateDirectory) { second in
            let after = await second.server.core.session.snapshot
            #expect(after.playbackState.status == .paused)
            #expect(after.mediaItem.item?.id == before.mediaItem.item?.id)
            #expect(after.queue.items.map(\.id) == before.queue.items.map(\.id))
            #expect(after.playbackState.position.valueMs >= 300)
            #expect(after.playbackState.position.valueMs <= elapsed)
        }
    }
}
