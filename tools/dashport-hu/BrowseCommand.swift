import DashportCommandLine
import Foundation
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTLS
import DashportTransport
import DashportUSBHost

/// `dashport-hu browse HOST:PORT ...`
enum BrowseCommand {
    static let spec = CommandSpec(
        name: "dashport-hu browse", synopsis: "HOST:PORT [options]  |  --usb [VID:PID] [options]",
        summary: """
            Connects as a head unit that speaks the Dashport media channel, lists the tabs and then reads
            commands from standard input (or runs a script), printing each screen as text. Type "help"
            for the commands. Exits 0 after quit or end of input, 1 on a failure (no answer, link
            closed, a failed expect), 2 on a usage error.
            """,
        positionals: ["HOST:PORT"],
        options: [
            // The car profile (sent in the discovery response).
            .value("max-tabs", "N", "tabs the car draws at the root (server default 4)"),
            .flag("legacy", "error screens: legacy (2 codes)"),
            .flag("full", "error screens: full (all 5, the default)"),
            .value("max-depth", "N", "deepest level the car opens"),
            .value("art-size", "PX", "artwork box, PX × PX (also asked for by \"art\")"),
            // The media audio sink (channel 4, PCM 48000/16/2, MEDIA) and audio focus.
            .flag("no-audio", "list no media audio sink (focus requests are still answered)"),
            .value("audio-window", "N", "max_unacked in CONFIG: 1 (default, as openauto) … 4096 (as Google's DHU)"),
            .flag("ackless", "never ACK audio DATA (a protocol 5.0 head unit)"),
            .value(
                "focus", "MODE", "audio focus: openauto (default, answers at once), never-gain (gains unanswered), ohu (+ GAIN after SETUP)"
            ),
            .value("focus-loss-after", "S", "send an unsolicited LOSS S seconds after the first START"),
            .value("focus-regain-after", "S", "with --focus-loss-after: an unsolicited GAIN S seconds after that LOSS"),
            .value("save-audio", "FILE", "write the audio heard to FILE as a WAV (48000/16/2) when the session ends"),
            .flag("play-audio", "play the audio heard on this machine (aplay, else pacat)"),
            // The session.
            .flag("usb", "connect over USB instead (Android Open Accessory switch, then bulk); positional VID:PID"),
            .value("page-size", "N", "items per page asked for (default: the server's choice)"),
            .value("save-art", "DIR", "save each cover fetched with \"art\" as DIR/<key>.<jpg|png>"),
            .value("script", "FILE", "run the commands in FILE (one per line, # comments, wait <ms>, expect <text>)"),
            .value("timeout", "S", "seconds to wait for the connect, each answer and each expect (default 5)"),
            Arguments.firstAnswerOption,
            .value("version", "M.m", "AAP version to ask for (default 1.6)"),
            Arguments.identityOption,
            .value("log-level", "L", "trace, debug, info, notice, warning (default), error; to stderr"),
        ])

    struct Setup {
        /// nil: over USB (``usb``).
        var address: ListenAddress?
        var usb: USBDeviceMatch?
        var configuration: HeadUnitConfiguration
        var options: BrowseShellOptions
        var timeout: Duration
        var script: EmulatorScript?
        var logger: Logger
        /// `--identity DIR`; nil: a new client certificate.
        var identity: TLSIdentity? = nil
        /// `--save-audio`, `--play-audio`.
        var saveAudio: String?
        var playAudio = false
    }

