import DashportBrowse
import DashportServer
import DashportSession
import DashportTestSupport
import Foundation
import Synchronization
import Testing

/// A player whose sound is made elsewhere (as MPD's is): it has no audio source, so the server's
/// cars hear its audio input socket; the test sets the session's state itself.
actor ExternalPlayer: SessionHandler {
    nonisolated func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] { [] }
    nonisolated func item(id: String) async throws -> BrowseItem? { nil }
}

/// Interleaved S16LE stereo of a sine at `hz`, −12 dBFS, from frame `first` on (phase-continuous
/// across calls).
func sinePCM(hz: Double, frames: Int, first: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(frames * 4)
    for frame in first..<first + frames {
        let value = Int16(0.25 * 32767 * sin(2 * .pi * hz * Double(frame) / 48_000))
        let bits = UInt16(bitPattern: value)
        for _ in 0..<2 {
            out.append(UInt8(truncatingIfNeeded: bits))
            out.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
    }
    return out
}

/// `dashport audio-in`'s core on a thread of its own, reading a pipe that another thread fills with
/// a tone for as long as the test wants (blocking writes: the server's pace is the writer's).
final class AudioInFeed: Sendable {
    let reports = Mutex<[String]>([])
    let written = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let summary = Mutex<AudioInputClient.Summary?>(nil)
    private let writeEnd: Int32

    private init(writeEnd: Int32) {
        self.writeEnd = writeEnd
    }

    /// Starts the client on `socket` and a writer of `hz` (nil: the test writes nothing).
    static func start(socket: String, hz: Double?, client change: (inout AudioInputClient) -> Void = { _ in }) throws -> AudioInFeed {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let feed = AudioInFeed(writeEnd: fds[1])
        var client = AudioInputClient(socketPath: socket)
        change(&client)
        let readEnd = fds[0]
        Thread.detachNewThread { [client] in
            let result = client.run(input: readEnd) { line in feed.reports.withLock { $0.append(line) } }
            close(readEnd)
            feed.summary.withLock { $0 = result }
        }
        if let hz {
            Thread.detachNewThread {
                var frame = 0
                while !feed.stopping.load(ordering: .relaxed) {
                    let chunk = sinePCM(hz: hz, frames: 1024, first: frame)
                    frame += 1024
                    let done = chunk.withUnsafeBytes { Glibc.write(feed.writeEnd, $0.baseAddress, $0.count) }
                    guard done == chunk.count else { break }
                    feed.written.add(done, ordering: .relaxed)
                }
                close(feed.writeEnd)
            }
        }
        return feed
    }

    /// Writes `bytes` to the pipe now (a feed started without a tone).
    func write(_ bytes: [UInt8]) {
        let done = bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
        written.add(max(0, done), ordering: .relaxed)
    }

    /// Closes the pipe (stdin ends) and waits for the client to exit; its summary.
    func finish(closingHere: Bool = false) async throws -> AudioInputClient.Summary {
        stopping.store(true, ordering: .relaxed)
        if closingHere { close(writeEnd) }
        try await eventually("audio-in exits when its input ends") { summary.withLock { $0 } != nil }
        return try #require(summary.withLock { $0 })
    }

    var lines: [String] { reports.withLock { $0 } }
}
