import DashportTestSupport
import Synchronization
import Testing
import DashportLog
@testable import DashportServer

/// The pending-versus-linked budget (issue 11 item 4), as a unit: who is closed to make room.
@Suite struct HandshakeAdmissionTests {
    final class Aborts: Sendable {
        let closed = Mutex<[String]>([])
        func abort(_ peer: String) -> @Sendable () -> Void { { [self] in closed.withLock { $0.append(peer) } } }
        var all: [String] { closed.withLock { $0 } }
    }

    func make(linked: Int = 2, pending: Int = 3, perAddress: Int = 2) -> (HandshakeAdmission, CollectingSink) {
        let sink = CollectingSink()
        let admission = HandshakeAdmission(
            limits: .init(maxLinked: linked, maxPending: pending, maxPendingPerAddress: perAddress),
            logger: Logger(label: "admission", level: .debug, sink: sink))
        return (admission, sink)
    }

    @Test func aFullBudgetClosesTheOldestPendingConnection() throws {
        let (admission, log) = make(pending: 3, perAddress: 10)
        let aborts = Aborts()
        var tickets: [UInt64] = []
        for index in 0..<6 {
            tickets.append(try #require(admission.admit(host: "10.0.0.\(index)", peer: "p\(index)", abort: aborts.abort("p\(index)"))))
        }
        #expect(aborts.all == ["p0", "p1", "p2"])
        #expect(admission.pendingCount == 3)
        // Logged once for the flood, with its cause, then quietly.
        #expect(log.records.filter { $0.level == .warning }.count == 1)
        #expect(log.contains(.warning, "3 connections are already in the handshake"))
        for ticket in tickets { admission.finished(ticket) }
        #expect(log.contains(.notice, "3 connection(s) that had not finished the handshake were closed"))
    }

    @Test func oneAddressOnlyDisplacesItsOwnConnections() {
        let (admission, _) = make(pending: 4, perAddress: 2)
        let aborts = Aborts()
        _ = admission.admit(host: "10.0.0.1", peer: "car", abort: aborts.abort("car"))
        for index in 0..<5 {
            _ = admission.admit(host: "10.0.0.66", peer: "flood\(index)", abort: aborts.abort("flood\(index)"))
        }
        #expect(aborts.all == ["flood0", "flood1", "flood2"])
        #expect(admission.pendingCount == 3)
    }

    @Test func aLinkedCarIsNeverDisplacedAndHasItsOwnSlots() throws {
        let (admission, _) = make(linked: 2, pending: 2, perAddress: 2)
        let aborts = Aborts()
        let first = try #require(admission.admit(host: "h", peer: "car1", abort: aborts.abort("car1")))
        #expect(admission.authenticated(first) == .linked)
        for index in 0..<10 { _ = admission.admit(host: "h", peer: "idle\(index)", abort: aborts.abort("idle\(index)")) }
        #expect(!aborts.all.contains("car1"))
        #expect(aborts.all.count == 8)
        let second = try #require(admission.admit(host: "h", peer: "car2", abort: aborts.abort("car2")))
        #expect(admission.authenticated(second) == .linked)
        #expect(admission.linkedCount == 2)
        let third = try #require(admission.admit(host: "h", peer: "car3", abort: aborts.abort("car3")))
        #expect(admission.authenticated(third) == .full(limit: 2))
        admission.finished(first)
        let fourth = try #require(admission.admit(host: "h", peer: "car4", abort: aborts.abort("car4")))
        #expect(admission.authenticated(fourth) == .linked)
    }

    @Test func aConnectionClosedToMakeRoomIsGoneWhenItAuthenticates() throws {
        let (admission, _) = make(pending: 1, perAddress: 1)
        let aborts = Aborts()
        let old = try #require(admission.admit(host: "h", peer: "old", abort: aborts.abort("old")))
        _ = admission.admit(host: "h", peer: "new", abort: aborts.abort("new"))
        #expect(admission.authenticated(old) == .gone)
        #expect(admission.linkedCount == 0)
    }

    /// A socket that has sent nothing valid goes before a car in the middle of its handshake,
    /// whatever their ages; when everyone pending has made progress the newcomer is refused, so
    /// a car that keeps sending valid steps links under any connect flood (issue 23 item 2).
    @Test func connectionsMakingProgressAreKeptAndANewcomerWaits() throws {
        let (admission, log) = make(linked: 4, pending: 2, perAddress: 10)
        let aborts = Aborts()
        let slowCar = try #require(admission.admit(host: "127.0.0.1", peer: "slow-car", abort: aborts.abort("slow-car")))
        admission.progressed(slowCar, to: 1)  // version exchanged, TLS under way
        for index in 0..<500 { _ = admission.admit(host: "127.0.0.1", peer: "bare\(index)", abort: aborts.abort("bare\(index)")) }
        #expect(!aborts.all.contains("slow-car"))
        #expect(aborts.all.count == 499, "each bare socket pushes out the previous one, never the car")
        let other = try #require(admission.admit(host: "127.0.0.1", peer: "car2", abort: aborts.abort("car2")))
        admission.progressed(other, to: 1)
        // Both slots now hold cars making progress: the next bare socket is refused, not admitted.
        #expect(admission.admit(host: "127.0.0.1", peer: "late", abort: aborts.abort("late")) == nil)
        #expect(log.contains(nil, "every connection in the handshake is making progress"))
        #expect(admission.authenticated(slowCar) == .linked)
        #expect(admission.authenticated(other) == .linked)
    }

    /// One address holds at most its share of the linked slots; `linkedPerAddress` says who holds them.
    @Test func oneAddressHoldsAtMostItsShareOfTheLinkedSlots() throws {
        let admission = HandshakeAdmission(
            limits: .init(maxLinked: 10, maxPending: 10, maxPendingPerAddress: 10, maxLinkedPerAddress: 2), logger: .silent)
        func link(_ host: String) throws -> HandshakeAdmission.Verdict {
            let ticket = admission.admit(host: host, peer: host, abort: {})
            return admission.authenticated(try #require(ticket))
        }
        #expect(try (0..<3).map { _ in try link("127.0.0.1") } == [.linked, .linked, .fullForAddress(limit: 2, host: "127.0.0.1")])
        #expect(try link("10.0.0.9") == .linked)
        #expect(admission.linkedPerAddress.map(\.host) == ["127.0.0.1", "10.0.0.9"])
        #expect(admission.linkedPerAddress.map(\.cars) == [2, 1])
    }
}
