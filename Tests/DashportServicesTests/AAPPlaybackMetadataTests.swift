import DashportMessages
import DashportSession
import Testing
import DashportBrowse
import DashportLog
@testable import DashportServices

@Suite("AAP playback status: MEDIA_PLAYBACK_METADATA and covers")
struct AAPPlaybackMetadataTests {
    let cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
    let otherCover: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 9, 9]

    /// A service playing item "a" (no cover) since 0, so later item changes are the only news.
    func playing() -> AAPPlaybackStatusService {
        startedService(snapshot(playbackState(.playing), item: song("a"))).0
    }

    /// An item without a cover: metadata at once, every text field and the duration set, no art.
    @Test func itemWithoutCoverSendsMetadataAtOnce() throws {
        let (_, actions) = startedService(snapshot(playbackState(.paused), item: song("a", seconds: 183)))
        let sent = try metadata(in: actions, channel: 13)
        #expect(
            sent == [
                AAP.MediaPlaybackMetadata(
                    song: "Title a", artist: "Artist a", album: "Album a", albumArt: nil, durationSeconds: 183)
            ])
        #expect(fetches(in: actions).isEmpty)
    }

    /// With no artist the subtitle is the artist line; unknown fields are explicit empties; the
    /// duration is whole seconds, rounded down.
    @Test func fieldFallbacks() throws {
        let item = MediaItem(id: "x", subtitle: "Episode 4", durationMs: 59_999)
        let (_, actions) = startedService(snapshot(playbackState(.paused), item: item))
        #expect(
            try metadata(in: actions, channel: 13) == [
                AAP.MediaPlaybackMetadata(
                    song: "", artist: "Episode 4", album: "", durationSeconds: 59)
            ])
        let (_, idle) = startedService(snapshot(playbackState(.stopped), item: nil))
        #expect(
            try metadata(in: idle, channel: 13) == [
                AAP.MediaPlaybackMetadata(
                    song: "", artist: "", album: "", durationSeconds: 0)
            ])
    }

    /// A new item with a cover: fetch at 256 × 256, then metadata with the bytes when they arrive.
    @Test func coverArrives() throws {
        var service = playing()
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        #expect(try metadata(in: change, channel: 13).isEmpty)
        let fetch = try #require(fetches(in: change).first)
        #expect(fetch == ("https://c/b", 256, 256, "b"))
        #expect(service.isMetadataHeld)
        #expect(service.nextDeadline == nil, "the cache's answer is awaited, not a time")

        let arrived = service.artworkArrived(itemId: "b", bytes: cover)
        #expect(
            try metadata(in: arrived, channel: 13) == [
                AAP.MediaPlaybackMetadata(
                    song: "Title b", artist: "Artist b", album: "Album b", albumArt: cover, durationSeconds: 200)
            ])
        #expect(service.tick(now: ms(1_300)).allSatisfy { $0.outgoing?.messageId != metadataId })
    }

    /// The cover box is configurable.
    @Test func coverSizeIsConfigurable() throws {
        let configuration = AAPPlaybackStatusService.Configuration(artworkWidth: 480, artworkHeight: 320)
        let (_, actions) = startedService(
            snapshot(playbackState(.paused), item: song("a", art: "https://c/a")), configuration: configuration)
        let fetch = try #require(fetches(in: actions).first)
        #expect(fetch.width == 480 && fetch.height == 320)
    }

    /// A failed or empty cover: metadata without art, once.
    @Test(arguments: [nil, [UInt8]()])
    func coverFails(bytes: [UInt8]?) throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        let arrived = service.artworkArrived(itemId: "b", bytes: bytes)
        #expect(
            try metadata(in: arrived, channel: 13) == [
                AAP.MediaPlaybackMetadata(
                    song: "Title b", artist: "Artist b", album: "Album b", durationSeconds: 200)
            ])
        #expect(!service.isMetadataHeld)
        #expect(try metadata(in: service.tick(now: ms(2_000)), channel: 13).isEmpty)
    }

    /// A cover for an item that is no longer current is dropped; the current one's still counts.
    @Test func staleCoverIsDropped() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("c", art: "https://c/c"))), now: ms(1_100))
        #expect(fetches(in: change).map(\.itemId) == ["c"])

        let stale = service.artworkArrived(itemId: "b", bytes: otherCover)
        #expect(stale.compactMap(\.outgoing).isEmpty)
        #expect(stale.compactMap(\.logEntry).map(\.level) == [.debug])

        let current = service.artworkArrived(itemId: "c", bytes: cover)
        let sent = try metadata(in: current, channel: 13)
        #expect(sent.map(\.song) == ["Title c"])
        #expect(sent.map(\.albumArt) == [cover])
    }

    /// A cover arriving after the item moved to one without a cover is dropped too.
    @Test func coverForAnItemReplacedByOneWithoutCover() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("c"))), now: ms(1_050))
        #expect(try metadata(in: change, channel: 13).map(\.song) == ["Title c"])
        #expect(service.artworkArrived(itemId: "b", bytes: cover).compactMap(\.outgoing).isEmpty)
    }

    /// A cover the cache does not have: metadata without art and the status that waited at once,
    /// then the cover in a second metadata when the fetch brings it, however long that takes.
    @Test func anUncachedCoverFollowsInASecondMetadata() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        let held = service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 0, atMs: 1_000)), now: ms(1_000))
        #expect(held.compactMap(\.outgoing).isEmpty, "the status waits for the metadata")
        #expect(service.nextDeadline == nil)
        #expect(service.tick(now: ms(60_000)).compactMap(\.outgoing).isEmpty, "time alone releases nothing")

        let missed = service.artworkNotCached(itemId: "b")
        #expect(try Self.wire(missed) == ["metadata Title b", "status playing"])
        #expect(service.nextDeadline != nil)  // the periodic status again

        let arrived = try metadata(in: service.artworkArrived(itemId: "b", bytes: cover), channel: 13)
        #expect(arrived.map(\.albumArt) == [cover])
        #expect(arrived.map(\.song) == ["Title b"])
    }

    /// A cover that fails after the metadata went without it sends nothing more.
    @Test func anUncachedCoverThatFailsSendsNothingMore() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        #expect(try metadata(in: service.artworkNotCached(itemId: "b"), channel: 13).count == 1)
        #expect(try metadata(in: service.artworkArrived(itemId: "b", bytes: nil), channel: 13).isEmpty)
    }

    /// A cached cover: one metadata, with it, then the statuses that waited, in order.
    @Test func aCachedCoverGoesWithTheFirstMetadataAndTheStatusesFollow() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        _ = service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 0, atMs: 1_000)), now: ms(1_000))
        _ = service.sessionUpdated(.playbackState(playbackState(.paused, valueMs: 10, atMs: 1_010)), now: ms(1_010))
        #expect(
            try Self.wire(service.artworkArrived(itemId: "b", bytes: cover)) == [
                "metadata Title b art", "status playing", "status paused",
            ])
        #expect(service.artworkNotCached(itemId: "b").isEmpty, "a late miss changes nothing")
    }

    /// A status held while item "a"'s cover was looked up describes "a": when the item changes
    /// before the cache answers, it is dropped, not sent after "b"'s metadata (fuzz input
    /// `crash-d04ddd04…`: "b" was shown at "a"'s 59 s, past its own length); "b" is owed one status,
    /// which the core's next playback state pays.
    @Test func statusesHeldForAnItemAreDroppedWhenItChanges() throws {
        let a = song("a", art: "https://c/a")
        var (service, started) = startedService(snapshot(playbackState(.playing, valueMs: 59_000), item: a))
        #expect(try Self.wire(started).isEmpty && service.isMetadataHeld, "metadata and status wait for the cache")

        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", seconds: 30))), now: ms(100))
        #expect(try Self.wire(change) == ["metadata Title b"])
        #expect(service.statusOwedSince == ms(100))
        let state = service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 0, atMs: 100)), now: ms(100))
        #expect(try statuses(in: state, channel: 13) == [expectedStatus(.playing, seconds: 0)])
        #expect(
            service.artworkNotCached(itemId: "a").isEmpty
                && service.artworkArrived(itemId: "a", bytes: cover).compactMap(\.outgoing).isEmpty)
    }

    /// The same when the next item has a cover to look up too: its metadata comes first, then only
    /// statuses made for it (here the owed one, at the next tick).
    @Test func statusesHeldForAnItemAreDroppedWhenTheNextOneWaitsToo() throws {
        var (service, _) = startedService(snapshot(playbackState(.playing, valueMs: 59_000), item: song("a", art: "https://c/a")))
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("c", seconds: 30, art: "https://c/c"))), now: ms(100))
        #expect(fetches(in: change).map(\.itemId) == ["c"])
        #expect(try Self.wire(service.artworkNotCached(itemId: "c")) == ["metadata Title c"])
        let tick = try statuses(in: service.tick(now: ms(100)), channel: 13)
        #expect(tick.map(\.playbackSeconds) == [30], "the owed status, clamped to c's 30 s")
    }

    /// What went to the car, in order: "status <state>" or "metadata <song> [art]".
    static func wire(_ actions: [AAPPlaybackStatusService.Action]) throws -> [String] {
        try actions.compactMap(\.outgoing).map { message in
            if message.messageId == statusId {
                let state = try AAP.MediaPlaybackStatus(serializedBytes: message.body).state
                return "status " + (state.map { "\($0)" } ?? "-")
            }
            let metadata = try AAP.MediaPlaybackMetadata(serializedBytes: message.body)
            return "metadata " + (metadata.song ?? "-") + (metadata.albumArt == nil ? "" : " art")
        }
    }

    /// Items sharing a cover URI share one fetch; a title change keeps the cover without a refetch.
    @Test func coverIsReusedForTheSameURI() throws {
        var service = playing()
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/lp"))), now: ms(1_000))
        _ = service.artworkArrived(itemId: "b", bytes: cover)

        var retitled = song("b", art: "https://c/lp")
        retitled.title = "Live now"
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: retitled)), now: ms(2_000))
        #expect(fetches(in: change).isEmpty)
        #expect(try metadata(in: change, channel: 13).map(\.song) == ["Live now"])
        #expect(try metadata(in: change, channel: 13).map(\.albumArt) == [cover])

        let next = service.sessionUpdated(.mediaItem(MediaItemState(item: song("c", art: "https://c/lp"))), now: ms(3_000))
        #expect(fetches(in: next).isEmpty)
        #expect(try metadata(in: next, channel: 13).map(\.albumArt) == [cover])
    }

    /// A cover over the size cap is not sent: a warning, and metadata without art.
    @Test func oversizedCoverIsRefused() throws {
        let configuration = AAPPlaybackStatusService.Configuration(maxArtworkBytes: 8)
        var (service, _) = startedService(snapshot(playbackState(.playing), item: song("a")), configuration: configuration)
        _ = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b", art: "https://c/b"))), now: ms(1_000))
        let arrived = service.artworkArrived(itemId: "b", bytes: cover)
        #expect(arrived.compactMap(\.logEntry).map(\.level) == [.warning])
        #expect(try metadata(in: arrived, channel: 13).map(\.albumArt) == [nil])
    }

    /// A field the car does not show (media type) changes nothing on the wire.
    @Test func invisibleChangesSendNothing() {
        var service = playing()
        var item = song("a")
        item.mediaType = .podcast
        #expect(service.sessionUpdated(.mediaItem(MediaItemState(item: item)), now: ms(500)).isEmpty)
    }

    /// An item change owes a status: the playback state the core broadcasts next pays it (one
    /// status, at the new position), or the next tick does when none comes.
    @Test func itemChangeOwesOneStatus() throws {
        var service = playing()
        let change = service.sessionUpdated(.mediaItem(MediaItemState(item: song("b"))), now: ms(5_000))
        #expect(try statuses(in: change, channel: 13).isEmpty)
        #expect(try metadata(in: change, channel: 13).map(\.song) == ["Title b"])
        #expect(service.statusOwedSince == ms(5_000))
        let state = service.sessionUpdated(.playbackState(playbackState(.playing, valueMs: 0, atMs: 5_000)), now: ms(5_000))
        #expect(try statuses(in: state, channel: 13) == [expectedStatus(.playing, seconds: 0)])
        #expect(service.nextDeadline == ms(6_000))

        let again = service.sessionUpdated(.mediaItem(MediaItemState(item: song("c"))), now: ms(7_000))
        #expect(try statuses(in: again, channel: 13).isEmpty)
        #expect(try statuses(in: service.tick(now: ms(7_000)), channel: 13).count == 1)
    }
}
