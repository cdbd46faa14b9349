public import DashportEmulator
import Synchronization

/// Lines printed from any thread (a ``Transcript``'s sink), for a test to read.
public final class CollectedLines: Sendable {
    private let storage = Mutex<[String]>([])

    public init() {}

    /// Every line so far, in order.
    public var all: [String] { storage.withLock { $0 } }

    public func append(_ line: String) { storage.withLock { $0.append(line) } }
}

/// A browse shell on a connected emulated car, as `dashport-hu browse` runs it: a media channel
/// session on the client, a transcript that collects every line (pushes included, printed after
/// the screen being drawn) and the shell on both.
public struct EmulatedShell: Sendable {
    public let client: HeadUnitClient
    public let session: MediaChannelSession
    public let shell: BrowseShell
    /// Everything the shell and the pushes printed.
    public let output: CollectedLines
    /// Prints the session's notices until the link closes; cancel it to stop earlier.
    public let notices: Task<Void, Never>
    /// What an interactive shell reads, as `dashport-hu browse` feeds it: the pushes' link end and
    /// children-changed, and whatever a test types with `type(_:)`.
    public let input: AsyncStream<ShellInput>
    private let inputSink: AsyncStream<ShellInput>.Continuation

    /// Starts the session (every wait bounded by `timeout` on the client's clock) and the shell;
    /// the shell has not drawn anything yet (call `shell.start()`).
    public init(client: HeadUnitClient, timeout: Duration = .seconds(20), options: BrowseShellOptions) throws(MediaSessionError) {
        self.client = client
        session = try MediaChannelSession.start(client: client, timeout: timeout)
        let output = CollectedLines()
        self.output = output
        let transcript = Transcript(clock: client.clock) { output.append($0) }
        let (input, sink) = AsyncStream.makeStream(of: ShellInput.self)
        (self.input, inputSink) = (input, sink)
        notices = transcript.printNotices(of: session, closed: { sink.yield(.linkClosed) }, changed: { sink.yield(.childrenChanged($0)) })
        shell = BrowseShell(session: session, transcript: transcript, options: options)
    }

    /// Types `line` into the interactive shell (``BrowseShell/interact(_:prompt:)`` on ``input``).
    public func type(_ line: String) { inputSink.yield(.line(line)) }
}
