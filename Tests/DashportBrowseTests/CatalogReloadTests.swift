import DashportTestSupport
// Tests/DashportBrowseTests/CatalogReloadTests.swift - reloading a catalog: what counts as changed,
// a bad edit keeps the old catalog, a late first load, and errors a person can act on.

import Foundation
import Testing
@testable import DashportBrowse

@Suite struct CatalogReloadTests {
    static func library(tabA: String = #"["a1", "a2"]"#, a1Title: String = "One", extra: String = "") -> String {
        let items =
            [
                #"{ "id": "tab-a", "title": "A", "browsable": true, "children": \#(tabA) }"#,
                #"{ "id": "tab-b", "title": "B", "browsable": true, "children": ["album"] }"#,
                #"{ "id": "album", "title": "Album", "browsable": true, "playable": true, "children": ["a1"] }"#,
                #"{ "id": "a1", "title": "\#(a1Title)", "playable": true, "durationMs": 1000 }"#,
                #"{ "id": "a2", "title": "Two", "playable": true }"#,
                #"{ "id": "a3", "title": "Three", "playable": true }"#,
            ].joined(separator: ",") + extra
        return #"{ "format": "dashport.catalog", "version": 1, "root": ["tab-a", "tab-b"], "items": [\#(items)] }"#
    }

