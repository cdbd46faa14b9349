import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportTransport
import DashportMessages
@testable import DashportServer

/// Bad input from one car closes that car's connection with a logged reason; a good car linked at
/// the same time keeps its session (it goes on receiving pings).
@Suite("Malformed input over TCP", .serialized)
struct MalformedInputTests {
    enum Misbehaviour: String, CaseIterable, CustomTestStringConvertible {
        case garbageBeforeVersion, lengthField65535, frameOnUnlistedChannel, plaintextAfterTLS
        case messageOnUnopenedChannel, tlsGarbage, disconnectMidFrame

        var testDescription: String { rawValue }

        /// What the server's log says when it closes this car.
        var logged: String {
            switch self {
            case .garbageBeforeVersion: "not an AAP head unit"
            case .lengthField65535: "bad frame"
            case .frameOnUnlistedChannel: "never listed"
            case .plaintextAfterTLS: "only AUTH_COMPLETE and pings may be sent in the clear"
            case .messageOnUnopenedChannel: "which is not open"
            case .tlsGarbage: "TLS handshake failed"
            case .disconnectMidFrame: "during running"
            }
        }

        /// Whether the bad car first completes the link normally.
        var linksFirst: Bool {
            switch self {
            case .garbageBeforeVersion, .tlsGarbage: false
            default: true
            }
        }
    }

    /// A car that also lists a sensor service on channel 1, which Dashport does not open.
    static let carWithSensor: HeadUnitConfiguration = {
        var configuration = HeadUnitConfiguration()
        configuration.car.services.append(CarService(channel: 1, kind: .sensor(types: [.drivingStatus])))
        return configuration
    }()

    @Test(arguments: Misbehaviour.allCases)
    func badInputClosesOnlyThatConnection(_ misbehaviour: Misbehaviour) async throws {
        try await TestServer.with { server in
            let good = try await TestCar.connect(to: server.server.address)
            try await good.waitUntil("good car linked") { $0.openedChannels.count == 5 }

            let bad = try await TestCar.connect(
                to: server.server.address, configuration: Self.carWithSensor, startLink: misbehaviour.linksFirst)
            if misbehaviour.linksFirst {
                try await bad.waitUntil("bad car linked") { $0.openedChannels.count == 5 }
            }
            switch misbehaviour {
            case .garbageBeforeVersion:
                await bad.writeRaw(Array("GET / HTTP/1.1\r\nHost: dashport\r\n\r\n".utf8))
            case .lengthField65535:
                await bad.writeRaw([0x00, 0x0B, 0xFF, 0xFF] + [UInt8](repeating: 0x41, count: 64))
            case .frameOnUnlistedChannel:
                await bad.sendUnchecked(channel: 42, messageId: 0x8001, body: [1, 2, 3])
            case .plaintextAfterTLS:
                // A clear MIDDLE frame on a linked car's channel: injected, since it is not encrypted.
                await bad.writeRaw([13, 0x00, 0x00, 0x02, 0xAA, 0xBB])
            case .messageOnUnopenedChannel:
                await bad.sendUnchecked(channel: 1, messageId: 0x8003, body: [0x08, 0x01])
            case .tlsGarbage:
                // VERSION_REQUEST 1.6, then an ENCAPSULATED_SSL that is not TLS at all.
                await bad.writeRaw([0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06])
                await bad.writeRaw([0x00, 0x03, 0x00, 0x0A, 0x00, 0x03] + Array("NOT-TLS!".utf8))
            case .disconnectMidFrame:
                await bad.freeze()  // nothing of its own link's in between
                // Half of a 1000-byte frame: whatever else the car sends (a ping answer) only adds
                // to the payload, so the connection is lost mid-frame whenever the reset comes.
                await bad.writeRaw([13, 0x0B, 0x03, 0xE8] + [UInt8](repeating: 0x55, count: 500))
                await bad.abort()
            }

            try await server.waitForLog(misbehaviour.logged)
            if misbehaviour != .disconnectMidFrame {
                try await bad.waitUntil("server closes the bad car") { $0.transportClosed }
            }
            let pingsBefore = await good.pingsReceived
            try await good.waitUntil("good car still pinged") { $0.pingsReceived >= pingsBefore + 2 }
            #expect(await good.closeReason == nil)
            #expect(await !good.transportClosed)
            #expect(server.server.connectionCount == 1)
            await good.abort()
        }
    }
}
