import DashportTransport
import Synchronization

/// An open-ended response body on one client's connection (an event stream, a PCM stream),
/// after its head was written. Any thread may write and close; writes after the close are dropped.
public final class HTTPStream: Sendable {
    let connection: TCPConnection
    private let state = Mutex(State())

    private struct State {
        var closed = false
        var onClose: [@Sendable () -> Void] = []
    }

    init(connection: TCPConnection) {
        self.connection = connection
    }

    /// Who reads the stream, for logs.
    public var peerDescription: String { connection.peerDescription }

    /// Bytes queued for the client and not yet sent: a real-time producer drops data above its own mark.
    public var bufferedBytes: Int { connection.outboundBufferedBytes }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Queues bytes for the client (a client that does not read is closed at the server's outbound limit).
    public func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        connection.write(bytes)
    }

    /// Ends the body: what is queued is sent, then the connection closes.
    public func close() {
        connection.close()
    }

    /// Runs `action` once when the stream is over (at once if it already is).
    public func whenClosed(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.closed { return true }
            state.onClose.append(action)
            return false
        }
        if now { action() }
    }

    func markClosed() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.onClose = [] }
            return state.onClose
        }
        for action in actions { action() }
    }
}
