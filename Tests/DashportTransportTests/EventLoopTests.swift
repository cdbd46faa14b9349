import DashportTestSupport
import DashportTransport
import Synchronization
import Testing

@Suite struct EventLoopTests {
    @Test func executeRunsWorkInOrderOnTheReactorThread() async throws {
        let loop = EventLoop.shared
        let order = Watched<[Int]>([])
        for index in 0..<100 { loop.execute { order.update { $0.append(index) } } }
        let ran = try await order.wait("100 closures to run") { $0.count == 100 }
        #expect(ran == Array(0..<100))
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesNever() async throws {
        let loop = try EventLoop(name: "test-timers")
        let fired = Watched<[String]>([])
        let cancelled = loop.scheduleTimer(after: .milliseconds(1)) { fired.update { $0.append("cancelled") } }
        cancelled.cancel()
        loop.scheduleTimer(after: .milliseconds(30)) { fired.update { $0.append("late") } }
        loop.scheduleTimer(after: .milliseconds(5)) { fired.update { $0.append("early") } }
        let result = try await fired.wait("both timers to fire") { $0.count >= 2 }
        await settle(loop)
        #expect(result == ["early", "late"])
        #expect(fired.value == ["early", "late"])
    }
}
