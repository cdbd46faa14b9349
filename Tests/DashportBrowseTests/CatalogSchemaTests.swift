// Tests/DashportBrowseTests/CatalogSchemaTests.swift - Fixtures/catalog.schema.json describes the
// format the reader accepts, and the demo catalog validates against it.

import Foundation
import Testing
@testable import DashportBrowse

@Suite struct CatalogSchemaTests {
    static let schemaPath = Fixtures.packageRoot + "/Fixtures/catalog.schema.json"

    static func schema() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: schemaPath))) as? [String: Any])
    }

    /// Validates each of `documents` against the schema with python3-jsonschema (tools/setup
    /// installs it), checking the schema itself first; one line per document: `ok` or the first error.
    static func validate(_ documents: [String]) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for (index, document) in documents.enumerated() {
            let path = folder.appendingPathComponent("\(index).json").path
            try Data(document.utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let script = """
            import json, sys
            import jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for path in sys.argv[2:]:
                errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
                print("ok" if not errors else errors[0].message)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, schemaPath] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "python3 -c <jsonschema check> failed (tools/setup installs python3-jsonschema): \(output)")
        return output.split(separator: "\n").map(String.init)
    }

    @Test func theDemoCatalogValidatesAndTheSchemaIsStrict() throws {
        let demo = try String(contentsOfFile: Fixtures.demoCatalog, encoding: .utf8)
        let results = try Self.validate([
            demo,
            demo.replacingOccurrences(of: #""title": "Recent""#, with: #""titel": "Recent""#),
            demo.replacingOccurrences(of: #""durationMs": 214000"#, with: #""durationMs": "214000""#),
            demo.replacingOccurrences(of: #""childStyle": "grid""#, with: #""childStyle": "griddy""#),
        ])
        #expect(results.count == 4)
        #expect(results.first == "ok")
        #expect(results.dropFirst().allSatisfy { $0 != "ok" }, "\(results)")
        #expect(results.dropFirst().first?.contains("titel") == true)
    }

    /// The schema names exactly the keys and choices the reader accepts: neither can gain a key alone.
    @Test func theSchemaAndTheReaderAgreeOnEveryKeyAndChoice() throws {
        let schema = try Self.schema()
        func keys(_ object: Any?) -> Set<String> { Set(((object as? [String: Any])?["properties"] as? [String: Any])?.keys ?? [:].keys) }
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let item = try #require(definitions["item"] as? [String: Any])
        let properties = try #require(item["properties"] as? [String: Any])
        #expect(keys(schema) == Set(CatalogReader.documentKeys))
        #expect(keys(item) == Set(CatalogReader.itemKeys))
        #expect(keys(properties["error"]) == Set(CatalogReader.errorKeys))
        #expect(
            keys((properties["error"] as? [String: Any])?["properties"].flatMap { ($0 as? [String: Any])?["resolution"] })
                == Set(CatalogReader.resolutionKeys))
        func choices(_ key: String) -> [String] { ((properties[key] as? [String: Any])?["enum"] as? [String]) ?? [] }
        #expect(choices("childStyle") == BrowseItem.ChildStyle.allCases.map(\.rawValue))
        #expect(choices("mediaType") == BrowseItem.MediaType.allCases.map(\.rawValue))
        let code = ((properties["error"] as? [String: Any])?["properties"] as? [String: Any])?["code"] as? [String: Any]
        #expect((code?["enum"] as? [String]) == BrowseError.Code.allCases.map(\.rawValue))
    }
}
