import CDashportLinux
import Foundation
import DashportTestSupport
import Glibc
import Synchronization
import Testing

@testable import DashportTransport

/// What the reactor runs between the events of one turn: a timer that came due while a socket had
/// its turn, and work another thread queued meanwhile, run before the turn's next socket, so the
/// audio pump's packet is not held for every busy socket of a long turn.
@Suite struct EventLoopTurnTests {
    @Test func aTimerDueAndWorkPostedDuringATurnRunBeforeItsNextEvent() async throws {
        let loop = try EventLoop(name: "test-turn")
        let log = Watched<[String]>([])
        let first = Mutex(true)
        let posted = Atomic<Bool>(false)
        let deadline = Mutex<ContinuousClock.Instant?>(nil)
        // Whichever of the two sources epoll reports first waits, on the reactor, until the timer
        // is due and another thread has queued work; both must run before the second source.
        let handler: @Sendable (String) -> Void = { name in
            log.update { $0.append(name) }
            let isFirst = first.withLock { value in
                defer { value = false }
                return value
            }
            guard isFirst else { return }
            // A thread of its own: a Dispatch or pool thread may be busy with other tests for
            // seconds, and this reactor thread spins until it has posted.
            Thread.detachNewThread {
                loop.execute { log.update { $0.append("posted") } }
                posted.store(true, ordering: .releasing)
            }
            while !posted.load(ordering: .acquiring) || ContinuousClock.now < (deadline.withLock { $0 } ?? .now) {}
        }
        let sources = try (0..<2).map { index in try ReadySource(name: "source\(index)", loop: loop, handler: handler) }
        loop.execute {
            // Both registered in one turn with their eventfds already readable: the next wait
            // reports both at once.
            loop.scheduleTimer(after: .milliseconds(2)) { log.update { $0.append("timer") } }
            deadline.withLock { $0 = ContinuousClock.now + .milliseconds(2) }  // the timer's is earlier
            for source in sources { source.register() }
        }
        let order = try await log.wait("both sources, the timer and the posted work") { $0.count == 4 }
        #expect(order.count == 4)
        #expect(Array(order.dropFirst().prefix(2)).sorted() == ["posted", "timer"], "\(order)")
        #expect(order.last?.hasPrefix("source") == true, "\(order)")
        for source in sources { source.close() }
    }
}

/// An eventfd that is readable from the start, reporting each event to `handler`.
private final class ReadySource: Selectable {
    let name: String
    let loop: EventLoop
    let fd: Int32
    let id: UInt64
    let handler: @Sendable (String) -> Void

    init(name: String, loop: EventLoop, handler: @escaping @Sendable (String) -> Void) throws {
        let fd = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        try #require(fd >= 0)
        self.name = name
        self.loop = loop
        self.fd = fd
        self.id = loop.makeID()
        self.handler = handler
    }

    func register() {
        _ = loop.register(self, id: id, fd: fd, events: EventLoop.input | EventLoop.edgeTriggered)
    }

    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        handler(name)
        return false
    }

    func close() {
        loop.execute { [self] in
            loop.deregister(id: id, fd: fd)
            Glibc.close(fd)
        }
    }
}
