// Tests/DashportServicesTests/ClassicBrowserRobustnessTests.swift - odd paths, bad bodies, caps, order, deadlines, input.

import DashportBrowse
import DashportLog
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

/// A MEDIA_GET_NODE body.
private func getNode(_ path: String, art: Bool = false) -> [UInt8] {
    AAP.MediaGetNode(path: path, getAlbumArt: art).serializedBytes()
}

private let getNodeId = UInt16(AAP.MediaBrowserMessageId.getNode.rawValue)
private let inputId = UInt16(AAP.MediaBrowserMessageId.browseInput.rawValue)

private func service(_ configuration: ClassicBrowserService.Configuration = .init(), logger: Logger = .silent) -> ClassicBrowserService {
    ClassicBrowserService(channel: 15, car: "test-hu", configuration: configuration, logger: logger)
}

private func nodes(_ actions: [ClassicAction]) throws -> [ClassicNode] {
    try actions.compactMap { if case .send(let message) = $0 { try ClassicNode(message) } else { nil } }
}

@Suite struct ClassicBrowserRobustnessTests {
    /// "" is the root, echoed as sent; a path with no known prefix is an unknown parent: an empty
    /// list node echoing it (never the root and its sources), reported, nothing asked of the core.
    @Test func emptyPathIsTheRootAndUnrecognisedPathsAreEmpty() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let empty = try #require(try await hu.node("", art: false).root)
        #expect(empty.path == "")
        #expect(empty.mediaSources.map(\.name) == ["Music", "Big", "Odd"])
        #expect(hu.problems.isEmpty)
        let before = hu.actions.count
        #expect(
            try await hu.node("hello?", art: false) == .list(AAP.MediaListNode(list: AAP.MediaList(path: "hello?"), start: 0, total: 0)))
        #expect(hu.problems == [.unrecognisedPath("hello?")])
        #expect(hu.actions.dropFirst(before).allSatisfy { if case .send = $0 { true } else if case .problem = $0 { true } else { false } })
    }

    /// A known prefix whose id does not decode gets an empty node of that kind, echoing the path.
    @Test func badIdsGetEmptyNodesOfTheirKind() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        #expect(try await hu.node("/song/%ZZ") == .song(AAP.MediaSongNode(song: AAP.MediaSong(path: "/song/%ZZ"))))
        #expect(try await hu.node("/list/") == .list(AAP.MediaListNode(list: AAP.MediaList(path: "/list/"), start: 0, total: 0)))
        #expect(try await hu.node("/single/%FF") == .list(AAP.MediaListNode(list: AAP.MediaList(path: "/single/%FF"), start: 0, total: 0)))
        // A path past the cap is refused, and echoed cut to the cap: a 900 KB path never comes back.
        let long = "/src/" + String(repeating: "x", count: 900_000)
        let source = try #require(try await hu.node(long).source)
        let cap = ClassicBrowserPath.defaultMaxBytes
        #expect(source == AAP.MediaSourceNode(source: AAP.MediaSource(path: String(long.prefix(cap)), name: ""), start: 0, total: 0))
        #expect(hu.problems.count == 4)
        #expect(hu.problems.allSatisfy { if case .badPath = $0 { true } else { false } })
        // Nothing was asked of the core or the artwork pipeline for them.
        #expect(hu.actions.allSatisfy { if case .send = $0 { true } else if case .problem = $0 { true } else { false } })
    }

    /// A body that is not a MEDIA_GET_NODE is reported and dropped; the service goes on.
    @Test func malformedBodiesAreDropped() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        #expect(try await hu.send(.getNode, [0x0A, 0xFF, 0x01]).isEmpty)
        #expect(try await hu.send(.browseInput, [0xFF]).isEmpty)
        #expect(hu.problems.count == 2)
        #expect(hu.problems.allSatisfy { if case .malformedBody = $0 { true } else { false } })
        #expect(hu.service.inFlightCount == 0)
        #expect(try await hu.node("/song/t-1", art: false).song?.song.name == "Track 1")
    }

    /// Node messages are the phone's to send; receiving one (or an unknown id) is reported.
    @Test func unexpectedMessagesAreReported() {
        var browser = service()
        let root = UInt16(AAP.MediaBrowserMessageId.rootNode.rawValue)
        #expect(browser.receive(messageId: root, body: [], now: .zero) == [.problem(.unexpectedMessage(messageId: root))])
        #expect(browser.receive(messageId: 7, body: [], now: .zero) == [.problem(.unexpectedMessage(messageId: 7))])
    }

    /// Problems are logged as well as returned.
    @Test func problemsAreLogged() {
        let sink = CollectingSink()
        var browser = service(logger: Logger(label: "test", level: .debug, sink: sink))
        _ = browser.receive(messageId: getNodeId, body: [0x0A, 0xFF], now: .zero)
        #expect(sink.records.contains { $0.level == .warning && $0.label == "classic-browser" && $0.message.contains("not a valid") })
    }

    /// Over the in-flight cap a request is dropped unanswered; once one is answered there is room again.
    @Test func inFlightCapDropsTheExtraRequest() throws {
        var browser = service(.init(maxInFlight: 2))
        let first = browser.receive(messageId: getNodeId, body: getNode("/song/t-1"), now: .zero)
        _ = browser.receive(messageId: getNodeId, body: getNode("/song/t-2"), now: .zero)
        #expect(browser.inFlightCount == 2)
        let third = browser.receive(messageId: getNodeId, body: getNode("/song/t-3"), now: .zero)
        #expect(third == [.problem(.tooManyRequests(path: "/song/t-3", limit: 2))])
        #expect(browser.inFlightCount == 2)

        guard case .fetchItem(let ticket, "t-1", _)? = first.first else {
            Issue.record("expected an item request, got \(first)")
            return
        }
        let item = BrowseItem(id: "t-1", title: "One", playable: true)
        #expect(try nodes(browser.itemAnswered(ticket, item, now: .zero)).count == 1)
        let again = browser.receive(messageId: getNodeId, body: getNode("/song/t-3"), now: .zero)
        #expect(again.count == 1)
        #expect(browser.inFlightCount == 2)
    }

    /// Answers may come in any order: each node goes out when its own answers are in.
    @Test func answersInAnyOrder() throws {
        var browser = service()
        let list = browser.receive(messageId: getNodeId, body: getNode("/list/album-a"), now: .zero)
        let song = browser.receive(messageId: getNodeId, body: getNode("/song/t-1"), now: .zero)
        guard case .fetchItem(let listItem, _, _)? = list.first, case .browse(let listPage, _, _, _, _)? = list.last,
            case .fetchItem(let songItem, _, _)? = song.first
        else {
            Issue.record("unexpected requests \(list) \(song)")
            return
        }
        #expect(listItem != listPage)
        #expect(
            try nodes(
                browser.browseAnswered(
                    listPage, .items([BrowseItem(id: "t-1", title: "One", playable: true)], total: 9, fromCache: false), now: .zero)
            ).isEmpty)
        let songNodes = try nodes(browser.itemAnswered(songItem, BrowseItem(id: "t-1", title: "One", playable: true), now: .zero))
        #expect(songNodes.first?.song?.song.name == "One")
        let listNodes = try nodes(
            browser.itemAnswered(listItem, BrowseItem(id: "album-a", title: "A", browsable: true, mediaType: .album), now: .zero))
        let node = try #require(listNodes.first?.list)
        #expect(node.list == AAP.MediaList(path: "/list/album-a", type: .album, name: "A"))
        #expect(node.total == 9)
        #expect(node.songs.map(\.path) == ["/song/t-1"])
        #expect(browser.inFlightCount == 0)
        // A repeated or foreign answer is ignored: nothing is ever sent unasked.
        #expect(browser.itemAnswered(listItem, nil, now: .zero).isEmpty)
        #expect(browser.browseAnswered(ClassicBrowserService.Ticket(rawValue: 999), .empty, now: .zero).isEmpty)
        #expect(browser.tick(now: .seconds(3600)).isEmpty)
    }

    /// An answer given to the wrong kind of ticket does not count: the request still waits for the right one.
    @Test func mismatchedAnswersAreIgnored() throws {
        var browser = service()
        let actions = browser.receive(messageId: getNodeId, body: getNode("/song/t-1"), now: .zero)
        guard case .fetchItem(let ticket, _, _)? = actions.first else {
            Issue.record("expected an item request, got \(actions)")
            return
        }
        #expect(browser.browseAnswered(ticket, .empty, now: .zero).isEmpty)
        #expect(try nodes(browser.itemAnswered(ticket, BrowseItem(id: "t-1", title: "One", playable: true), now: .zero)).count == 1)
    }

    /// When the core never answers, the node goes out at the request timeout with what came, and it is reported.
    @Test func requestTimesOutWithWhatCame() throws {
        var browser = service()
        let actions = browser.receive(messageId: getNodeId, body: getNode("/src/music"), now: .seconds(5))
        guard case .fetchItem(let ticket, _, _)? = actions.first else {
            Issue.record("expected an item request, got \(actions)")
            return
        }
        #expect(browser.itemAnswered(ticket, BrowseItem(id: "music", title: "Music", browsable: true), now: .seconds(6)).isEmpty)
        #expect(browser.nextDeadline == .seconds(20))
        #expect(browser.tick(now: .milliseconds(19_999)).isEmpty)
        let late = browser.tick(now: .seconds(20))
        #expect(late.first == .problem(.requestTimedOut(path: "/src/music")))
        #expect(
            try nodes(late) == [
                .source(AAP.MediaSourceNode(source: AAP.MediaSource(path: "/src/music", name: "Music"), start: 0, total: 0))
            ])
        #expect(browser.inFlightCount == 0)
        #expect(browser.nextDeadline == nil)
    }

    /// ENTER on a song (or single) path plays it; other actions and other paths only log.
    @Test func clusterEnterOnASongPlaysIt() {
        var browser = service()
        func input(_ action: AAP.InstrumentClusterInput.Action, _ path: String) -> [ClassicAction] {
            let body = AAP.MediaBrowserInput(input: AAP.InstrumentClusterInput(action: action), path: path).serializedBytes()
            return browser.receive(messageId: inputId, body: body, now: .zero)
        }
        #expect(input(.enter, "/song/t-1") == [.command(.playFromMediaId("t-1"), ClassicFakeHeadUnit.source)])
        #expect(
            input(.enter, ClassicBrowserPath.single(id: "a/b").string) == [.command(.playFromMediaId("a/b"), ClassicFakeHeadUnit.source)])
        #expect(input(.enter, "/list/album-a").isEmpty)
        #expect(input(.enter, "/song/%ZZ").isEmpty)
        #expect(input(.up, "/song/t-1").isEmpty)
        #expect(input(.back, "/").isEmpty)
        #expect(browser.inFlightCount == 0)
    }
}
