import DashportEmulator
import DashportLog
import DashportTestSupport
import DashportTransport
import DashportWebEmulator
import Synchronization
import Testing

/// ``WebCar`` without a phone: it says why it is not linked and keeps trying.
@Suite struct WebCarReconnectTests {
    struct NoPhone: Error, CustomStringConvertible {
        var description: String { "no phone at 127.0.0.1:1" }
    }

    @Test
    func aMissingPhoneIsReconnectingWithTheReason() async throws {
        let attempts = Atomic<Int>(0)
        let car = WebCar(
            connector: { _ in
                attempts.add(1, ordering: .relaxed)
                throw NoPhone()
            }, logger: .silent)
        await car.start()
        try await eventually("a second attempt") { attempts.load(ordering: .relaxed) >= 2 }
        let snapshot = await car.snapshot()
        let connection = try #require(snapshot.first { $0.0 == "connection" }?.1)
        #expect(connection.text.contains("\"state\":\"reconnecting\""))
        #expect(connection.text.contains("\"reason\":\"no phone at 127.0.0.1:1\""))
        #expect(await car.linkedSession == nil)
        await car.stop()
        let stopped = try #require(await car.snapshot().first { $0.0 == "connection" }?.1)
        #expect(stopped.text.contains("\"state\":\"stopped\""))
    }
}
