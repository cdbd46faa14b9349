import DashportTestSupport
import Foundation
import Testing
import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTransport
@testable import DashportServer

/// The whole stack over real TCP on loopback: a car-role link against `DashportServer`.
@Suite("Link over TCP", .serialized)
struct LinkOverTCPTests {
    @Test func aCarCompletesTheLinkSeesPingsAndItsByeByeIsAnswered() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address)
            try await car.waitUntil("channels open and two pings") { $0.openedChannels.count == 5 && $0.pingsReceived >= 2 }

            #expect(await car.version == AAPVersion(major: 1, minor: 6))
            let tls = try #require(await car.tls)
            #expect(tls.version == "TLSv1.2")
            #expect(tls.cipher.contains("AES") && tls.cipher.contains("GCM"))
            #expect(tls.peerFingerprint == server.server.certificateFingerprint)
            #expect(await car.openedChannels == [4, 8, 13, 15, 16])

            await car.sayByeBye()
            try await car.waitUntil("bye-bye answered") { $0.closeReason != nil }
            #expect(await car.closeReason == .byeBye(answered: true))
            try await server.waitForLog("link closed")
        }
    }

    @Test func shutdownSaysByeByeToEveryConnectedCar() async throws {
        let server = try await TestServer.start()
        var cars: [TestCar] = []
        for _ in 0..<3 { cars.append(try await TestCar.connect(to: server.server.address)) }
        for car in cars { try await car.waitUntil("channels open") { $0.openedChannels.count == 5 } }
        #expect(server.server.connectionCount == 3)
        await server.stop()
        for car in cars {
            try await car.waitUntil("bye-bye from the server") { $0.byeByeReceived }
        }
        #expect(server.server.connectionCount == 0)
    }

    @Test func twoHundredCarsCompleteTheLinkAtOnce() async throws {
        // 200 handshakes at once from one host: more than the default budget of 64 in the handshake.
        try await TestServer.with(configure: {
            $0.maxConnections = 256
            $0.maxPendingConnections = 256
            $0.maxCarsPerAddress = 256  // every car is 127.0.0.1
        }) { server in
            let cars = try await withThrowingTaskGroup(of: TestCar.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await TestCar.connect(to: server.server.address) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for car in cars {
                try await car.waitUntil("channels open", timeout: .seconds(120)) { $0.openedChannels.count == 5 }
            }
            #expect(server.server.connectionCount == 200)
            for car in cars { await car.abort() }
        }
    }

    @Test func aCarThatStaysSilentIsClosedAfterTheHandshakeDeadline() async throws {
        try await TestServer.with(configure: { $0.handshakeTimeoutSeconds = 0.3 }) { server in
            let silent = try await TestCar.connect(to: server.server.address, startLink: false)
            try await silent.waitUntil("server closes the silent car") { $0.transportClosed }
            try await server.waitForLog("handshake deadline passed")
        }
    }
}
