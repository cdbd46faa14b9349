import DashportEmulator
import DashportRecording
import DashportServer
import DashportTLS
import DashportTestSupport
import DashportTransport
import Testing

/// A replay against a server that has played since it started (issue 21, item 5): the session
/// state differs from the recording's, and the report says why and how to start a fresh server,
/// instead of only `state: recorded "stopped", replayed "playing"`.
@Suite struct ReplayOnAUsedServerTests {
    @Test func aSecondReplayOnTheSameServerSaysItExpectsAFreshOne() async throws {
        let recording = try SessionRecording.read(from: "\(SessionReplayTests.directory)/playback-commands.jsonl")
        let test = try await TestServer.start()
        let server = test.server
        // 30 s for any one message, a bound that holds on a loaded machine; the second replay stops
        // at the first difference in session state, so it never waits one out.
        func replay() async throws -> ReplayReport {
            let replayer = SessionReplayer(recording: recording, timeout: .seconds(30), identity: try TestTLS.carIdentity.get()) { car in
                let (carEnd, phoneEnd) = MemoryByteStream.pair(name: "car \(car)")
                server.serve(phoneEnd)
                return carEnd
            }
            return await replayer.run()
        }
        let fresh = try await replay()
        #expect(fresh.passed, "\(fresh)")
        #expect(fresh.hints.isEmpty)

        let used = try await replay()
        await test.stop()
        #expect(!used.passed)
        #expect(used.hints == [SessionReplayer.freshServerHint], "\(used)")
        #expect(used.failures.count == 1, "\(used)")
        #expect(used.description.contains("hint: the server's session state differs from the recording's"))
        #expect(SessionReplayer.freshServerHint.contains("dashport-hu replay --serve FILE"))
    }
}
