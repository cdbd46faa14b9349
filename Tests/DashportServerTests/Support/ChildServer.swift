import DashportTestSupport
import Foundation
import Testing

/// The built `dashport` run as a child process, as a user runs it, until its one line on
/// standard output ("dashport: listening on ADDRESS") says it serves. Every wait happens on a
/// thread of its own (``onAThread(_:)``), never on the test pool.
final class ChildServer: Sendable {
    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `.build/debug/<name>`, checked to exist (the tests need `swift build` first).
    static func built(_ name: String = "dashport", sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = root.appendingPathComponent(".build/debug/\(name)").path
        try #require(
            FileManager.default.isExecutableFile(atPath: path), "build \(name) first (swift build)", sourceLocation: sourceLocation)
        return path
    }

    let process: Process
    /// What the server printed on standard output: its address line.
    let firstLine: String
    /// Its standard error (its log), when asked for.
    let errors: Pipe?

    /// The address the server printed.
    var address: String { firstLine.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "" }

    private init(process: Process, firstLine: String, errors: Pipe?) {
        self.process = process
        self.firstLine = firstLine
        self.errors = errors
    }

    /// Starts `executable` with `arguments` and waits for its first line, which must say it listens.
    static func start(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, keepingLog: Bool = false,
        unsetting variables: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ChildServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !variables.isEmpty {
            var environment = ProcessInfo.processInfo.environment
            variables.forEach { environment[$0] = nil }
            process.environment = environment
        }
        let output = Pipe()
        let errors = keepingLog ? Pipe() : nil
        process.standardOutput = output
        process.standardError = errors ?? FileHandle.nullDevice
        try process.run()
        let line = await onAThread { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        let child = ChildServer(process: process, firstLine: line, errors: errors)
        guard line.contains("listening") else {
            await child.stop()
            Issue.record("the server printed no address: '\(line)'", sourceLocation: sourceLocation)
            throw ChildServerFailed()
        }
        return child
    }

    /// SIGTERM, then waits for it to exit; returns its log when it was kept.
    @discardableResult
    func stop() async -> String {
        if process.isRunning { process.terminate() }
        let process = self.process
        let log = await onAThread { [errors] in
            errors.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        }
        await onAThread { process.waitUntilExit() }
        return log
    }
}

struct ChildServerFailed: Error {}
