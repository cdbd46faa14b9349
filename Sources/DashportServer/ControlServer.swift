import FoundationEssentials
import Glibc
import Synchronization
import DashportClock
import DashportControl
import DashportLog
import DashportTransport

/// The local control socket, `<state-dir>/control.sock` by default (mode 0600; where else it can
/// be: ``ControlSocketLocation``): `dashport ctl` and scripts
/// send one request line at a time and read its answer (the protocol is ``ControlRequest``,
/// ``ControlResponse``; the DocC article "Controlling a running server" has every command).
///
/// Bounded like every peer input: at most ``maxConnections`` connections, a request line of at
/// most ``ControlRequest/maxLineBytes``, at most 4 requests waiting for their answers, a minute
/// without a request; breaking a bound is answered with an `error` line and the connection is closed. A bad request is answered
/// with an `error` line and the connection stays open.
final class ControlServer: Sendable {
    static let socketName = "control.sock"
    static let maxConnections = 8
    /// A connection with no request for this long is closed, so idle clients cannot hold every slot.
    static let idleTimeout: Duration = .seconds(60)

    let listener: UnixListener
    private let logger: Logger

    /// The socket at `<stateDirectory>/control.sock`.
    static func start(
        stateDirectory: String, service: ControlService, logger: Logger, clock: any DashportClock,
        idleTimeout: Duration = ControlServer.idleTimeout
    ) throws(ConfigurationError) -> ControlServer {
        try start(path: stateDirectory + "/" + socketName, service: service, logger: logger, clock: clock, idleTimeout: idleTimeout)
    }

    /// The socket at `path` (see ``open(explicit:stateDirectory:service:logger:clock:runtimeDirectory:)``
    /// for where a server puts it).
    static func start(
        path: String, service: ControlService, logger: Logger, clock: any DashportClock,
        idleTimeout: Duration = ControlServer.idleTimeout
    ) throws(ConfigurationError) -> ControlServer {
        let logger = logger.labelled("control")
        let listener: UnixListener
        do {
            listener = try UnixListener.bind(path: path, maxConnections: maxConnections, evictingOldest: true, logger: logger)
        } catch {
            throw ConfigurationError("control socket: \(error)")
        }
        let server = ControlServer(listener: listener, logger: logger)
        listener.start { connection in
            ControlConnection.run(connection, service: service, logger: logger, clock: clock, idleTimeout: idleTimeout)
        }
        logger.info("control socket ready", ["path": listener.path])
        return server
    }

    private init(listener: UnixListener, logger: Logger) {
        self.listener = listener
        self.logger = logger
    }

    var path: String { listener.path }

    func stop() { listener.shutdown() }
}

/// One control connection: the reactor frames lines into a bounded reader; one task answers them
/// in order.
enum ControlConnection {
    static func run(_ connection: TCPConnection, service: ControlService, logger: Logger, clock: any DashportClock, idleTimeout: Duration) {
        let reader = Mutex(ControlLineReader())
        let requests = Arc(Atomic<UInt64>(0))
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        connection.start { event in
            switch event {
            case .received(let bytes):
                do throws(ControlError) {
                    try reader.withLock { reader throws(ControlError) in try reader.append(bytes) }
                    wake.yield()
                } catch {
                    logger.warning("control request refused, closing the connection: \(error)")
                    wake.finish()
                    connection.write(ControlResponse.error(error.description).encoded)
                    connection.close()
                }
            case .closed:
                wake.finish()
            }
        }
        // One watchdog per connection (not per request): closes it after `idleTimeout` without one.
        let watchdog = Task {
            var seen = requests.value.load(ordering: .relaxed)
            while true {
                do { try await clock.sleep(for: idleTimeout) } catch { return }
                let now = requests.value.load(ordering: .relaxed)
                if now == seen {
                    logger.info("control connection idle for \(idleTimeout), closing it")
                    connection.write(ControlResponse.error("no request for \(idleTimeout); closing").encoded)
                    connection.close()
                    return
                }
                seen = now
            }
        }
        Task {
            defer { watchdog.cancel() }
            for await _ in wakes {
                while let line = reader.withLock({ $0.next() }) {
                    requests.value.add(1, ordering: .relaxed)
                    let response: ControlResponse
                    do throws(ControlError) {
                        let request = try ControlRequest.parse(line)
                        logger.info("control request", ["request": ControlWords.shown(String(decoding: line, as: UTF8.self))])
                        response = await service.answer(request)
                    } catch {
                        logger.notice("bad control request: \(error)")
                        response = .error(error.description)
                    }
                    connection.write(response.encoded)
                }
            }
        }
    }
}
