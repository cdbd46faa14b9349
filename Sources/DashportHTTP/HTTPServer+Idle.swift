import DashportLog
import DashportTransport
import Synchronization

/// The idle sweep: one timer for the whole server, not one per request.
extension HTTPServer {
    /// One client as the sweep sees it.
    final class Client: Sendable {
        let connection: TCPConnection
        private let state = Mutex(State(lastActive: .now))

        struct State {
            var lastActive: ContinuousClock.Instant
            /// Answering a request, or serving a stream: not timed.
            var busy = false
        }

        init(connection: TCPConnection) {
            self.connection = connection
        }

        /// Something happened: a request arrived, an answer went out.
        func touch(busy: Bool) {
            state.withLock { $0 = State(lastActive: .now, busy: busy) }
        }

        func isIdle(since deadline: ContinuousClock.Instant) -> Bool {
            state.withLock { !$0.busy && $0.lastActive < deadline }
        }
    }

    func register(_ client: Client) -> Bool {
        clients.withLock { clients -> Bool in
            guard clients != nil else { return false }
            clients?[ObjectIdentifier(client.connection)] = client
            return true
        }
    }

    func forget(_ connection: TCPConnection) {
        _ = clients.withLock { $0?.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Every half idle timeout (at least 50 ms), closes the clients idle past it.
    func scheduleSweep() {
        let interval = max(configuration.idleTimeout / 2, .milliseconds(50))
        loop.scheduleTimer(after: interval) { [weak self] in
            guard let self else { return }
            let deadline = ContinuousClock.now - configuration.idleTimeout
            guard let idle = clients.withLock({ $0?.values.filter { $0.isIdle(since: deadline) } }) else { return }  // shut down
            for client in idle {
                logger.info(
                    "closing a client that sent no request for \(configuration.idleTimeout)", ["peer": client.connection.peerDescription])
                forget(client.connection)
                client.connection.close()
            }
            scheduleSweep()
        }
    }
}
