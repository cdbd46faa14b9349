import FoundationEssentials
import Glibc
import Synchronization
public import DashportClock
public import DashportControl
import DashportTransport

/// The client end of the control socket: `dashport ctl` and tests.
public enum ControlClient {
    /// Sends one request (words, each quoted as needed) and returns the answer. Throws
    /// ``ControlClientError`` when there is no server, it closes early, or answers nonsense.
    public static func send(
        _ words: [String], socket path: String, timeout: Duration = .seconds(30), clock: any DashportClock = SystemClock()
    ) async throws(ControlClientError) -> ControlResponse {
        let line = words.map(ControlWords.quoted).joined(separator: " ")
        guard line.utf8.count < ControlRequest.maxLineBytes else {
            throw ControlClientError("request longer than \(ControlRequest.maxLineBytes - 1) bytes")
        }
        let connection: TCPConnection
        do {
            connection = try UnixClient.connect(path: path)
        } catch {
            throw ControlClientError(error.description)
        }
        let timer = Mutex<Task<Void, Never>?>(nil)
        let result: Result<ControlResponse, ControlClientError> = await withCheckedContinuation { continuation in
            let state = Mutex<(reader: ControlResponseReader, done: Bool)>((ControlResponseReader(), false))
            let finish: @Sendable (Result<ControlResponse, ControlClientError>) -> Void = { result in
                let first = state.withLock { state in
                    defer { state.done = true }
                    return !state.done
                }
                if first { continuation.resume(returning: result) }
            }
            connection.start { event in
                switch event {
                case .received(let bytes):
                    do throws(ControlError) {
                        if let answer = try state.withLock({ state throws(ControlError) in try state.reader.append(bytes) }) {
                            finish(.success(answer))
                        }
                    } catch {
                        finish(.failure(ControlClientError("bad answer from the server: \(error)")))
                    }
                case .closed(let error):
                    finish(
                        .failure(ControlClientError("the server closed the connection before answering\(error.map { " (\($0))" } ?? "")")))
                }
            }
            connection.write(Array((line + "\n").utf8))
            let task = Task {
                guard (try? await clock.sleep(for: timeout)) != nil else { return }
                finish(.failure(ControlClientError("no answer within \(timeout)")))
            }
            timer.withLock { $0 = task }
        }
        timer.withLock { $0?.cancel() }
        connection.close()
        return try result.get()
    }

    /// `<state-dir>/control.sock`.
    public static func socketPath(stateDirectory: String) -> String {
        stateDirectory + "/" + ControlServer.socketName
    }

    /// The command list, as `dashport ctl help` prints it without a server.
    public static var usage: [String] { ControlRequest.usage }
}

/// Why `dashport ctl` got no answer.
public struct ControlClientError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
