import DashportCommandLine
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTLS
import DashportTransport
import DashportUSBHost

/// `dashport-hu connect HOST:PORT ...`
enum ConnectCommand {
    static let spec = CommandSpec(
        name: "dashport-hu connect", synopsis: "HOST:PORT [options]  |  --usb [VID:PID] [options]",
        summary: """
            Connects as a head unit, completes the AAP link (version, TLS, discovery, channel opens) and
            prints what was negotiated: the AAP version, TLS version and cipher, the server certificate's
            SHA-256 fingerprint and every channel opened with its service. Waits for a ping or two from the
            phone, says BYEBYE and exits 0; exits 1 with a message on any failure, 2 on a usage error.
            """,
        positionals: ["HOST:PORT"],
        options: [
            .flag(
                "usb",
                "connect over USB instead: switch the phone (positional VID:PID, default the first non-hub device) to Android Open Accessory and use its bulk endpoints"
            ),
            .value("version", "M.m", "AAP version to ask for (default 1.6, as aasdk)"),
            .flag("plain-control", "AUTH_COMPLETE and pings in plaintext, as aasdk (default)"),
            .flag("encrypted-control", "AUTH_COMPLETE and pings encrypted, as gartnera/headunit"),
            .flag("no-ping-answers", "never answer the phone's pings, as openauto"),
            .value(
                "timeout", "S", "seconds for the connect and for the pings, a sixth of it (at least 1) for the bye-bye answer (default 10)"),
            Arguments.identityOption,
            Arguments.firstAnswerOption,
            .value("log-level", "L", "trace, debug, info, notice, warning (default), error; to stderr"),
        ])

    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: Arguments
        let configuration: HeadUnitConfiguration
        let timeout: Duration
        var address: ListenAddress?
        var usbMatch: USBDeviceMatch?
        do throws(UsageError) {
            parsed = try Arguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Console.out(spec.help)
                return 0
            }
            if parsed.flag("usb") {
                usbMatch = try USBConnect.match(parsed.positionals)
            } else {
                address = try parsed.address()
            }
            timeout = try parsed.seconds("timeout", default: .seconds(10))
            if parsed.flag("plain-control") && parsed.flag("encrypted-control") {
                throw UsageError("--plain-control and --encrypted-control exclude each other")
            }
            var base = HeadUnitConfiguration()
            base.version = try parsed.version(default: base.version)
            base.controlEncryption = parsed.flag("encrypted-control") ? .encrypted : .plain
            base.answersPings = !parsed.flag("no-ping-answers")
            try parsed.applyPatience(to: &base, timeout: timeout)
            configuration = base.withDashportProfile(CarProfileOptions().profile)
        } catch {
            Console.err("dashport-hu connect: \(error)\n")
            Console.err(spec.help)
            return 2
        }
        let logger: Logger
        let identity: TLSIdentity?
        do {
            logger = try parsed.logger()
            identity = try parsed.identity()
        } catch {
            Console.err("dashport-hu connect: \(error)")
            return 2
        }
        let transcript = Transcript { Console.out($0) }
        let outcome: ConnectProbe.Outcome
        if let address {
            outcome = await ConnectProbe.run(
                address: address, configuration: configuration, identity: identity, timeout: timeout, transcript: transcript,
                logger: logger)
        } else {
            do {
                let client = try await USBConnect.client(
                    match: usbMatch, configuration: configuration, identity: identity, timeout: timeout, transcript: transcript,
                    logger: logger)
                outcome = await ConnectProbe.run(client: client, timeout: timeout, transcript: transcript)
            } catch {
                outcome = .failure("\(error)")
            }
        }
        switch outcome {
        case .success:
            return 0
        case .failure(let message):
            Console.err("dashport-hu connect: \(message)")
            return 1
        }
    }
}
