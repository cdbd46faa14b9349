import Dispatch
import Synchronization
import Testing
import DashportLog

@Suite("Asynchronous log sink")
struct AsyncLogSinkTests {
    /// A stalled log output (a full stderr pipe) must never block the caller: lines past the
    /// capacity are dropped, counted and reported once the output moves again.
    @Test func aStalledOutputDropsAndCountsInsteadOfBlocking() async throws {
        let gate = DispatchSemaphore(value: 0)
        let lines = Mutex<[String]>([])
        let firstCall = Mutex(false)
        let sink = AsyncLogSink(capacity: 4) { line in
            let first = firstCall.withLock { called -> Bool in
                defer { called = true }
                return !called
            }
            if first { gate.wait() }  // the output stalls on its first line
            lines.withLock { $0.append(line) }
        }
        let logger = Logger(label: "test", sink: sink)
        logger.info("line 0")
        while !firstCall.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        for index in 1...10 { logger.info("line \(index)") }  // returns at once although nothing is written
        #expect(sink.droppedCount == 6)
        gate.signal()
        sink.flush(timeout: .seconds(30))
        let written = lines.withLock { $0 }
        #expect(written.count == 6)
        #expect(written.prefix(5).enumerated().allSatisfy { $0.element.contains("line \($0.offset)") })
        #expect(written.last?.contains("dropped 6 log lines") == true)
    }

    /// The writer empties its malloc cache on its own thread, after the lines queued before the
    /// request, and goes on writing afterwards (the server asks it at rest, before a trim).
    @Test(.timeLimit(.minutes(1))) func theWriterReleasesItsCacheAfterTheQueuedLines() async throws {
        let gate = DispatchSemaphore(value: 0)
        let lines = Mutex<[String]>([])
        let sink = AsyncLogSink { line in
            if line.contains("stall") { gate.wait() }
            lines.withLock { $0.append(line) }
        }
        let logger = Logger(label: "test", sink: sink)
        logger.info("stall here")
        let released = Mutex(false)
        let release = Task {
            await sink.releaseWriterThreadCache()
            released.withLock { $0 = true }
        }
        // The writer is held in the output: the release cannot have run yet.
        #expect(released.withLock { $0 } == false)
        gate.signal()
        await release.value
        logger.info("after the release")
        sink.flush(timeout: .seconds(30))
        #expect(lines.withLock { $0 }.map { $0.contains("stall here") || $0.contains("after the release") } == [true, true])
    }
}