    static func write(_ json: String, to path: String) throws {
        try Data(json.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    @Test func exactlyTheParentsWhoseChildrenChangedAreReported() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Self.write(Self.library(), to: path)
        let provider = CatalogProvider(path: path)
        let first = try provider.load()
        #expect(first.firstLoad)
        #expect(first.itemCount == 6)

        // Unchanged file: nothing to tell.
        #expect(try provider.load().changedParents == [])
        // An entry added to one tab: that tab only.
        try Self.write(Self.library(tabA: #"["a1", "a2", "a3"]"#), to: path)
        #expect(try provider.load().changedParents == ["tab-a"])
        // A field of an item listed in two lists: both lists (the album and the tab), nothing else.
        try Self.write(Self.library(tabA: #"["a1", "a2", "a3"]"#, a1Title: "One (remastered)"), to: path)
        #expect(try provider.load().changedParents == ["album", "tab-a"])
        // An order change is a change.
        try Self.write(Self.library(tabA: #"["a3", "a2", "a1"]"#, a1Title: "One (remastered)"), to: path)
        #expect(try provider.load().changedParents == ["tab-a"])
        // A new item with an error screen, listed in nothing: its own "children" (the screen) changed.
        try Self.write(
            Self.library(
                tabA: #"["a3", "a2", "a1"]"#, a1Title: "One (remastered)",
                extra: #", { "id": "locked", "title": "L", "browsable": true, "error": { "code": "notSupported", "message": "No." } }"#),
            to: path)
        #expect(try provider.load().changedParents == ["locked"])
    }

    @Test func aBadEditIsRefusedAndThePreviousCatalogKeepsServing() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Self.write(Self.library(), to: path)
        let provider = try CatalogProvider(contentsOf: path)
        try Self.write(Self.library(tabA: #"["a1", "nope"]"#), to: path)
        let error = #expect(throws: CatalogError.self) { try provider.load() }
        // At the reference's line and column: path:LINE:COLUMN: item ...
        #expect(error?.description.hasPrefix("\(path):1:") == true)
        #expect(error?.description.hasSuffix(": item 'tab-a' refers to child 'nope', which does not exist") == true)
        #expect(try await provider.children(of: "tab-a", page: 0, pageSize: 10).map(\.id) == ["a1", "a2"])
        // The next good edit is taken, and compared against what was served (not the refused one).
        try Self.write(Self.library(tabA: #"["a2"]"#), to: path)
        #expect(try provider.load().changedParents == ["tab-a"])
        #expect(try await provider.children(of: "tab-a", page: 0, pageSize: 10).map(\.id) == ["a2"])
    }

    @Test func requestsBeforeTheFirstLoadWaitForIt() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Self.write(Self.library(), to: path)
        let provider = CatalogProvider(path: path)
        #expect(!provider.isLoaded)
        let waiting = Task { try await provider.children(of: "tab-a", page: 0, pageSize: 10).map(\.id) }
        try await eventually("the request to wait for the first load") { provider.waitingRequests == 1 }
        try provider.load()
        #expect(try await waiting.value == ["a1", "a2"])
    }

    @Test func requestsWaitingForAFirstLoadThatFailsAreToldTheCatalogIsNotLoaded() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let provider = CatalogProvider(path: folder.path + "/missing.json")
        let waiting = Task { try await provider.item(id: "a1") }
        try await eventually("the request to wait for the first load") { provider.waitingRequests == 1 }
        #expect(throws: CatalogError.self) { try provider.load() }
        await #expect(throws: CatalogProvider.NotLoaded.self) { try await waiting.value }
        await #expect(throws: CatalogProvider.NotLoaded.self) { try await provider.children(of: BrowseItem.rootId, page: 0, pageSize: 1) }
    }

    @Test func aTruncatedCatalogSaysLineAndColumn() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        let whole = Self.library().replacingOccurrences(of: "},{", with: "},\n  {")
        // Cut inside the fourth line.
        let lines = whole.split(separator: "\n", omittingEmptySubsequences: false)
        let cut = lines[0..<3].joined(separator: "\n") + "\n" + lines[3].prefix(10)
        try Data(cut.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: path) }
        #expect(
            error?.description
                == "\(path):4:11: the catalog is not valid JSON: the file ends in the middle of the JSON (truncated?)"
        )
    }

    @Test(arguments: [
        (#"{ "a": [1, 2 x] }"#, "line 1, column 14: expected ',' or ']', found 'x'"),
        ("{\n  \"a\": tru }", "line 2, column 11: expected 'true'"),
        ("{\n  \"a\": 1,\n}", "line 3, column 1: a trailing ',' before '}'"),
        ("[\"ab\ncd\"]", "line 1, column 5: a control character inside a string (the string opened at line 1, column 2)"),
        ("{\"é\": \"ü\" \"x\"}", "line 1, column 11: expected ',' or '}', found '\"'"),
        ("{} {}", "line 1, column 4: unexpected '{' after the end of the document"),
        ("[\"abc", "line 1, column 6: the file ends inside a string (opened at line 1, column 2)"),
        ("", "line 1, column 1: the file ends in the middle of the JSON (truncated?)"),
    ])
    func syntaxErrorsAreLocated(_ json: String, _ expected: String) {
        #expect(JSONSyntaxLocator.firstError(in: Array(json.utf8))?.description == expected)
    }

    @Test func wellFormedJSONHasNoSyntaxError() throws {
        #expect(JSONSyntaxLocator.firstError(in: Array(Self.library().utf8)) == nil)
        #expect(JSONSyntaxLocator.firstError(in: Array(#"[-1.5e+3, "\u00e9\n", true, false, null, {}, []]"#.utf8)) == nil)
        let demo = try Data(contentsOf: URL(fileURLWithPath: Fixtures.demoCatalog))
        #expect(JSONSyntaxLocator.firstError(in: Array(demo)) == nil)
    }

    @Test func aDirectoryIsRefusedAsADirectoryNotAFoundationErrorNumber() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let error = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: folder.path) }
        #expect(error?.description == "\(folder.path): the catalog cannot be read: it is a directory, not a catalog file")
        try Self.write(Self.library(), to: folder.path + "/catalog.json")
        let hinted = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: folder.path) }
        #expect(hinted?.description.hasSuffix("it is a directory, not a catalog file (did you mean \(folder.path)/catalog.json?)") == true)
        let missing = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: folder.path + "/nope.json") }
        #expect(missing?.description == "\(folder.path)/nope.json: the catalog cannot be read: no such file")
    }
}
