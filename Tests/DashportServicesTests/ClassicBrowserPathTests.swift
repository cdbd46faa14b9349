// Tests/DashportServicesTests/ClassicBrowserPathTests.swift - path spelling, round trips, and what does not parse.

import DashportBrowse
import DashportMessages
import Testing
@testable import DashportServices

@Suite struct ClassicBrowserPathTests {
    /// Every kind of path turns back into the same id, whatever characters the id has, and the
    /// encoded id is plain ASCII without a slash.
    @Test(arguments: classicOddIds)
    func pathsRoundTrip(id: String) throws {
        for path in [ClassicBrowserPath.source(id: id), .list(id: id), .single(id: id), .song(id: id)] {
            let string = path.string
            #expect(try ClassicBrowserPath(parsing: string) == path)
            let encoded = string.dropFirst(path.kind.prefix.count)
            #expect(!encoded.contains("/"))
            #expect(encoded.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
        }
    }

    /// The spelling is documented: prefixes, upper-case hex of UTF-8 bytes, unreserved bytes as they are.
    @Test func spelling() {
        #expect(ClassicBrowserPath.root.string == "/")
        #expect(ClassicBrowserPath.source(id: "tab-1").string == "/src/tab-1")
        #expect(ClassicBrowserPath.list(id: "a/b").string == "/list/a%2Fb")
        #expect(ClassicBrowserPath.single(id: "x:y").string == "/single/x%3Ay")
        #expect(ClassicBrowserPath.song(id: "ü 1").string == "/song/%C3%BC%201")
        #expect(ClassicBrowserPath.song(id: "n\0").string == "/song/n%00")
    }

    /// "" and "/" are the root; so is nothing else.
    @Test func emptyAndSlashAreTheRoot() throws {
        #expect(try ClassicBrowserPath(parsing: "") == .root)
        #expect(try ClassicBrowserPath(parsing: "/") == .root)
        #expect(ClassicBrowserPath.root.id == BrowseItem.rootId)
    }

    /// A path without a known prefix is unrecognised (the service answers it as the root).
    @Test(arguments: ["garbage", "root", "0", "//", "/src", "src/x", "/other/x", "/SONG/x", " /song/x"])
    func unrecognised(path: String) {
        #expect(throws: ClassicBrowserPath.ParseError.unrecognised) { try ClassicBrowserPath(parsing: path) }
    }

    /// A known prefix with an id that does not decode is a bad id of that kind.
    @Test(arguments: [
        ("/song/", ClassicBrowserPath.Kind.song), ("/song/%ZZ", .song), ("/list/%4", .list), ("/single/%", .single),
        ("/src/%FF", .source), ("/list/ok%C3", .list),
    ])
    func badIds(path: String, kind: ClassicBrowserPath.Kind) {
        #expect {
            try ClassicBrowserPath(parsing: path)
        } throws: { error in
            guard case .badId(let found, _) = error as? ClassicBrowserPath.ParseError else { return false }
            return found == kind
        }
    }

    /// A path longer than the cap is refused before it is decoded.
    @Test func overlongPathsAreRefused() throws {
        let path = "/src/" + String(repeating: "a", count: 100)
        #expect(try ClassicBrowserPath(parsing: path, maxBytes: 105) == .source(id: String(repeating: "a", count: 100)))
        #expect(throws: ClassicBrowserPath.ParseError.self) { try ClassicBrowserPath(parsing: path, maxBytes: 104) }
    }

    /// The reader is tolerant: lower-case hex and raw characters decode too.
    @Test func tolerantReader() throws {
        #expect(try ClassicBrowserPath(parsing: "/song/a%2fb") == .song(id: "a/b"))
        #expect(try ClassicBrowserPath(parsing: "/list/ü x") == .list(id: "ü x"))
        #expect(try ClassicBrowserPath(parsing: "/src/a/b") == .source(id: "a/b"))
    }

    /// Ids that need encoding survive the whole trip: source node → single → song node.
    @Test func oddIdsBrowseEndToEnd() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let source = try #require(try await hu.node("/src/odd", art: false).source)
        #expect(source.total == Int32(classicOddIds.count))
        for list in source.lists {
            let single = try #require(try await hu.node(list.path, art: false).list)
            let songPath = try #require(single.songs.first?.path)
            let song = try #require(try await hu.node(songPath, art: false).song)
            #expect(song.song.path == songPath)
            guard case .song(let id) = try ClassicBrowserPath(parsing: songPath) else {
                Issue.record("\(songPath) is not a song path")
                continue
            }
            if !id.contains("\0") { #expect(song.song.name == "Odd \(id)") }
        }
        let ids = try source.lists.map { try ClassicBrowserPath(parsing: $0.path).id }
        #expect(ids == classicOddIds)
    }
}
