// Tests/DashportServerTests/CatalogCheckCommandTests.swift - `dashport catalog check FILE...`
// validates without serving: exit 0 for sound files, 1 with FILE:LINE:COLUMN messages otherwise.

import Foundation
import Testing

@Suite struct CatalogCheckCommandTests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func dashport(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChildServer.built("dashport"))
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The command only reads files and exits; stderr is small enough not to fill its pipe first.
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: output, errors: errors)
    }

    @Test func soundFilesPassAndABadOneIsNamedAtItsLineAndColumn() throws {
        let demo = ChildServer.root.appendingPathComponent("Fixtures/demo/catalog.json").path
        let good = try Self.dashport(["catalog", "check", demo])
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.hasPrefix("\(demo): ok (\"Demo library\": 49 items"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("catalog.json").path
        try Data(
            """
            { "format": "dashport.catalog", "version": 1, "root": ["t"],
              "items": [{ "id": "t", "titel": "T", "browsable": true }] }
            """.utf8
        ).write(to: URL(fileURLWithPath: bad))
        let refused = try Self.dashport(["catalog", "check", demo, bad])
        #expect(refused.status == 1)
        #expect(refused.output.hasPrefix("\(demo): ok"))
        #expect(refused.errors == "\(bad):2:26: item 't' has an unknown key 'titel' (did you mean 'title'?)\n")

        let usage = try Self.dashport(["catalog", "check"])
        #expect(usage.status == 2 && usage.errors.contains("needs at least one catalog FILE"))
        let help = try Self.dashport(["catalog", "--help"])
        #expect(help.status == 0 && help.output.contains("FILE:LINE:COLUMN"))
    }
}
