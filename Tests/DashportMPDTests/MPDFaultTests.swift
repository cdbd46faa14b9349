import DashportClock
import DashportLog
import DashportMPD
import DashportTestSupport
import DashportTransport
import Testing

/// The client against servers that are not a good MPD: too old, not MPD at all, saying nonsense,
/// or never answering. Each ends in a clear error and a closed connection, never a hang.
@Suite struct MPDFaultTests {
    /// A Unix socket server that greets with `greeting` and then answers every line with `answer`
    /// (nil: never answers).
    final class FakeServer: Sendable {
        let listener: UnixListener
        let directory: TemporaryDirectory

        init(greeting: String, answer: String?) throws {
            directory = try TemporaryDirectory()
            listener = try UnixListener.bind(path: directory.file("fake.sock"), logger: .silent)
            listener.start { connection in
                connection.start { event in
                    if case .received = event, let answer { connection.write(Array(answer.utf8)) }
                }
                connection.write(Array(greeting.utf8))
            }
        }

        var address: MPDAddress { .unix(directory.file("fake.sock")) }
        deinit { listener.shutdown() }
    }

    func client(_ server: FakeServer, timeout: Duration = .seconds(15)) -> MPDClient {
        var configuration = MPDClient.Configuration(address: server.address)
        configuration.commandTimeout = timeout
        return MPDClient(configuration: configuration, clock: SystemClock(), logger: .silent)
    }

    func failure(_ client: MPDClient, _ command: MPDCommand = MPDCommand("status")) async -> MPDError? {
        do throws(MPDError) {
            _ = try await client.run(command)
            return nil
        } catch {
            return error
        }
    }

    @Test func anOldMPDIsRefusedWithItsVersion() async throws {
        let server = try FakeServer(greeting: "OK MPD 0.19.0\n", answer: "OK\n")
        let error = await failure(client(server))
        #expect(error == .tooOld(MPDVersion(0, 19, 0), needs: MPDClient.minimumVersion))
        #expect(error?.description.contains("0.19.0") == true)
    }

    @Test func somethingThatIsNotMPDIsNamed() async throws {
        let server = try FakeServer(greeting: "SSH-2.0-OpenSSH_9.2\n", answer: nil)
        guard case .protocolViolation(.badGreeting) = await failure(client(server)) else {
            Issue.record("not a bad greeting")
            return
        }
    }

    @Test func nonsenseAfterTheGreetingClosesTheConnection() async throws {
        let server = try FakeServer(greeting: "OK MPD 0.23.5\n", answer: "this is not MPD\n")
        let error = await failure(client(server))
        #expect(error == .protocolViolation(.malformedLine("this is not MPD")))
    }

    @Test func aServerThatNeverGreetsIsGivenUpOn() async throws {
        let server = try FakeServer(greeting: "", answer: nil)
        var configuration = MPDClient.Configuration(address: server.address)
        configuration.connectTimeout = .milliseconds(300)
        let client = MPDClient(configuration: configuration, clock: SystemClock(), logger: .silent)
        let error = await failure(client)
        guard case .unreachable = error else {
            Issue.record("not given up on: \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("no MPD greeting") == true)
    }

    @Test func anMPDThatNeverAnswersTimesOut() async throws {
        // The greeting comes, then silence (an MPD whose pipe output nobody drains): the watchdog
        // closes the connection and the command fails instead of hanging.
        let server = try FakeServer(greeting: "OK MPD 0.21.0\n", answer: nil)
        let client = client(server, timeout: .milliseconds(400))
        await client.start()
        guard case .timedOut = await failure(client) else {
            Issue.record("no time-out")
            return
        }
        await client.stop()
        #expect(await failure(client) == .stopped)
    }
}
