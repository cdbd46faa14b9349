import DashportHeadUnit
import DashportMessages
import DashportTestSupport
import Testing
@testable import DashportServer

/// The server writes its TLS records in the order it encrypted them. A car's read can hold a
/// message a service answers at once (a request over the in-flight cap, answered `busy`) followed
/// by a PING_REQUEST, whose answer the link encrypts while decoding; the service's answer is
/// encrypted after that, when the server hands the link's events to the services. Written first,
/// it reached the car ahead of the PING_RESPONSE's record and the car's TLS refused it (bad
/// record MAC): the car lost its link.
@Suite("TLS record order over TCP", .serialized)
struct RecordOrderOverTCPTests {
    static let mediaChannel: UInt8 = 16

    @Test func answersToOneReadReachTheCarInTheOrderTheyWereEncrypted() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            defer { Task { await car.abort() } }
            try await car.waitUntil("linked, media channel open") { $0.openedChannels.contains(Self.mediaChannel) }
            // 40 GET_CHILDREN (the channel takes 32 in flight: 8 are answered busy at once), then a ping.
            let requests = (1...40).map { id in
                (
                    channel: Self.mediaChannel, messageId: UInt16(DashportMedia.MessageId.getChildren.rawValue),
                    body: DashportMedia.GetChildren(requestId: UInt32(id), parentId: "no such id", page: 0, pageSize: 50)
                        .serializedBytes()
                )
            }
            await car.sendUncheckedTogether(requests + [(channel: 0, messageId: 11, body: [0x08, 0x01])])
            try await car.waitUntil("40 answers") { car in
                car.messages(on: Self.mediaChannel).count { $0.id == UInt16(DashportMedia.MessageId.browseResult.rawValue) } >= 40
            }
            #expect(await car.closeReason == nil)
            #expect(await !car.transportClosed)
        }
    }
}
