import Foundation
import Testing
import DashportBrowse
import DashportEmulator
import DashportMessages
import DashportRecording
import DashportTLS
import DashportTestSupport
import DashportTransport
@testable import DashportServer

/// Every recording in Fixtures/sessions/ replayed against a fresh in-process server (cold cache,
/// no saved session, the demo library), once over an in-memory byte stream pair and once over
/// real TCP on loopback. Re-record with tools/record-sessions after an intended change.
@Suite("Recorded sessions replay")
struct SessionReplayTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/sessions").path

    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasSuffix(".jsonl") }.map { String($0.dropLast(6)) }.sorted()

    enum Link: String, CaseIterable, CustomTestStringConvertible {
        case memory, tcp
        var testDescription: String { rawValue }
    }

    static func replay(_ name: String, over link: Link, provider: (any BrowseProvider)? = nil) async throws -> ReplayReport {
        try await replay(try SessionRecording.read(from: "\(directory)/\(name).jsonl"), over: link, provider: provider)
    }

    static func replay(
        _ recording: SessionRecording, over link: Link, provider: (any BrowseProvider)? = nil, recordDirectory: String? = nil
    ) async throws -> ReplayReport {
        // Setup waits for events, not the clock (TestServer's handshake is patient): a loaded
        // machine must not fail a replay.
        let test = try await TestServer.start(provider: provider, configure: { $0.recordDirectory = recordDirectory })
        let server = test.server
        let replayer = SessionReplayer(recording: recording, timeout: .seconds(60), identity: try TestTLS.carIdentity.get()) { car in
            switch link {
            case .memory:
                let (carEnd, phoneEnd) = MemoryByteStream.pair(name: "car \(car)")
                server.serve(phoneEnd)
                return carEnd
            case .tcp:
                return try await TCPClient.connect(to: server.address)
            }
        }
        let report = await replayer.run()
        await test.stop()
        return report
    }

    @Test("the recordings are there")
    func recordingsExist() {
        #expect(Self.names.count >= 10, "found \(Self.names) in \(Self.directory)")
    }

    // Serialized: thirty replays at once would load the 2-core machine for the rest of the suite.
    @Test("a recording replays with every server message matching", .serialized, arguments: names, Link.allCases)
    func replays(name: String, link: Link) async throws {
        let report = try await Self.replay(name, over: link)
        #expect(report.passed, "\(name) over \(link):\n\(report)")
        #expect(report.compared > 10)
    }

    /// A server whose parental-control screen says something else: exactly the two error-screen
    /// recordings (a full car and a legacy car both draw that screen) fail, naming the line, the
    /// message and the field; every other recording still passes.
    @Test("a deliberate change to one server answer fails exactly the affected replays")
    func deliberateChange() async throws {
        let provider = ChangedAnswerProvider(base: try CatalogProvider(contentsOf: try DemoLibrary.catalogPath()))
        var failing: [String] = []
        for name in Self.names {
            let report = try await Self.replay(name, over: .memory, provider: provider)
            guard !report.passed else { continue }
            failing.append(name)
            #expect(report.failures.count == 1, "\(name):\n\(report)")
            let failure = try #require(report.failures.first)
            #expect(failure.step.contains("browseResult"))
            #expect(failure.step.hasPrefix("line "))
            #expect(
                failure.differences.contains { $0.path == "errorScreen.message" && $0.actual == "\"Changed on purpose.\"" },
                "\(report)")
        }
        #expect(failing == ["error-screens-full", "error-screens-legacy"])
    }
}

extension SessionReplayTests {
    /// `dashport serve --record-dir`: the server records the replayed car's session, and that
    /// server-side recording replays in turn against a fresh server.
    /// The first replay runs the demo player on the real clock, so the server-side recording may
    /// hold a re-anchor of the playback state that a fast replay of it never sees: such a state is
    /// a repeat (``VolatileFields/standard``), so this runs in the whole suite, beside stress too.
    @Test("a server-side recording (--record-dir) holds the session and replays")
    func serverSideRecording() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-record-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = try SessionRecording.read(from: "\(Self.directory)/search-and-voice.jsonl")
        let first = try await Self.replay(original, over: .tcp, recordDirectory: directory)
        #expect(first.passed, "\(first)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".jsonl") }
        try #require(files.count == 1, "\(files)")
        let recorded = try SessionRecording.read(from: "\(directory)/\(files[0])")
        let mode = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(files[0])")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(recorded.entries.contains { $0.name == "playFromSearch" && $0.direction == .car })
        #expect(!recorded.entries.contains { $0.channel == 0 && $0.messageId == 3 }, "no TLS handshake bytes")
        let second = try await Self.replay(recorded, over: .memory)
        #expect(second.passed, "\(second)")
        #expect(second.compared == first.compared)
    }
}

