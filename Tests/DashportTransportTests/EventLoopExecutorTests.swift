import DashportTestSupport
import Dispatch
import DashportTransport
import Synchronization
import Testing

/// The reactor as the executor of the tasks that serve its connections (EventLoop+TaskExecutor).
@Suite struct EventLoopExecutorTests {
    @Test("a task that prefers the loop runs on the reactor thread, across suspensions")
    func taskRunsOnTheReactor() async throws {
        let loop = try EventLoop(name: "test-executor")
        let onLoop = await Task.detached(executorPreference: loop) { () -> [Bool] in
            var seen = [loop.isCurrentThread]
            await Task.yield()
            seen.append(loop.isCurrentThread)
            // Resumed by another thread: the job comes back to the reactor, through its eventfd.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { continuation.resume() }
            }
            seen.append(loop.isCurrentThread)
            return seen
        }.value
        #expect(onLoop == [true, true, true])
    }

    @Test("a job queued by the reactor itself runs without an eventfd wake (nothing else wakes the loop)")
    func jobQueuedOnTheLoopRuns() async throws {
        let loop = try EventLoop(name: "test-executor-local")
        let done = Watched(false)
        // Resumed from a closure on the reactor: the job is queued on the loop's own thread, which
        // writes no eventfd; the loop must still run it before it sleeps (it has no timers).
        loop.execute {
            Task.detached(executorPreference: loop) {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    loop.execute { continuation.resume() }
                }
                done.update { $0 = loop.isCurrentThread }
            }
        }
        #expect(try await done.wait("the task to finish on the loop") { $0 })
    }

    @Test("a task that keeps yielding on the loop does not starve its sockets, closures or timers")
    func yieldingTaskDoesNotStarveTheLoop() async throws {
        let loop = try EventLoop(name: "test-executor-fair")
        let stop = Atomic<Bool>(false)
        let spins = Atomic<Int>(0)
        let spinner = Task.detached(executorPreference: loop) {
            while !stop.load(ordering: .relaxed) {
                spins.add(1, ordering: .relaxed)
                await Task.yield()
            }
        }
        let ran = Watched<[String]>([])
        loop.execute { ran.update { $0.append("closure") } }
        loop.scheduleTimer(after: .milliseconds(5)) { ran.update { $0.append("timer") } }
        let server = try EchoServer()
        let connection = try await TCPClient.connect(to: server.address, loop: loop)
        let probe = Probe()
        connection.start(probe.handler)
        connection.write(pattern(100_000))
        try await probe.waitForBytes(100_000)
        let result = try await ran.wait("the closure and the timer to run") { $0.count == 2 }
        stop.store(true, ordering: .relaxed)
        await spinner.value
        #expect(result == ["closure", "timer"])
        #expect(probe.received.value.bytes == pattern(100_000))
        #expect(spins.load(ordering: .relaxed) > 0)
        connection.abort()
    }

    @Test("a task on the loop that writes many answers in one turn has them all sent, in order, on the reactor")
    func writesFromJobsAreFlushedTogether() async throws {
        let server = try EchoServer(echo: false)
        let offReactorBefore = EventLoop.socketCallsOffReactor
        let connection = try await TCPClient.connect(to: server.address)
        let accepted = try await server.connection(0)
        let chunks = (0..<200).map { pattern(1_000, seed: $0) }
        await Task.detached(executorPreference: connection.preferredExecutor) {
            for chunk in chunks { connection.write(chunk) }
        }.value
        try await accepted.probe.waitForBytes(200_000)
        #expect(accepted.probe.received.value.bytes == chunks.flatMap { $0 })
        #expect(EventLoop.socketCallsOffReactor == offReactorBefore)
        connection.abort()
    }
}
