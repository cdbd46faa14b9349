import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportHeadUnit
import DashportTransport
import DashportLog
@testable import DashportServer

/// Issue 11 item 4 over real loopback TCP: sockets that connect and never finish the handshake
/// cannot lock cars out; they only push out each other, oldest first.
@Suite(.serialized) struct ConnectionFloodOverTCPTests {
    /// Raw TCP connections that send nothing, each recording whether the server closed it.
    final class IdleSockets: Sendable {
        let connections = Mutex<[TCPConnection]>([])
        let closed = Mutex<Set<Int>>([])

        func open(_ count: Int, to address: ListenAddress) async throws {
            for _ in 0..<count {
                let connection = try await TCPClient.connect(to: address)
                let index = connections.withLock {
                    $0.append(connection)
                    return $0.count - 1
                }
                connection.start { [self] event in
                    if case .closed = event { self.closed.withLock { _ = $0.insert(index) } }
                }
            }
        }

        var closedIndices: Set<Int> { closed.withLock { $0 } }

        func waitForClosed(atLeast count: Int) async throws {
            try await eventually("\(count) idle sockets closed") { closedIndices.count >= count }
        }

        func abortAll() { connections.withLock { $0.forEach { $0.abort() } } }
    }

    func linked(_ car: TestCar) async throws {
        try await car.waitUntil("channels open") { $0.openedChannels.count >= 3 }
    }

    @Test func twoHundredFiftySixIdleSocketsThenARealCarStillLinks() async throws {
        try await TestServer.with { server in
            let idle = IdleSockets()
            defer { idle.abortAll() }
            try await idle.open(256, to: server.server.address)
            // The defaults hold 64 connections in the handshake: all but the newest 64 were closed.
            try await idle.waitForClosed(atLeast: 256 - 64)

            let car = try await TestCar.connect(to: server.server.address)
            try await linked(car)
            #expect(!(await car.transportClosed))
            #expect(server.log.contains(.warning, "closing the oldest connection still in the handshake"))
            #expect(
                server.log.records.filter {
                    $0.message.contains("closing the oldest connection still in the handshake") && $0.level == .warning
                }.count == 1,
                "a flood is logged once, not once per socket")
            await car.abort()
        }
    }

    @Test func linkedCarsAreNeverPushedOutByAFloodFromTheirOwnAddress() async throws {
        try await TestServer.with(configure: {
            $0.maxConnections = 4
            $0.maxPendingConnections = 8
            $0.maxPendingPerAddress = 8
            $0.limitPendingPerLoopbackAddress = true
        }) { server in
            var cars: [TestCar] = []
            for _ in 0..<3 {
                let car = try await TestCar.connect(to: server.server.address)
                try await linked(car)
                cars.append(car)
            }
            let idle = IdleSockets()
            defer { idle.abortAll() }
            try await idle.open(100, to: server.server.address)
            try await idle.waitForClosed(atLeast: 100 - 8)
            for car in cars {
                let pings = await car.pingsReceived
                try await car.waitUntil("another ping from the phone") { $0.pingsReceived > pings }
                #expect(!(await car.transportClosed))
            }
            // A fourth car arriving during the flood links: it is the newest pending connection.
            let fourth = try await TestCar.connect(to: server.server.address)
            try await linked(fourth)
            cars.append(fourth)
            // Once the flood is gone, a fifth car finishes its handshake but the four linked slots are
            // taken: it is closed then, and the log says why.
            idle.abortAll()
            try await server.waitForLog("handshake flood over")
            let fifth = try await TestCar.connect(to: server.server.address)
            try await fifth.waitUntil("the cap closes it") { $0.transportClosed }
            #expect(server.log.contains(.warning, "4 cars are linked already"))
            for car in cars { await car.abort() }
        }
    }

    /// Issue 23 item 2: a car between handshake steps (version exchanged, TLS not started yet, as on
    /// a slow bus) is kept while bare connects from its own address thrash the pending budget: they
    /// push out each other, never the car that has made progress.
    @Test func aCarMidHandshakeOutlivesAConnectThrashFromItsOwnAddress() async throws {
        try await TestServer.with(configure: { $0.maxPendingConnections = 4 }) { server in
            let car = try await TCPClient.connect(to: server.server.address)
            let answers = Mutex<[UInt8]>([])
            let closed = Mutex(false)
            car.start { event in
                switch event {
                case .received(let bytes): answers.withLock { $0 += bytes }
                case .closed: closed.withLock { $0 = true }
                }
            }
            car.write([0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06])  // VERSION_REQUEST 1.6
            try await eventually("the version response") { answers.withLock { $0.count } >= 10 }
            let idle = IdleSockets()
            defer { idle.abortAll() }
            try await idle.open(200, to: server.server.address)
            // Every bare socket but the newest three made room for another; the car kept its place.
            try await idle.waitForClosed(atLeast: 200 - 3)
            #expect(!closed.withLock { $0 }, "the car that had exchanged versions was pushed out")
            #expect(server.log.contains(.warning, "closing the oldest connection still in the handshake"))
            car.abort()
        }
    }

    @Test func loopbackPeersShareOnlyTheOverallBudget() async throws {
        try await TestServer.with(configure: {
            $0.maxPendingPerAddress = 2
            $0.maxPendingConnections = 6
        }) { server in
            let idle = IdleSockets()
            defer { idle.abortAll() }
            try await idle.open(10, to: server.server.address)
            try await idle.waitForClosed(atLeast: 4)
            #expect(idle.closedIndices == Set(0..<4))
        }
    }

    @Test func theOldestPendingConnectionOfAnAddressGoesFirst() async throws {
        try await TestServer.with(configure: {
            $0.maxPendingPerAddress = 4
            $0.limitPendingPerLoopbackAddress = true
        }) { server in
            let idle = IdleSockets()
            defer { idle.abortAll() }
            try await idle.open(10, to: server.server.address)
            try await idle.waitForClosed(atLeast: 6)
            #expect(idle.closedIndices == Set(0..<6))
            let car = try await TestCar.connect(to: server.server.address)
            try await linked(car)
            await car.abort()
        }
    }
}
