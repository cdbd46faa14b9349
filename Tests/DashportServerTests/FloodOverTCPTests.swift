import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportLog
import DashportMessages
import DashportTransport
@testable import DashportServer

/// Issue 11 item 1: a peer that floods before the handshake costs a fixed amount and is still
/// closed by its own handshake deadline. Bounds are asserted on queued bytes, not on RSS.
@Suite("Flooding cars over TCP", .serialized)
struct FloodOverTCPTests {
    /// VERSION_REQUEST (1.6) in a plaintext control frame.
    static let versionRequest: [UInt8] = [0, 0x03, 0, 6, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]
    /// The FIRST fragment of a control message announcing 1,000,000 bytes, with 2 of them.
    static let firstFragment: [UInt8] = [0, 0x01, 0, 2, 0x00, 0x0F, 0x42, 0x40, 0x00, 0x01]

    @Test func aPeerFloodingEmptyMiddleFramesIsBoundedAndClosedByItsHandshakeDeadline() async throws {
        try await TestServer.with(configure: { $0.handshakeTimeoutSeconds = 1 }) { server in
            let client = try await TCPClient.connect(to: server.server.address)
            defer { client.abort() }
            let closed = Mutex(false)
            client.start { event in if case .closed = event { closed.withLock { $0 = true } } }
            client.write(Self.versionRequest + Self.firstFragment)
            let middles = [UInt8](repeating: 0, count: 64 * 1024)  // 16,384 empty MIDDLE frames
            var sent = 0, maxQueued = 0
            let clock = ContinuousClock()
            let start = clock.now
            while !closed.withLock({ $0 }) && clock.now - start < .seconds(60) {
                if client.outboundBufferedBytes < 256 * 1024 {
                    client.write(middles)
                    sent += middles.count
                    await Task.yield()  // the flood must not starve the other tests' tasks
                } else {
                    try await Task.sleep(for: .milliseconds(1))
                }
                maxQueued = max(maxQueued, server.server.queuedInboundBytes)
            }
            #expect(closed.withLock { $0 }, "the server closed the flooding peer")
            #expect(server.log.contains(nil, "handshake deadline passed"), "closed by the handshake deadline")
            // One car's inbox never holds more than its high-water mark plus one transport read.
            #expect(maxQueued <= CarMailbox.inboundHighWater + 64 * 1024, "queued \(maxQueued) of \(sent) sent")
            // Whether the server had to pause this peer depends on the machine's speed; that a full
            // inbox pauses reading is CarMailboxTests.aFloodingCarIsPausedNotBuffered.
        }
    }

    /// A linked car that floods plain pings (allowed in the clear after TLS): the server's inbox
    /// for it stays bounded however fast it sends, and a good car keeps being served.
    @Test func aLinkedCarFloodingPlainPingsIsHeldToItsInboxBound() async throws {
        try await TestServer.with { server in
            let flooder = try await TestCar.connect(to: server.server.address)
            defer { Task { await flooder.abort() } }
            try await flooder.waitUntil("linked") { $0.openedChannels.count == 4 }
            let body = AAP.PingRequest(timestamp: 1).serializedBytes()
            let message: [UInt8] = [0x00, 0x0B] + body  // PING_REQUEST
            let frame: [UInt8] = [0, 0x03, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
            var burst: [UInt8] = []
            while burst.count < 64 * 1024 { burst += frame }
            var sent = 0, maxQueued = 0
            while sent < 2 << 20 {  // about 200,000 pings
                if flooder.connection.outboundBufferedBytes < 512 * 1024 {
                    await flooder.writeRaw(burst)
                    sent += burst.count
                    await Task.yield()
                } else {
                    try await Task.sleep(for: .milliseconds(1))
                }
                maxQueued = max(maxQueued, server.server.queuedInboundBytes)
            }
            #expect(maxQueued <= CarMailbox.inboundHighWater + 64 * 1024, "queued \(maxQueued) of \(sent) sent")
            let good = try await TestCar.connect(to: server.server.address)
            defer { Task { await good.abort() } }
            try await good.waitUntil("a good car links beside the flooder") { $0.openedChannels.count == 4 }
        }
    }
}