extension SessionReplayTests {
    /// A server message that never comes fails the replay after the timeout, although pings and
    /// other messages keep arriving meanwhile (they must not restart the wait), naming the line.
    /// 25 s: every other message of the replay must still arrive within it on a loaded machine.
    @Test("a recorded server message that never arrives fails, naming it")
    func missingMessageTimesOut() async throws {
        var recording = try SessionRecording.read(from: "\(Self.directory)/first-connect-cold-cache.jsonl")
        let bye = try #require(recording.entries.lastIndex { $0.name == "byebyeRequest" })
        var ghost = recording.entries[bye - 1]
        ghost.direction = .server
        ghost.channel = 16
        ghost.service = .dashportMedia
        ghost.messageId = 32775
        ghost.name = "childrenChanged"
        ghost.body = .object([JSONMember("parentId", .string("never-pushed"))])
        recording.entries.insert(ghost, at: bye)
        recording = try SessionRecording(parsing: recording.serialized())
        let report = try await TestServer.with { test in
            let server = test.server
            return await SessionReplayer(recording: recording, timeout: .seconds(25), identity: try TestTLS.carIdentity.get()) { car in
                let (carEnd, phoneEnd) = MemoryByteStream.pair(name: "car \(car)")
                server.serve(phoneEnd)
                return carEnd
            }.run()
        }
        #expect(!report.passed)
        #expect(
            report.failures.contains { $0.step.contains("childrenChanged") && $0.problem.contains("not received within") },
            "\(report)")
    }
}

extension SessionReplayTests {
    /// A playback state that only moves the position anchor (re-anchored on the frames the audio
    /// pump pulled, so whether the server sends it depends on when the pump ran) is a repeat: a
    /// recording that has one the replayed server never sends still passes (it failed one run in
    /// three beside `stress --cpu 4`), while every other playback state is still awaited.
    @Test("a recorded re-anchor of the playback state is not awaited")
    func reAnchoredStateIsARepeat() async throws {
        var recording = try SessionRecording.read(from: "\(Self.directory)/search-and-voice.jsonl")
        let bye = try #require(recording.entries.lastIndex { $0.name == "byebyeRequest" })
        var ghost = try #require(recording.entries[..<bye].last { $0.name == "playbackState" })
        guard case .object(var members) = ghost.body else { throw ReplayTestError.notAnObject }
        let position = try #require(members.firstIndex { $0.key == "position" })
        members[position].value = .object([
            JSONMember("valueMs", .number("123456")), JSONMember("atMs", .number("654321")), JSONMember("rate", .number("1.0")),
        ])
        ghost.body = .object(members)
        recording.entries.insert(ghost, at: bye)
        recording = try SessionRecording(parsing: recording.serialized())
        let report = try await Self.replay(recording, over: .memory)
        #expect(report.passed, "\(report)")
        #expect(report.compared > 10)
    }

    enum ReplayTestError: Error { case notAnObject }
}

/// The demo library with one answer changed on purpose.
struct ChangedAnswerProvider: BrowseProvider {
    let base: CatalogProvider

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        if parentId == "locked-after-dark" {
            throw BrowseError(
                code: .parentalControlRestricted, message: "Changed on purpose.",
                resolution: .init(label: "Change parental controls", url: "https://example.com/account/parental-controls"))
        }
        return try await base.children(of: parentId, page: page, pageSize: pageSize)
    }

    func item(id: String) async throws -> BrowseItem? { try await base.item(id: id) }
    var supportsSearch: Bool { base.supportsSearch }
    func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await base.search(query: query, page: page, pageSize: pageSize)
    }
}
