// The reactor's loop itself: wait for events, hand them to their sources, then run the jobs,
// polls, closures and timers queued for this thread (see EventLoop.swift for why there is one
// reactor, and EventLoop+TaskExecutor.swift for the jobs). Everything here runs on the reactor.
import CDashportLinux
import Glibc
import Synchronization

// MARK: The loop (reactor thread only)

extension EventLoop {
    func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        // Both buffers live as long as the thread, i.e. the process.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: EventLoop.readChunkSize, alignment: 16)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var again: [UInt64] = []
        while true {
            // Work queued from this thread (a job's writes, a yielded task) wrote no eventfd: it is
            // taken before the loop may sleep.
            let idle = again.isEmpty && inbox.withLock { $0.isEmpty }
            let timeout = idle ? millisecondsUntilNextTimer() : 0
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                // EBADF, EFAULT, EINVAL: the loop's own descriptor is gone; nothing can recover.
                fatalError("DashportTransport: epoll_wait: \(errnoText(code))")
            }
            let retry = again
            again.removeAll(keepingCapacity: true)
            var woken = false
            for index in 0..<Int(count) {
                let id = events[index].data.u64
                if id == 0 {
                    woken = true
                } else {
                    dispatch(id, events[index].events, scratch, &again)
                }
            }
            for id in retry { dispatch(id, EventLoop.input, scratch, &again) }
            drainInbox(woken: woken, scratch, &again)
            fireDueTimers()
        }
    }

    private func dispatch(_ id: UInt64, _ events: UInt32, _ scratch: UnsafeMutableRawBufferPointer, _ again: inout [UInt64]) {
        guard let source = sources.withLock({ $0[id] }) else { return }  // closed since the event
        if source.handleEvents(events, scratch: scratch) { again.append(id) }
    }

    /// Runs the jobs, then the polls (the jobs' flushes among them) and closures queued so far.
    /// What they queue in turn waits for the next turn, after the sockets had theirs.
    private func drainInbox(woken: Bool, _ scratch: UnsafeMutableRawBufferPointer, _ again: inout [UInt64]) {
        if woken {
            var counter: UInt64 = 0
            _ = systemCall { Glibc.read(wakeFD, &counter, 8) }
        }
        let jobs = inbox.withLock { inbox in
            // Only after reading the eventfd: a writer that saw the flag set relies on that read
            // being still to come, or on this drain taking its work.
            if woken { inbox.wakePending = false }
            defer { inbox.jobs.removeAll(keepingCapacity: true) }
            return inbox.jobs
        }
        if !jobs.isEmpty {
            runningJobs.store(true, ordering: .relaxed)
            let executor = asUnownedTaskExecutor()
            for job in jobs { job.runSynchronously(on: executor) }
            runningJobs.store(false, ordering: .relaxed)
        }
        let (work, polls) = inbox.withLock { inbox in
            defer {
                inbox.work.removeAll()
                inbox.polls.removeAll()
            }
            return (inbox.work, inbox.polls)
        }
        for (id, events) in polls { dispatch(id, events, scratch, &again) }
        for item in work { item() }
    }

    private func fireDueTimers() {
        let now = ContinuousClock.now
        let due = inbox.withLock { inbox -> [PendingTimer] in
            let count = inbox.timers.prefix { $0.deadline <= now }.count
            defer { inbox.timers.removeFirst(count) }
            return Array(inbox.timers.prefix(count))
        }
        for timer in due { timer.work() }
    }

    /// epoll_wait's timeout: -1 with no timers, else the milliseconds to the earliest, rounded up.
    private func millisecondsUntilNextTimer() -> Int32 {
        guard let deadline = inbox.withLock({ $0.timers.first?.deadline }) else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline)
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
