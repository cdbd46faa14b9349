import CDashportLinux
import Glibc

/// The bytes queued for one peer, oldest first, and how to hand them to a non-blocking socket.
///
/// Small writes are coalesced into chunks of up to 64 KiB so a burst of small frames costs few
/// `send` calls. The owner enforces the cap by checking ``count`` after each append.
struct OutboundQueue {
    /// Chunks up to this size absorb later small writes.
    static let coalesceLimit = 64 * 1024

    private var chunks: [[UInt8]] = []
    /// Index of the oldest chunk still (partly) unsent.
    private var head = 0
    /// Bytes of `chunks[head]` already sent.
    private var offset = 0
    /// Bytes queued and not yet sent.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        if chunks.count > head, let last = chunks.last?.count,
            last + bytes.count <= OutboundQueue.coalesceLimit, bytes.count < OutboundQueue.coalesceLimit / 2
        {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            chunks.append(bytes)
        }
    }

    mutating func removeAll() {
        chunks = []
        head = 0
        offset = 0
        count = 0
    }

    enum FlushResult: Equatable {
        /// Everything queued was handed to the kernel.
        case drained
        /// The socket buffer is full; the rest waits for the next writable edge.
        case wouldBlock
        /// `send` failed with this errno.
        case failed(Int32)
    }

    /// Sends queued bytes until the queue is empty or the socket would block.
    mutating func flush(to fd: Int32) -> FlushResult {
        while head < chunks.count {
            let result = chunks[head].withUnsafeBytes { chunk in
                sendSome(fd, UnsafeRawBufferPointer(rebasing: chunk[offset...]))
            }
            switch result {
            case .ok(let sent):
                count -= sent
                offset += sent
                if offset == chunks[head].count {
                    head += 1
                    offset = 0
                }
            case .wouldBlock:
                compact()
                return .wouldBlock
            case .failed(let code):
                return .failed(code)
            }
        }
        removeAll()
        return .drained
    }

    /// Drops sent chunks once they are most of the array, so a long-lived queue stays small.
    private mutating func compact() {
        if head > 16 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}

/// One non-blocking `send` with MSG_NOSIGNAL (a write to a closed peer is EPIPE, never SIGPIPE).
func sendSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> SystemCallResult {
    systemCall { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
}
