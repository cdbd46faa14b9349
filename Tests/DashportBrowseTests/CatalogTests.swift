// Tests/DashportBrowseTests/CatalogTests.swift - the demo library, and every way a catalog is refused.

import Foundation
import DashportTestSupport
import Testing
@testable import DashportBrowse

@Suite struct CatalogTests {
    @Test func demoCatalogLoadsWithEverythingACarRenders() async throws {
        let provider = try Fixtures.demoProvider()
        #expect(provider.title == "Demo library")
        let root = try await provider.children(of: BrowseItem.rootId, page: 0, pageSize: 100)
        #expect(root.map(\.id) == ["tab-recent", "tab-albums", "tab-artists", "tab-podcasts", "tab-radio", "track-welcome"])

        let albums = try await provider.children(of: "tab-albums", page: 0, pageSize: 100)
        #expect(try #require(try await provider.item(id: "tab-albums")).childStyle == .grid)
        #expect(albums.count == 6 && albums.allSatisfy { $0.browsable && $0.playable })
        let covers = albums.compactMap(\.artworkUri)
        #expect(covers.count == 6)
        #expect(covers.contains { $0.hasPrefix("https://") })
        for cover in covers where cover.hasPrefix("file://") {
            let path = try #require(URL(string: cover)).path
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(path.hasPrefix(Fixtures.packageRoot + "/Fixtures/demo/covers/"))
        }

        let recent = try await provider.children(of: "tab-recent", page: 0, pageSize: 100)
        #expect(recent.map(\.group) == ["Today", "Today", "This week", "This week"])
        // The group belongs to the list: the same album elsewhere has none.
        #expect(try await provider.item(id: "album-quiet-hours")?.group == nil)

        let episodes = try await provider.children(of: "show-road-notes", page: 0, pageSize: 100)
        #expect(episodes.map(\.completion) == [0.35, 1.0, 0.0])
        #expect(try await provider.item(id: "hs-2")?.explicit == true)
        let track = try #require(try await provider.item(id: "nl-1"))
        #expect(track.artist == "Aurora Fields" && track.album == "Northern Lights" && track.durationMs == 214_000)
    }

