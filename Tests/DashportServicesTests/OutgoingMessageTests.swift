import Testing
import DashportMessages
@testable import DashportServices

@Test func outgoingMessageCarriesTheSerializedBody() {
    let ping = AAP.PingRequest(timestamp: 5)
    let message = OutgoingMessage(channel: 3, messageId: 11, message: ping)
    #expect(message.body == ping.serializedBytes())
    #expect(message.channel == 3)
    #expect(message.messageId == 11)
}
