public import DashportClock
public import DashportHeadUnit
import DashportLink
public import DashportLog
public import DashportTLS
public import DashportTransport

/// `dashport-hu connect`: complete the link, print what was negotiated and every event, wait for a
/// ping or two from the phone (and the Dashport media channel's hello when that channel opened),
/// say bye-bye. Reusable by tests with any ``Transcript``.
public enum ConnectProbe {
    /// How the probe ended.
    public enum Outcome: Sendable, Hashable {
        /// The link came up, the phone pinged, and answered our bye-bye.
        case success(pings: Int)
        /// Anything else; the text says what, for people.
        case failure(String)
    }

    /// How many pings the probe waits for before saying bye-bye.
    public static let wantedPings = 2

    /// Connects to `address` and runs the probe. `timeout` (on `clock`) bounds the TCP connect and
    /// the wait for pings; after it the probe says bye-bye with what it has (one ping is enough).
    public static func run(
        address: ListenAddress,
        configuration: HeadUnitConfiguration,
        identity: TLSIdentity? = nil,
        timeout: Duration,
        transcript: Transcript,
        logger: Logger = .silent,
        clock: any DashportClock = SystemClock()
    ) async -> Outcome {
        await transcript.print("connecting to \(address), asking for AAP \(configuration.version)")
        let client: HeadUnitClient
        do {
            client = try await HeadUnitClient.connect(
                to: address, configuration: configuration, identity: identity, timeout: timeout, logger: logger, clock: clock)
        } catch {
            return .failure("\(error)")
        }
        return await run(client: client, timeout: timeout, transcript: transcript)
    }

    /// Runs the probe on a client already started over some transport (a USB accessory); its waits
    /// run on the client's clock.
    public static func run(client: HeadUnitClient, timeout: Duration, transcript: Transcript) async -> Outcome {
        await transcript.print("connected")
        let session: MediaChannelSession
        do {
            session = try MediaChannelSession.start(client: client, timeout: timeout)
        } catch {
            await client.close()
            return .failure("\(error)")
        }
        return await watch(client: client, session: session, timeout: timeout, transcript: transcript)
    }

    private static func watch(client: HeadUnitClient, session: MediaChannelSession, timeout: Duration, transcript: Transcript) async
        -> Outcome
    {
        // Out of time: say bye-bye with what we have; if even that hangs, close.
        let clock = client.clock
        let timer = Task {
            try await clock.sleep(for: timeout)
            await client.byeBye()
            try await clock.sleep(for: client.configuration.byeByeGrace + .seconds(2))
            await client.close()
        }
        defer { timer.cancel() }
        var pings = 0
        var running = false
        // Once the Dashport media channel is open, its hello is part of what the probe prints: on
        // a loaded machine two pings can come before it, so the bye-bye waits for both.
        var helloOwed = false
        var saidByeBye = false
        var closedBy: HeadUnitDisconnect?
        for await notice in session.notices {
            // The close is summed up below, with what it means for the probe.
            if case .closed = notice {
            } else if let lines = ScreenRenderer.notice(notice, stock: true) {
                await transcript.print(lines)
            }
            switch notice {
            case .link(.discoveryRequested):
                running = true
            case .link(.channelOpened(let service)):
                if case .vendorExtension(LinkConfiguration.dashportMediaServiceName, _) = service.kind { helloOwed = true }
            case .update(.serverHello):
                helloOwed = false
            case .link(.pingReceived):
                // A ping that crosses our bye-bye (the phone's next one, on a slow machine) is
                // printed but not counted: the outcome is the pings that came before it.
                guard pings < wantedPings else { break }
                pings += 1
            case .closed(let reason):
                closedBy = reason
            default:
                break
            }
            if !saidByeBye, pings == wantedPings, !helloOwed {
                saidByeBye = true
                await transcript.print("saying bye-bye")
                await client.byeBye()
            }
        }
        switch closedBy {
        case .link(.byeBye(answered: true)) where pings > 0:
            await transcript.print("bye-bye answered; done")
            return .success(pings: pings)
        case .link(.byeBye(answered: true)):
            return .failure(
                running ? "no ping from the phone within \(timeout.secondsText)" : "the link did not come up within \(timeout.secondsText)")
        case .link(.byeBye(answered: false)):
            return .failure(running ? "the phone did not answer BYEBYE_REQUEST" : "the link did not come up within \(timeout.secondsText)")
        case .some(let reason):
            return .failure("link closed: \(reason)")
        case nil:
            return .failure("the session ended without a close")
        }
    }
}