    @Test func demoCatalogHasExactlyTheExpectedRootRejections() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        let tabs = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full)
        #expect(tabs.ids == ["tab-recent", "tab-albums", "tab-artists", "tab-podcasts"])
        // Browse the whole library: the two root entries are the only things dropped.
        var queue = tabs.ids
        while let id = queue.popLast() {
            queue += await core.children(of: id, page: 0, pageSize: 100, for: .full).items.filter(\.browsable).map(\.id)
        }
        let reports = await core.reports
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { $0.code == BrowseReportCode.rootRejected })
        #expect(Set(reports.compactMap(\.itemId)) == ["tab-radio", "track-welcome"])
        #expect(reports.contains { $0.itemId == "tab-radio" && $0.message.contains("'Radio'") && $0.message.contains("over the cap") })
        #expect(reports.contains { $0.itemId == "track-welcome" && $0.message.contains("not browsable") })
    }

    @Test func fiftyCarsBrowsingAtOnceGetConsistentAnswers() async throws {
        let provider = try Fixtures.demoProvider()
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path))
        let cars: [CarProfile] = [.full, .legacy, CarProfile(maxRootTabs: 3, maxDepth: 3), CarProfile(maxItemsPerList: 2)]

        @Sendable func walk(_ car: CarProfile) async -> [String: BrowseAnswer] {
            var seen: [String: BrowseAnswer] = [:]
            var queue = [BrowseItem.rootId]
            while let id = queue.popLast() {
                guard seen[id] == nil else { continue }
                let answer = await core.children(of: id, page: 0, pageSize: 100, for: car)
                seen[id] = answer
                queue += answer.items.filter(\.browsable).map(\.id)
            }
            return seen
        }

        // The answers of a fresh core, one car at a time.
        var expected: [CarProfile: [String: BrowseAnswer]] = [:]
        for car in cars { expected[car] = await walk(car) }
        #expect(expected[.full]?.count == 22)  // root, 4 tabs, 6 albums, 4 artists, 2 shows, 5 locked shows

        let results = await withTaskGroup(of: (CarProfile, [String: BrowseAnswer]).self) { group in
            for index in 0..<50 {
                let car = cars[index % cars.count]
                group.addTask { (car, await walk(car)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 50)
        for (car, answers) in results {
            #expect(answers == expected[car], "car \(car)")
        }
    }

    @Test func aMissingFileIsRefusedByName() {
        let path = "/nonexistent/dashport/catalog.json"
        let error = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: path) }
        #expect(error?.file == path)
        #expect(error?.description.hasPrefix(path) == true)
        guard case .unreadable = error?.problem else {
            Issue.record("expected unreadable, got \(String(describing: error))")
            return
        }
    }

    struct BrokenCatalog: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var item: String?
        var problem: CatalogError.Problem?
        var problemText: String
        var testDescription: String { name }
    }

    static let item = #"{ "id": "a", "title": "A", "playable": true }"#

    static func catalog(root: String = #"["t"]"#, _ items: String...) -> String {
        #"{ "format": "dashport.catalog", "version": 1, "root": \#(root), "items": [\#(items.joined(separator: ","))] }"#
    }

    static let broken: [BrokenCatalog] = [
        BrokenCatalog(
            name: "duplicate id", json: catalog(#"{ "id": "t", "title": "T", "browsable": true }"#, item, item),
            item: "a", problem: .duplicateId, problemText: "another item already has"),
        BrokenCatalog(
            name: "missing title", json: catalog(#"{ "id": "t", "browsable": true }"#),
            item: "t", problem: .missingTitle, problemText: "has no title"),
        BrokenCatalog(
            name: "blank title", json: catalog(#"{ "id": "t", "title": " ", "browsable": true }"#),
            item: "t", problem: .missingTitle, problemText: "has no title"),
        BrokenCatalog(
            name: "missing id", json: catalog(#"{ "title": "T", "browsable": true }"#),
            item: "items[0]", problem: .missingId, problemText: "has no id"),
        BrokenCatalog(
            name: "bad completion",
            json: catalog(#"{ "id": "t", "title": "T", "playable": true, "browsable": true, "completion": 1.5 }"#),
            item: "t", problem: .badCompletion(1.5), problemText: "completion 1.5"),
        BrokenCatalog(
            name: "missing child", json: catalog(#"{ "id": "t", "title": "T", "browsable": true, "children": ["ghost"] }"#),
            item: "t", problem: .missingChild("ghost"), problemText: "child 'ghost', which does not exist"),
        BrokenCatalog(
            name: "missing root entry", json: catalog(root: #"["t", "nowhere"]"#, #"{ "id": "t", "title": "T", "browsable": true }"#),
            item: "root", problem: .missingChild("nowhere"), problemText: "child 'nowhere'"),
        BrokenCatalog(
            name: "cycle",
            json: catalog(
                #"{ "id": "t", "title": "T", "browsable": true, "children": ["b"] }"#,
                #"{ "id": "b", "title": "B", "browsable": true, "children": ["c"] }"#,
                #"{ "id": "c", "title": "C", "browsable": true, "children": ["b"] }"#),
            item: "b", problem: .cycle(["b", "c", "b"]), problemText: "contains itself: b → c → b"),
        BrokenCatalog(
            name: "neither flag", json: catalog(#"{ "id": "t", "title": "T" }"#),
            item: "t", problem: .neitherBrowsableNorPlayable, problemText: "neither browsable nor playable"),
        BrokenCatalog(
            name: "children on a track", json: catalog(#"{ "id": "t", "title": "T", "playable": true, "children": [] }"#),
            item: "t", problem: .childrenOnNonBrowsable, problemText: "not browsable"),
        BrokenCatalog(
            name: "artwork outside the folder",
            json: catalog(#"{ "id": "t", "title": "T", "browsable": true, "artwork": "../../etc/passwd" }"#),
            item: "t", problem: nil, problemText: "leaves the catalog's folder"),
        BrokenCatalog(
            name: "plain http artwork",
            json: catalog(#"{ "id": "t", "title": "T", "browsable": true, "artwork": "http://example.com/a.jpg" }"#),
            item: "t", problem: nil, problemText: "is not https://, file://"),
        BrokenCatalog(
            name: "missing cover file",
            json: catalog(#"{ "id": "t", "title": "T", "browsable": true, "artwork": "covers/none.jpg" }"#),
            item: "t", problem: nil, problemText: "does not exist"),
        BrokenCatalog(
            name: "unparseable JSON", json: #"{ "format": "dashport.catalog", "items": [ "#,
            item: nil, problem: nil, problemText: "is not valid JSON"),
        BrokenCatalog(
            name: "wrong type in an item",
            json: catalog(
                #"{ "id": "t", "title": "T", "browsable": true }"#,
                #"{ "id": "g", "title": "G", "browsable": true, "childStyle": "griddy" }"#),
            item: "g", problem: nil, problemText: "has 'childStyle' as a string (\"griddy\"), but it wants one of \"list\", \"grid\""),
        BrokenCatalog(
            name: "foreign JSON", json: #"{ "root": [], "items": [] }"#,
            item: nil, problem: nil, problemText: "not a dashport.catalog of version 1"),
    ]

    @Test(arguments: broken)
    func aBrokenCatalogIsRefusedNamingFileItemAndProblem(_ broken: BrokenCatalog) throws {
        try Self.expectRefused(broken)
    }

    /// Writes `broken` to a fresh folder and expects the provider to refuse it as described.
    static func expectRefused(_ broken: BrokenCatalog) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Data(broken.json.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try CatalogProvider(contentsOf: path)
            Issue.record("\(broken.name): accepted")
        } catch {
            #expect(error.file == path)
            #expect(error.item == broken.item)
            if let problem = broken.problem { #expect(error.problem == problem) }
            #expect(error.description.contains(path))
            if let item = broken.item { #expect(error.description.contains("'\(item)'")) }
            #expect(error.description.contains(broken.problemText), "\(error.description)")
        }
    }
}
