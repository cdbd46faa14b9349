import DashportMessages
import Testing

@Suite struct EnumTests {
    @Test func unknownValuesArePreservedThroughDecodeAndEncode() throws {
        let bytes: [UInt8] = [0x08, 0x2A]
        let response = try AAP.ChannelOpenResponse(serializedBytes: bytes)
        #expect(response.status.rawValue == 42)
        #expect(!AAP.MessageStatus.knownValues.contains(response.status))
        #expect(response.serializedBytes() == bytes)
        let bye = try AAP.ByeByeRequest(serializedBytes: [0x08, 0x63])
        #expect(bye.reason == AAP.ByeByeRequest.Reason(rawValue: 99))
    }

    @Test func namesDropTheEnumPrefix() {
        #expect(AAP.MessageStatus.success.rawValue == 0)
        #expect(AAP.MessageStatus.outOfMemory.rawValue == -255)
        #expect(AAP.ControlMessageType.authComplete.rawValue == 4)
        #expect(AAP.ControlMessageType.framingError.rawValue == 0xFFFF)
        #expect(AAP.MediaPlaybackStatusMessageId.metadata.rawValue == 0x8003)
        #expect(AAP.InputMessageId.keyBindingRequest.rawValue == 0x8002)
        #expect(AAP.SensorType.drivingStatus.rawValue == 13)
        #expect(AAP.MediaCodecType.audioPcm.rawValue == 1)
    }

    @Test func descriptionNamesKnownAndUnknownValues() {
        #expect(AAP.MessageStatus.keycodeNotBound.description == "keycodeNotBound")
        #expect(AAP.MessageStatus(rawValue: 7).description == "MessageStatus(7)")
    }

    @Test func knownValuesAreDistinctAndComplete() {
        let statuses = AAP.MessageStatus.knownValues
        #expect(statuses.count == 32)
        #expect(Set(statuses).count == statuses.count)
        #expect(AAP.ControlMessageType.knownValues.count == 27)
    }

    @Test func schemaDefaultOfAnEnumField() throws {
        let sink = try AAP.MediaSinkService(serializedBytes: [])
        #expect(sink.availableType == nil)
        #expect(sink.availableTypeOrDefault == .audioPcm)
    }
}
