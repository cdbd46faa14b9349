import DashportClock
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportTestSupport
import DashportTransport
import Synchronization
import Testing

/// `dashport-hu connect` pointed at an HTTP server (issue 21, item 8): the server waits silently
/// for the rest of a request that never comes, and the emulator says it is no phone when the
/// first-answer deadline passes, not "handshake deadline passed" 10 s later. Time is the manual
/// clock's: the deadline is the link's, not the machine's speed.
@Suite struct NotAnAAPPhoneOverTCPTests {
    @Test func connectToAnHTTPServerSaysItIsNotAnAAPPhoneAtTheFirstAnswerDeadline() async throws {
        let http = try LoopbackHTTPServer(routes: [("/", .status(200))])
        defer { http.stop() }
        let clock = ManualClock()
        let address = try ListenAddress.parse("127.0.0.1:\(http.port)")
        // The default car (a 3 s first answer), not the tests' patient one.
        let client = try await HeadUnitClient.connect(
            to: address, configuration: HeadUnitConfiguration(), identity: try TestTLS.carIdentity.get(), clock: clock)
        let lines = Mutex<[String]>([])
        let verdict = Mutex<ConnectProbe.Outcome?>(nil)
        Task {
            let outcome = await ConnectProbe.run(
                client: client, timeout: .seconds(10), transcript: Transcript(clock: clock) { line in lines.withLock { $0.append(line) } })
            verdict.withLock { $0 = outcome }
        }
        // The probe waits for pings until 10 s: it is watching.
        await clock.waitForSleeper(dueAt: .seconds(10))
        await clock.advance(by: .seconds(3))
        try await eventually("the probe's verdict") { verdict.withLock { $0 } != nil }
        #expect(
            verdict.withLock { $0 }
                == .failure(
                    "link closed: this is not an AAP phone (nothing came back within 3.0 seconds of the VERSION_REQUEST; an AAP phone answers at once)"
                ), "\(lines.withLock { $0 })")
        #expect(clock.now.sinceOrigin == .seconds(3))
    }
}
