public import DashportClock
import Glibc

/// `dashport audio-in`'s core: copies a file descriptor (its standard input: MPD's pipe output) to
/// a running server's audio input socket (`AudioInputServer`) until the input ends.
///
/// It never makes its writer wait for long: while connected it writes what it reads, and the
/// server's back-pressure (it reads only as fast as the cars are fed) is what paces the writer;
/// while there is no server (not running, restarting, refusing a second writer) it keeps reading
/// and **discards** the input at real-time pace (192,000 bytes a second), so MPD neither blocks
/// nor races through the music, and tries to connect again with back-off (``retryInitial`` doubling
/// to ``retryMax``). A write the server does not take for ``sendTimeout`` counts as the server gone.
///
/// A plain blocking loop on one thread (`poll` and blocking writes): it is a separate small
/// program, not part of the server, whose sockets only its reactor touches.
public struct AudioInputClient: Sendable {
    public var socketPath: String
    public var retryInitial: Duration = .milliseconds(250)
    public var retryMax: Duration = .seconds(2)
    public var sendTimeout: Duration = .seconds(5)
    /// How long the server's first line may take.
    public var greetingTimeout: Duration = .seconds(5)

    /// What a run did.
    public struct Summary: Sendable, Hashable {
        public var bytesRead = 0
        public var bytesSent = 0
        public var bytesDiscarded = 0
        /// Times it was accepted as the writer.
        public var connections = 0
    }

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    static let bytesPerSecond = 48_000 * 4
    static let chunk = 8192

    /// Runs until `input` reaches its end (or cannot be read), then closes the connection. Every
    /// change of state (connected, refused, no server, gone) is told to `report` as one line.
    public func run(input: Int32, clock: any DashportClock = SystemClock(), report: (String) -> Void) -> Summary {
        var summary = Summary()
        var connection: Int32?
        var nextAttempt = clock.now
        var backoff = retryInitial
        var lastProblem: String?
        var discardStart = clock.now
        var discardedSinceStart = 0
        var buffer = [UInt8](repeating: 0, count: Self.chunk)
        defer { if let connection { Glibc.close(connection) } }

        func disconnect(_ why: String) {
            if let fd = connection { Glibc.close(fd) }
            connection = nil
            report("\(why); discarding the input until the server is back")
            lastProblem = nil
            discardStart = clock.now
            discardedSinceStart = 0
            nextAttempt = clock.now.advanced(by: retryInitial)
            backoff = retryInitial
        }

        while true {
            let now = clock.now
            if connection == nil, now >= nextAttempt {
                switch connect() {
                case .success(let fd):
                    connection = fd
                    summary.connections += 1
                    backoff = retryInitial
                    lastProblem = nil
                    report("connected to \(socketPath)")
                case .failure(let problem):
                    if problem.text != lastProblem { report("\(problem.text); discarding the input and trying again") }
                    lastProblem = problem.text
                    nextAttempt = now.advanced(by: backoff)
                    backoff = min(backoff * 2, retryMax)
                }
            }
            // While discarding, read no faster than the audio would play.
            var waitMs: Int64 = -1
            var mayRead = true
            if connection == nil {
                let elapsed = max(0, clock.now.milliseconds(since: discardStart))
                let allowed = Int(elapsed) * Self.bytesPerSecond / 1000 + Self.chunk
                if discardedSinceStart >= allowed {
                    mayRead = false
                    waitMs = Int64((discardedSinceStart - allowed) * 1000 / Self.bytesPerSecond) + 1
                }
                let untilAttempt = max(0, nextAttempt.milliseconds(since: clock.now))
                waitMs = waitMs < 0 ? untilAttempt : min(waitMs, untilAttempt)
            }
            var fds = [pollfd(fd: input, events: mayRead ? Int16(POLLIN) : 0, revents: 0)]
            if let connection { fds.append(pollfd(fd: connection, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: waitMs))
            if ready < 0, errno != EINTR {
                report("poll: \(String(cString: strerror(errno)))")
                return summary
            }
            if fds.count > 1, fds[1].revents != 0 {
                // The server sends nothing after its first line: this is it closing (or a last word).
                let count = recv(fds[1].fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    report("the server says: \(Self.text(buffer[..<count]))")
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    disconnect("the server closed the audio input")
                }
            }
            guard fds[0].revents != 0 else { continue }
            let count = read(input, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                report("cannot read the input: \(String(cString: strerror(errno)))")
                return summary
            }
            if count == 0 { return summary }  // the input ended: MPD closed its pipe
            summary.bytesRead += count
            if let fd = connection {
                if let failure = Self.sendAll(fd, buffer[..<count]) {
                    summary.bytesDiscarded += count
                    disconnect(failure)
                } else {
                    summary.bytesSent += count
                }
            } else {
                summary.bytesDiscarded += count
                discardedSinceStart += count
            }
        }
    }

    struct Problem: Error {
        var text: String
    }

    /// Connects and reads the server's first line: the writer's socket, or why not.
    func connect() -> Result<Int32, Problem> {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Problem(text: "socket: \(String(cString: strerror(errno)))")) }
        func fail(_ text: String) -> Result<Int32, Problem> {
            Glibc.close(fd)
            return .failure(Problem(text: text))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path), !path.contains(0) else {
            return fail("\(socketPath) is too long for a socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            switch errno {
            case ENOENT:
                return fail("no server: \(socketPath) does not exist (is dashport serve running, with audio, on this state directory?)")
            case ECONNREFUSED: return fail("no server is listening on \(socketPath) (a stale socket: the server has stopped)")
            case EACCES: return fail("permission denied on \(socketPath) (the socket is private to the user the server runs as)")
            default: return fail("cannot connect to \(socketPath): \(String(cString: strerror(errno)))")
            }
        }
        var timeout = Self.timeval(sendTimeout)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var line: [UInt8] = []
        var waitFor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while line.last != UInt8(ascii: "\n") {
            guard line.count < AudioInputWire.maxLineBytes else {
                return fail("the server's answer is too long; is \(socketPath) a Dashport server?")
            }
            guard poll(&waitFor, 1, Int32(clamping: greetingTimeout.components.seconds * 1000)) > 0 else {
                return fail("the server did not answer within \(greetingTimeout)")
            }
            let count = recv(fd, &byte, 1, 0)
            if count == 0 { return fail("the server closed the connection before answering") }
            if count < 0 {
                if errno == EINTR { continue }
                return fail("cannot read the server's answer: \(String(cString: strerror(errno)))")
            }
            line.append(byte)
        }
        let text = Self.text(line[...])
        if text.hasPrefix("ok") { return .success(fd) }
        if text.hasPrefix(AudioInputWire.busyPrefix) { return fail("refused by the server: \(text)") }
        return fail("unexpected answer from \(socketPath): \(text)")
    }

    /// Writes all of `bytes` (blocking, bounded by the send timeout); the reason when it could not.
    static func sendAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> String? {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return "the server stopped reading the audio input" }
                return "the server went away (\(String(cString: strerror(errno))))"
            }
            offset += sent
        }
        return nil
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        var bytes = bytes
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") {
            bytes.removeLast()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