    static func run(_ arguments: [String]) async -> Int32 {
        let setup: Setup
        do throws(UsageError) {
            let parsed = try Arguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Console.out(spec.help)
                return 0
            }
            guard let built = try parse(parsed) else { return 0 }
            setup = built
        } catch {
            Console.err("dashport-hu browse: \(error)\n")
            Console.err(spec.help)
            return 2
        }
        return await browse(setup)
    }

    static func parse(_ parsed: Arguments) throws(UsageError) -> Setup? {
        if parsed.flag("legacy") && parsed.flag("full") { throw UsageError("--legacy and --full exclude each other") }
        let timeout = try parsed.seconds("timeout", default: .seconds(5))
        let artSize = try parsed.count("art-size")
        let profile = CarProfileOptions(
            maxTabs: try parsed.count("max-tabs"),
            errorRendering: parsed.flag("legacy") ? .legacy : .full,
            maxDepth: try parsed.count("max-depth"),
            artSize: artSize)
        var configuration = HeadUnitConfiguration()
        configuration.version = try parsed.version(default: configuration.version)
        try parsed.applyPatience(to: &configuration, timeout: timeout)
        // List the volume keys too: the server binds them only while it declares remote playback,
        // and then `key volup` / `key voldown` / `key mute` drive that device.
        configuration.car.services = configuration.car.services.map { service in
            guard case .input(let keycodes) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .input(keycodes: keycodes + [24, 25, 164]))
        }
        configuration.audio = try audioConfiguration(parsed)
        if parsed.flag("no-audio") {
            configuration.car.services.removeAll { $0.isAudioSink }
        }
        var script: EmulatorScript?
        if let path = parsed.string("script") {
            let text = try Console.readScript(path, limit: EmulatorScript.maxBytes)
            do {
                script = try EmulatorScript.parse(text)
            } catch {
                throw UsageError("--script \(path): \(error)")
            }
        }
        let usb = parsed.flag("usb")
        return Setup(
            address: usb ? nil : try parsed.address(),
            usb: usb ? try USBConnect.match(parsed.positionals) : nil,
            configuration: configuration.withDashportProfile(profile.profile),
            options: BrowseShellOptions(
                pageSize: try parsed.count("page-size"), artSize: artSize,
                saveArtDirectory: parsed.string("save-art"), expectTimeout: timeout),
            timeout: timeout, script: script, logger: try parsed.logger(), identity: try parsed.identity(),
            saveAudio: parsed.string("save-audio"), playAudio: parsed.flag("play-audio"))
    }

    /// The media sink's window, ACKs and focus mode from the options.
    static func audioConfiguration(_ parsed: Arguments) throws(UsageError) -> MediaSinkConfiguration {
        var audio = MediaSinkConfiguration()
        if let window = try parsed.count("audio-window") {
            guard window <= 65_536 else { throw UsageError("--audio-window: at most 65536") }
            audio.window = window
        }
        audio.sendsAcks = !parsed.flag("ackless")
        // ACK receive timestamps in ns since the Unix epoch, as a real head unit sends them.
        audio.epochOffset = .nanoseconds(Int64(Date().timeIntervalSince1970 * 1e9))
        switch parsed.string("focus") ?? "openauto" {
        case "openauto": audio.focus = .openauto
        case "never-gain": audio.focus = .neverAnswerGain
        case "ohu": audio.focus = .unsolicitedGainAfterSetup
        case let other: throw UsageError("--focus: \"\(other)\" is not openauto, never-gain or ohu")
        }
        if parsed.string("focus-loss-after") != nil {
            guard audio.focus == .openauto else { throw UsageError("--focus-loss-after answers like openauto; leave out --focus") }
            let regain: Duration? =
                parsed.string("focus-regain-after") == nil ? nil : try parsed.seconds("focus-regain-after", default: .zero)
            audio.focus = .unsolicitedLoss(after: try parsed.seconds("focus-loss-after", default: .zero), regainAfter: regain)
        } else if parsed.string("focus-regain-after") != nil {
            throw UsageError("--focus-regain-after needs --focus-loss-after")
        }
        return audio
    }

    static func browse(_ setup: Setup, tap: (@Sendable (TappedMessage) -> Void)? = nil) async -> Int32 {
        let client: HeadUnitClient
        let session: MediaChannelSession
        let audio: AudioOutput?
        do {
            audio = try AudioOutput.start(saveTo: setup.saveAudio, play: setup.playAudio)
        } catch {
            Console.err("dashport-hu browse: \(error)")
            return 1
        }
        do {
            if let address = setup.address {
                client = try await HeadUnitClient.connect(
                    to: address, configuration: setup.configuration, identity: setup.identity, timeout: setup.timeout,
                    logger: setup.logger, tap: tap, audioOutput: audio?.sink)
            } else {
                client = try await USBConnect.client(
                    match: setup.usb, configuration: setup.configuration, identity: setup.identity, timeout: setup.timeout,
                    transcript: Transcript { Console.out($0) }, logger: setup.logger, audioOutput: audio?.sink)
            }
            session = try MediaChannelSession.start(client: client, timeout: setup.timeout)
        } catch {
            await audio?.finish()
            Console.err("dashport-hu browse: \(error)")
            return 1
        }
        let transcript = Transcript { Console.out($0) }
        // Typed lines and the end of the link, in one stream: the shell stops when the phone goes.
        let (input, inputSink) = AsyncStream.makeStream(of: ShellInput.self)
        // A script's screens stay as it draws them; a person's open list is redrawn on a push (and
        // nobody reads the stream while a script runs, so nothing piles up in it).
        let interactive = setup.script == nil
        let printer = transcript.printNotices(
            of: session, closed: { inputSink.yield(.linkClosed) },
            changed: { if interactive { inputSink.yield(.childrenChanged($0)) } })
        let shell = BrowseShell(session: session, transcript: transcript, options: setup.options)
        var status: Int32 = 0
        do {
            try await shell.start()
            if let script = setup.script {
                try await shell.run(script)
            } else {
                try await interact(shell, input: input, sink: inputSink)
            }
        } catch {
            Console.err("dashport-hu browse: \(error)")
            status = 1
        }
        await client.byeBye()
        if await client.closed(within: setup.configuration.byeByeGrace + .seconds(2)) == nil {
            await client.close()
        }
        _ = await printer.value
        await audio?.finish()
        return status
    }

    /// Reads commands from standard input until `quit` or end of input, showing a prompt when the
    /// input is a terminal; the phone's bye-bye ends it at once (``BrowseShell/interact(_:prompt:)``).
    private static func interact(
        _ shell: BrowseShell, input: AsyncStream<ShellInput>, sink: AsyncStream<ShellInput>.Continuation
    ) async throws(BrowseShellError) {
        // On a terminal: line editing and history (Up recalls, it does not type ^[[A).
        let edited = Console.inputIsTerminal ? TerminalInput.lines(prompt: Console.promptText) : nil
        let lines = edited ?? Console.inputLines()
        let reader = Task<Void, Never> {
            for await line in lines { sink.yield(ShellInput.line(line)) }
            sink.yield(ShellInput.endOfInput)
        }
        defer {
            reader.cancel()
            TerminalInput.restore()
        }
        var prompt: (@Sendable () -> Void)?
        if Console.inputIsTerminal { prompt = { Console.prompt() } }
        try await shell.interact(input, prompt: prompt)
    }
}
