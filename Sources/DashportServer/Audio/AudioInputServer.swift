import DashportDigest
import DashportFiles
import DashportLog
import DashportSession
import DashportTransport
import Glibc
import Synchronization

/// The server's audio input socket, `STATE-DIR/audio-in.sock` (mode 0600, owner only, made like
/// the control socket): one writer at a time streams raw S16LE 48000 Hz stereo PCM into a
/// `SessionAudioInput` (`dashport audio-in`, run by MPD's pipe output, is the usual writer).
///
/// The wire: on connecting, the writer is sent one line: ``AudioInputWire/readyLine`` when it is the
/// writer, or a line beginning ``AudioInputWire/busyPrefix`` (then the socket is closed) when
/// another writer already is: **a second writer is refused**, never replaces the first, so two
/// sources cannot take turns cutting each other off; a refused `audio-in` keeps draining its input
/// and tries again, and takes over when the first one goes. After the line the writer sends PCM
/// and the server sends nothing.
///
/// Everything runs on the reactor: the writer's bytes go into the input as they are read; once
/// the input holds its high-water mark, reading pauses (the kernel's socket buffer fills and the
/// writer blocks) until a pull makes room. A writer that vanishes (mid-frame included) costs its
/// partial frame and nothing else.
final class AudioInputServer: Sendable {
    static let socketName = "audio-in.sock"
    /// One writer plus a few being refused at once; beyond that a peer is closed unanswered.
    static let maxConnections = 4

    let listener: UnixListener
    let input: SessionAudioInput
    private let logger: Logger
    /// The writer, and how many peers were refused since it connected (the first is a warning,
    /// the rest debug: a second MPD retrying every 2 s must not fill the log).
    private let writer = Mutex<(connection: TCPConnection?, refused: Int)>((nil, 0))

    private init(listener: UnixListener, input: SessionAudioInput, logger: Logger) {
        self.listener = listener
        self.input = input
        self.logger = logger
    }

    var path: String { listener.path }

    /// Opens the socket at the first of ``AudioInputLocation/candidates(stateDirectory:runtimeDirectory:)``
    /// that can hold one. Something already at a path (another server) is an error, as for the
    /// control socket; when no place can hold one, the server serves without audio input (nil).
    static func open(
        stateDirectory: String, input: SessionAudioInput, logger: Logger,
        runtimeDirectory: String? = ControlSocketLocation.environmentRuntimeDirectory
    ) throws(ConfigurationError) -> AudioInputServer? {
        let logger = logger.labelled("audio-in")
        var failures: [String] = []
        for (index, path) in AudioInputLocation.candidates(stateDirectory: stateDirectory, runtimeDirectory: runtimeDirectory)
            .enumerated()
        {
            var status = stat()
            let exists = lstat(path, &status) == 0
            if !exists, index > 0, let slash = path.lastIndex(of: "/") {
                _ = try? Files.makeDirectory(String(path[..<slash]))
            }
            do {
                let listener = try UnixListener.bind(path: path, maxConnections: maxConnections, logger: logger, kind: "audio input")
                let server = AudioInputServer(listener: listener, input: input, logger: logger.with("socket", path))
                listener.start { [weak server] connection in
                    guard let server else { return connection.abort() }
                    server.accept(connection)
                }
                logger.info("audio input socket ready (dashport audio-in writes here)", ["path": path])
                return server
            } catch {
                if exists { throw ConfigurationError("audio input socket: \(error)") }
                failures.append(error.description)
            }
        }
        logger.warning(
            "no audio input socket could be made; serving without one (dashport audio-in cannot reach this server)",
            ["tried": failures.joined(separator: "; ")])
        return nil
    }

    func stop() {
        listener.shutdown()
        writer.withLock { $0.connection }?.abort()
    }

    /// On the reactor: the first peer becomes the writer, any other is told why not and closed.
    private func accept(_ connection: TCPConnection) {
        let refused = writer.withLock { writer -> Int in
            if writer.connection != nil {
                writer.refused += 1
                return writer.refused
            }
            writer = (connection, 0)
            return 0
        }
        guard refused == 0 else {
            let text = "a second writer was refused: another one is connected (one writer at a time)"
            if refused == 1 { logger.warning(text) } else { logger.debug(text, ["refused": "\(refused)"]) }
            connection.start { _ in }
            connection.write(Array(AudioInputWire.busyLine.utf8))
            connection.close()
            return
        }
        input.writerBegan()
        input.setInFlight { connection.unreadBytes }
        logger.notice("a writer connected")
        let input = self.input
        connection.start { [weak self] event in
            switch event {
            case .received(let bytes):
                guard !input.write(bytes) else { return }
                connection.pauseReading()
                input.whenRoom { connection.resumeReading() }
            case .closed(let error):
                self?.writerGone(connection, error: error)
            }
        }
        connection.write(Array(AudioInputWire.readyLine.utf8))
    }

    private func writerGone(_ connection: TCPConnection, error: TransportError?) {
        let was = writer.withLock { writer -> Bool in
            guard writer.connection === connection else { return false }
            writer = (nil, 0)
            return true
        }
        guard was else { return }
        input.writerEnded()
        let statistics = input.statistics
        (error.map { logger.with("error", "\($0)") } ?? logger).notice(
            "the writer went", ["bytes": "\(statistics.bytesIn)", "underrun_frames": "\(statistics.underrunFrames)"])
    }
}

/// The audio input socket's few words (the rest is raw PCM from the writer).
public enum AudioInputWire {
    /// The format every writer sends, as MPD's `format` names it.
    public static let format = "48000:16:2"
    /// Sent to the writer that is accepted.
    public static let readyLine = "ok dashport audio-in \(format)\n"
    /// How a refusal begins (the rest of the line says why).
    public static let busyPrefix = "busy:"
    static let busyLine = "\(busyPrefix) another writer is connected to this server's audio input; one at a time\n"
    /// The longest line the server sends.
    public static let maxLineBytes = 256
}

/// Where a server's audio input socket goes, and where `dashport audio-in` looks for it: like the
/// control socket (``ControlSocketLocation``), `STATE-DIR/audio-in.sock`, else a per-user runtime
/// directory under a name that carries a digest of the state directory.
public enum AudioInputLocation {
    public static func candidates(
        stateDirectory: String, runtimeDirectory: String? = ControlSocketLocation.environmentRuntimeDirectory
    ) -> [String] {
        let name = "audio-in-" + String(SHA256.hex(Array(stateDirectory.utf8)).prefix(16)) + ".sock"
        var paths = [Files.join(stateDirectory, AudioInputServer.socketName)]
        if let runtimeDirectory, !runtimeDirectory.isEmpty { paths.append(Files.join(Files.join(runtimeDirectory, "dashport"), name)) }
        paths.append(Files.join("/run/dashport", name))
        return paths
    }

    /// The socket `dashport audio-in` writes to: the first candidate that exists, else the first.
    public static func find(
        stateDirectory: String, runtimeDirectory: String? = ControlSocketLocation.environmentRuntimeDirectory
    ) -> String {
        let paths = candidates(stateDirectory: stateDirectory, runtimeDirectory: runtimeDirectory)
        var status = stat()
        return paths.first { lstat($0, &status) == 0 } ?? paths[0]
    }
}
