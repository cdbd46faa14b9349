import DashportCommandLine
import DashportEmulator
import DashportHTTP
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTransport
import DashportWebEmulator
import Foundation

/// `dashport-hu web HOST:PORT --listen 127.0.0.1:PORT [--open]`: the car as a web page.
enum WebCommand {
    static let spec = CommandSpec(
        name: "dashport-hu web", synopsis: "HOST:PORT [options]  |  --usb [VID:PID] [options]",
        summary: """
            Connects as a head unit (the same car as "browse") and serves the car's screen as a web page on
            loopback: tabs, lists and grids of covers, error screens, now playing with a moving scrubber,
            the queue, and the car's sound. The link is made again when it drops and when the page's
            settings change the car profile. Prints the page's address; stops on Ctrl-C (SIGINT/SIGTERM)
            with a bye-bye. Exits 0 then, 1 when it cannot listen, 2 on a usage error.
            """,
        positionals: ["HOST:PORT"],
        options: [
            .value("listen", "ADDR", "where the page is served (default 127.0.0.1:8080; loopback only unless --allow-remote)"),
            .flag("allow-remote", "allow --listen on an address other machines can reach (the page has no login)"),
            .flag("open", "open the page in the default browser (xdg-open) once it is served"),
            .value("record-dir", "DIR", "where the page's record button writes its .jsonl files (default: the current directory)"),
            .value("page-size", "N", "items per page asked for (default: the server's choice); the page loads more as it scrolls"),
            .value("max-tabs", "N", "tabs the car draws at the root (server default 4)"),
            .flag("legacy", "error screens: legacy (2 codes)"),
            .value("max-depth", "N", "deepest level the car opens"),
            .value("art-size", "PX", "artwork box of the profile, PX × PX"),
            .flag("night", "start in the night look"),
            .flag("no-audio", "list no media audio sink"),
            .value("audio-window", "N", "max_unacked in CONFIG: 1 (default) … 4096"),
            .flag("ackless", "never ACK audio DATA"),
            .value("focus", "MODE", "audio focus: openauto (default), never-gain, ohu"),
            .flag("usb", "connect over USB instead (Android Open Accessory switch, then bulk); positional VID:PID"),
            .value("timeout", "S", "seconds to wait for the connect and each answer (default 10)"),
            .value("version", "M.m", "AAP version to ask for (default 1.6)"),
            Arguments.identityOption,
            .value("log-level", "L", "trace, debug, info, notice, warning (default), error; to stderr"),
        ])

    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: Arguments
        let listen: ListenAddress
        let settings: WebCarSettings
        var configuration = WebCar.defaultConfiguration
        let connector: WebCarConnector
        let timeout: Duration
        let logger: Logger
        do throws(UsageError) {
            parsed = try Arguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Console.out(spec.help)
                return 0
            }
            do {
                listen = try ListenAddress.parse(parsed.string("listen") ?? "127.0.0.1:8080")
            } catch {
                throw UsageError("--listen: \(error)")
            }
            settings = WebCarSettings(
                maxTabs: try parsed.count("max-tabs"), legacy: parsed.flag("legacy"), maxDepth: try parsed.count("max-depth"),
                artSize: try parsed.count("art-size"), night: parsed.flag("night"))
            configuration.version = try parsed.version(default: configuration.version)
            configuration.audio = try BrowseCommand.audioConfiguration(parsed)
            if parsed.flag("no-audio") { configuration.car.services.removeAll { $0.isAudioSink } }
            timeout = try parsed.seconds("timeout", default: .seconds(10))
            logger = try parsed.logger()
            let identity = try parsed.identity()
            if parsed.flag("usb") {
                let match = try USBConnect.match(parsed.positionals)
                connector = { request in
                    try await USBConnect.client(
                        match: match, configuration: request.configuration, identity: identity, timeout: timeout,
                        transcript: Transcript { Console.err($0) }, logger: logger, audioOutput: request.audioOutput, tap: request.tap)
                }
            } else {
                let address = try parsed.address()
                connector = { request in
                    try await HeadUnitClient.connect(
                        to: address, configuration: request.configuration, identity: identity, timeout: timeout, logger: logger,
                        tap: request.tap, audioOutput: request.audioOutput)
                }
            }
        } catch {
            Console.err("dashport-hu web: \(error)\n")
            Console.err(spec.help)
            return 2
        }
        let car = WebCar(connector: connector, configuration: configuration, settings: settings, timeout: timeout, logger: logger)
        let pageSize: UInt32?
        do throws(UsageError) {
            pageSize = try parsed.count("page-size")
        } catch {
            Console.err("dashport-hu web: \(error)")
            return 2
        }
        let routes = WebRoutes(
            car: car, recordDirectory: parsed.string("record-dir") ?? FileManager.default.currentDirectoryPath, pageSize: pageSize)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(
                HTTPServerConfiguration(listen: listen, allowNonLoopback: parsed.flag("allow-remote")), logger: logger
            ) { request in await routes.handle(request) }
        } catch {
            if case .notLoopback = error {
                Console.err("dashport-hu web: \(error) (--allow-remote)")
            } else {
                Console.err("dashport-hu web: \(error)")
            }
            return 1
        }
        let signals = WebSignals()
        await car.start()
        Console.out("dashport-hu web: the car's screen is at \(server.url)")
        if parsed.flag("open") { openBrowser(server.url) }
        let name = await signals.next()
        Console.err("dashport-hu web: \(name); saying bye-bye")
        await car.stop()
        server.shutdown()
        return 0
    }

    /// `xdg-open URL` when it is on the PATH; otherwise says how to open the page.
    static func openBrowser(_ url: String) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/xdg-open" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            Console.err("dashport-hu web: --open: no xdg-open on this machine; open \(url) in a browser")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [url]
        do {
            try process.run()
        } catch {
            Console.err("dashport-hu web: --open: \(path) failed: \(error)")
        }
    }
}

/// SIGINT and SIGTERM as one async wait; their default actions are ignored while it exists.
final class WebSignals {
    private let stream: AsyncStream<String>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        sources = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
    }

    func next() async -> String {
        for await name in stream { return name }
        return "end of signals"
    }
}
