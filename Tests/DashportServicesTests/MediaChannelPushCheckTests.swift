// The field-by-field check of a push against the session update it came from, with the schema's
// numbers written out independently of the service's mapping.

import DashportClock
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

extension MediaChannelPushTests {
    static let statusNumbers: [PlaybackStatus: Int32] = [.stopped: 0, .playing: 1, .paused: 2, .buffering: 3, .error: 4]
    static let repeatNumbers: [RepeatMode: Int32] = [.none: 0, .one: 1, .all: 2]
    static let actionNumbers: [SessionCapability: Int32] = [
        .play: 1, .pause: 2, .stop: 3, .seekTo: 4, .skipToNext: 5, .skipToPrevious: 6, .skipToQueueItem: 7, .setRate: 8,
        .setRepeatMode: 9, .setShuffle: 10, .jumpForward: 11, .jumpBack: 12, .customAction: 13, .playFromMediaId: 15,
        .playFromSearch: 16,
    ]
    static let sleepTimerNumber: Int32 = 14

    /// Asserts that the push is exactly what its update must produce.
    static func expectMirrors(_ push: MediaChannelPush, registry: MediaChannelKeyRegistry) throws {
        let (update, received) = (push.update, push.received)
        try #require(received.count == 1, "\(update) pushed \(received.count) messages")
        switch (update, try #require(received.first)) {
        case (.playbackState(let state), .playbackState(let wire)):
            expectMirrors(state, wire)
            #expect(wire.sentAtMs == push.atMs)
        case (.mediaItem(let item), .mediaItemState(let wire)):
            #expect(wire.item.map(\.id) == item.item?.id)
            if let entry = item.item, let wireItem = wire.item { expectMirrors(entry, wireItem, registry: registry) }
        case (.queue(let queue), .queueState(let wire)):
            try #require(wire.items.count == queue.items.count)
            for (entry, wireItem) in zip(queue.items, wire.items) { expectMirrors(entry, wireItem, registry: registry) }
        case (.error(let error), .sessionError(let wire)):
            #expect(wire.message == error.message)
            #expect(wire.severity == (error.severity == .fatal ? .fatal : .degraded))
            #expect(wire.subject == error.subject)
        case (.sleepTimerFired, .sleepTimerFired(let wire)):
            #expect(wire.atMs == push.atMs)
        case (.sleepTimer(let status), .sleepTimer(let wire)):
            #expect(wire.sentAtMs == push.atMs)
            #expect((wire.mode == nil) == (status == nil))
            #expect(wire.remainingMs == status?.deadline.map { max(0, $0.milliseconds - push.atMs) })
        case (.remotePlayback(let remote), .remotePlayback(let wire)):
            #expect(wire.remote?.volume == remote?.volume)
            #expect(wire.remote?.muted == remote?.muted)
        default:
            Issue.record("\(update) was pushed as \(received)")
        }
    }

    static func expectMirrors(_ state: PlaybackState, _ wire: DashportMedia.PlaybackState) {
        #expect(wire.status.rawValue == statusNumbers[state.status])
        let anchor = wire.position
        #expect(anchor?.valueMs == state.position.valueMs)
        #expect(anchor?.atMs == state.position.at.milliseconds)
        #expect(anchor?.rate == (state.status == .playing ? state.position.rate : 0))
        #expect(wire.bufferedPositionMs == state.bufferedPositionMs)
        #expect(Set(wire.controls.map(\.rawValue)) == Set(state.controls.compactMap { actionNumbers[$0] }))
        var capabilities = Set(state.capabilities.compactMap { actionNumbers[$0] })
        if state.capabilities.contains(.pause) { capabilities.insert(sleepTimerNumber) }
        #expect(Set(wire.capabilities.map(\.rawValue)) == capabilities)
        #expect(wire.capabilities.count == capabilities.count)
        #expect(wire.queueIndex.map { Int($0) } == state.queueIndex)
        #expect(wire.errorMessage == state.errorMessage)
        #expect(wire.repeatMode?.rawValue == repeatNumbers[state.repeatMode])
        #expect(wire.shuffle == state.shuffle)
        #expect(wire.customActions.map(\.name) == state.customActions.map(\.name))
    }

    static func expectMirrors(_ item: MediaItem, _ wire: DashportMedia.MediaItem, registry: MediaChannelKeyRegistry) {
        #expect(wire.id == item.id)
        #expect(wire.title == item.title)
        #expect(wire.artist == item.artist)
        #expect(wire.album == item.album)
        #expect(wire.durationMs == item.durationMs)
        #expect(wire.subtitle == item.subtitle)
        #expect(wire.albumArtist == item.albumArtist)
        #expect(wire.genre == item.genre)
        #expect(wire.trackNumber.map { Int($0) } == item.trackNumber)
        #expect(wire.discNumber.map { Int($0) } == item.discNumber)
        #expect(wire.year.map { Int($0) } == item.year)
        #expect(wire.isLive == item.isLive)
        #expect(Dictionary(wire.extras.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }) == (item.extras ?? [:]))
        #expect(wire.artworkKey == item.artworkUri.flatMap(registry.key(for:)))
        #expect(item.artworkUri == nil || wire.artworkKey != nil)
    }

    @Test func theAnchorIsTheSchemasAnchor() {
        var car = MediaChannelFakeCar()
        _ = car.service.open(now: .zero)
        let paused = PlaybackState(
            status: .paused, position: PositionAnchor(valueMs: 4000, at: ClockInstant(milliseconds: 9000), rate: 1.5),
            bufferedPositionMs: 8000, controls: [.play], capabilities: [.play, .seekTo], queueIndex: 2, repeatMode: .one,
            shuffle: true)
        let actions = car.update(.playbackState(paused), now: ClockInstant(milliseconds: 12_345))
        guard case .playbackState(let wire) = try? MediaChannelFakeCar.only(actions) else {
            Issue.record("no state push")
            return
        }
        #expect(wire.position == DashportMedia.PositionAnchor(valueMs: 4000, atMs: 9000, rate: 0))
        #expect(wire.sentAtMs == 12_345)
        #expect(wire.capabilities == [.play, .seekTo])
        #expect(wire.controls == [.play])
        #expect(wire.queueIndex == 2 && wire.repeatMode == .one && wire.shuffle == true && wire.bufferedPositionMs == 8000)
        Self.expectMirrors(paused, wire)

        var playing = paused
        playing.status = .playing
        playing.capabilities.insert(.pause)
        let next = car.update(.playbackState(playing), now: ClockInstant(milliseconds: 12_400))
        guard case .playbackState(let moving) = try? MediaChannelFakeCar.only(next) else {
            Issue.record("no state push")
            return
        }
        #expect(moving.position == DashportMedia.PositionAnchor(valueMs: 4000, atMs: 9000, rate: 1.5))
        #expect(moving.capabilities == [.play, .pause, .seekTo, .sleepTimer])
        // The car's projection: value + (sentAt − at + carElapsed) × rate.
        let carElapsed: Int64 = 600
        let projected = Double(4000) + Double(12_400 - 9000 + carElapsed) * 1.5
        #expect(projected == Double(playing.position.projectedMs(at: ClockInstant(milliseconds: 13_000), advancing: true)))
    }
}
