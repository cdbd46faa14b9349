// Tests/DashportBrowseTests/CatalogStrictnessTests.swift - unknown keys and values of the wrong kind
// are refused at their line and column, in words that name the key and what it wants (issue 21).

import DashportTestSupport
import Foundation
import Testing
@testable import DashportBrowse

@Suite struct CatalogStrictnessTests {
    /// Loads `json` from a fresh folder; returns the refusal (nil when it loads).
    static func refusal(_ json: String) throws -> CatalogError? {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try CatalogCheck.check(path: path)
            return nil
        } catch {
            #expect(error.description.hasPrefix(path + ":"))
            return error
        }
    }

    static func catalog(_ items: String...) -> String {
        "{ \"format\": \"dashport.catalog\", \"version\": 1, \"root\": [\"t\"],\n  \"items\": [\n"
            + items.map { "    " + $0 }.joined(separator: ",\n") + "\n  ] }"
    }

    static let tab = #"{ "id": "t", "title": "T", "browsable": true, "children": ["x"] }"#

    @Test func aMisspelledKeyIsRefusedAtItsLineAndColumnWithTheKeyItMeant() throws {
        let error = try #require(try Self.refusal(Self.catalog(Self.tab, #"{ "id": "x", "titel": "X", "playable": true }"#)))
        #expect(error.problem == .unknownKey("titel", suggestion: "title"))
        #expect(error.item == "x")
        #expect(error.line == 4 && error.column == 18)
        #expect(error.description.hasSuffix(":4:18: item 'x' has an unknown key 'titel' (did you mean 'title'?)"))
    }

    @Test func unknownKeysAreRefusedEverywhere() throws {
        let top = try #require(try Self.refusal(#"{ "format": "dashport.catalog", "version": 1, "roots": [], "items": [] }"#))
        #expect(top.problem == .unknownKey("roots", suggestion: "root") && top.item == nil && top.column == 47)
        let child = try #require(
            try Self.refusal(Self.catalog(#"{ "id": "t", "title": "T", "browsable": true, "children": [{ "id": "t2", "gruop": "A" }] }"#)))
        #expect(child.problem == .unknownKey("gruop", suggestion: "group") && child.item == "t")
        let error = try #require(
            try Self.refusal(
                Self.catalog(#"{ "id": "t", "title": "T", "browsable": true, "error": { "code": "notSupported", "mesage": "M" } }"#)))
        #expect(error.problem == .unknownKey("mesage", suggestion: "message"))
        let far = try #require(try Self.refusal(Self.catalog(#"{ "id": "t", "title": "T", "browsable": true, "colour": "red" }"#)))
        #expect(far.problem == .unknownKey("colour", suggestion: nil))
        #expect(far.description.hasSuffix("has an unknown key 'colour'"))
    }

    @Test func aWrongTypeSaysWhichKeyWantsWhat() throws {
        let cases: [(item: String, key: String, found: String, wants: String)] = [
            (#""durationMs": "214000""#, "durationMs", #"a string ("214000")"#, "a whole number of milliseconds"),
            (#""durationMs": 2.5"#, "durationMs", "a number (2.5)", "a whole number of milliseconds"),
            (#""trackNumber": 99999999999999999999"#, "trackNumber", "a number (99999999999999999999)", "a whole number"),
            (#""browsable": "yes""#, "browsable", #"a string ("yes")"#, "true or false"),
            (#""completion": "half""#, "completion", #"a string ("half")"#, "a number from 0 to 1"),
            (#""mediaType": "song""#, "mediaType", #"a string ("song")"#, "one of \"folder\", \"music\""),
            (#""extras": ["a"]"#, "extras", "a list", "an object of strings"),
            (#""extras": { "toneHz": 440 }"#, "extras.toneHz", "a number", "a string"),
        ]
        for entry in cases {
            let json = Self.catalog(Self.tab, #"{ "id": "x", "title": "X", "playable": true, \#(entry.item) }"#)
            let error = try #require(try Self.refusal(json), "\(entry.item)")
            guard case .wrongType(let key, let wants, let found) = error.problem else {
                Issue.record("\(entry.item): \(error)")
                continue
            }
            #expect(key == entry.key && found == entry.found && wants.hasPrefix(entry.wants), "\(error)")
            #expect(error.item == "x" && error.line == 4, "\(error)")
            #expect(!error.description.contains("Expected to decode"))
        }
    }

    @Test func validationErrorsTooNameTheirPlace() throws {
        // A missing child at the reference's place; a duplicate id at its item.
        let missing = try #require(
            try Self.refusal(Self.catalog(#"{ "id": "t", "title": "T", "browsable": true, "children": ["a", "ghost"] }"#)))
        #expect(missing.problem == .missingChild("a") && missing.line == 3 && missing.column == 64)
        let twice = try #require(
            try Self.refusal(
                Self.catalog(Self.tab, #"{ "id": "x", "title": "X", "playable": true }"#, #"{ "id": "x", "title": "Y", "playable": true }"#)
            ))
        #expect(twice.problem == .duplicateId && twice.line == 5 && twice.column == 5)
        let syntax = try #require(try Self.refusal("{ \"format\": \"dashport.catalog\",\n  \"version\": 1 \"root\": [] }"))
        #expect(syntax.line == 2 && syntax.column == 16)
        #expect(syntax.description.contains(":2:16: the catalog is not valid JSON: expected ','"))
        let repeated = try #require(try Self.refusal(#"{ "format": "dashport.catalog", "format": "x" }"#))
        #expect(repeated.problem == .invalidJSON("the key 'format' appears twice in this object") && repeated.column == 33)
    }

    @Test func notesAndASchemaReferenceAreAllowed() throws {
        let json =
            #"{ "$schema": "../catalog.schema.json", "note": "hi", "format": "dashport.catalog", "version": 1, "root": ["t"], "#
            + #""items": [{ "note": "a tab", "id": "t", "title": "T", "browsable": true, "durationMs": null }] }"#
        #expect(try Self.refusal(json) == nil)
    }

    @Test func theTreeReadsEscapesAndRefusesWhatIsNotText() throws {
        let node = try JSONTree.parse(Array(#"["\u00e9\ud83c\udfb5\n\"\/", -1.5e3, true, null, {}]"#.utf8))
        #expect(
            node.value
                == .array([
                    JSONNode(offset: 1, value: .string("é🎵\n\"/")), JSONNode(offset: 29, value: .number("-1.5e3")),
                    JSONNode(offset: 37, value: .bool(true)), JSONNode(offset: 43, value: .null), JSONNode(offset: 49, value: .object([])),
                ]))
        #expect(throws: JSONTree.Failure.self) { try JSONTree.parse(Array(#"["\ud800"]"#.utf8)) }
        #expect(throws: JSONTree.Failure.self) { try JSONTree.parse([0x22, 0xFF, 0x22]) }
        let deep =
            String(repeating: "[", count: JSONSyntaxLocator.maxDepth + 1) + String(repeating: "]", count: JSONSyntaxLocator.maxDepth + 1)
        #expect(throws: JSONTree.Failure.self) { try JSONTree.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: JSONSyntaxLocator.maxDepth) + String(repeating: "]", count: JSONSyntaxLocator.maxDepth)
        #expect(throws: Never.self) { try JSONTree.parse(Array(fine.utf8)) }
    }
}
