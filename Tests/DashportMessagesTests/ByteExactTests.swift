import DashportMessages
import Testing

/// Encodings checked against bytes derived by hand from the proto2 wire format
/// (tag = field number << 3 | wire type; varints little-endian base 128; sint32 zigzag).
@Suite struct ByteExactTests {
    @Test func authCompleteOK() {
        // field 1 varint (0x08), value 0: aap-protocol.md §2.5.
        #expect(AAP.AuthResponse(status: 0).serializedBytes() == [0x08, 0x00])
    }

    @Test func channelOpenRequest() {
        // 1: sint32 priority 0 → 08 00; 2: int32 service_id 13 → 10 0d.
        #expect(AAP.ChannelOpenRequest(priority: 0, serviceId: 13).serializedBytes() == [0x08, 0x00, 0x10, 0x0D])
        // priority -1 zigzags to 1, not to a 10-byte varint.
        #expect(AAP.ChannelOpenRequest(priority: -1, serviceId: 2).serializedBytes() == [0x08, 0x01, 0x10, 0x02])
    }

    @Test func pingRequestTimestamp() {
        // 300 = 0b10_0101100 → ac 02.
        #expect(AAP.PingRequest(timestamp: 300).serializedBytes() == [0x08, 0xAC, 0x02])
        // 1_000_000 = 0x0F4240 → c0 84 3d.
        #expect(AAP.PingRequest(timestamp: 1_000_000).serializedBytes() == [0x08, 0xC0, 0x84, 0x3D])
        // A required field is written even when it is zero (strict writer, aap-protocol.md §6 #1).
        #expect(AAP.PingRequest().serializedBytes() == [0x08, 0x00])
        #expect(AAP.PingResponse(timestamp: 300, data: [0xAB]).serializedBytes() == [0x08, 0xAC, 0x02, 0x12, 0x01, 0xAB])
    }

    @Test func negativeMessageStatusIsATenByteVarint() {
        // -4 as a 64-bit two's complement varint: fc ff ff ff ff ff ff ff ff 01.
        let bytes = AAP.ChannelOpenResponse(status: .invalidService).serializedBytes()
        #expect(bytes == [0x08, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(
            AAP.KeyBindingResponse(status: .keycodeNotBound).serializedBytes()
                == [0x08, 0xEE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func keyBindingRequestIsPacked() {
        // field 1 length-delimited (0x0a), 3 bytes: 85 87 88.
        #expect(AAP.KeyBindingRequest(keycodes: [85, 87, 88]).serializedBytes() == [0x0A, 0x03, 0x55, 0x57, 0x58])
        #expect(AAP.KeyBindingRequest().serializedBytes() == [])
    }

    @Test func sensorRequestWritesBothRequiredFields() {
        let bytes = AAP.SensorRequest(type: .drivingStatus, minUpdatePeriod: 0).serializedBytes()
        #expect(bytes == [0x08, 0x0D, 0x10, 0x00])
    }

    @Test func mediaGetNodeDefaultIsNotWritten() {
        let node = AAP.MediaGetNode(path: "")
        #expect(node.serializedBytes() == [0x0A, 0x00])
        #expect(node.getAlbumArt == nil)
        #expect(node.getAlbumArtOrDefault)
        #expect(AAP.MediaGetNode(path: "/", getAlbumArt: false).serializedBytes() == [0x0A, 0x01, 0x2F, 0x18, 0x00])
    }

    @Test func vendorExtensionService() {
        let service = AAP.Service(id: 16, vendorExtensionService: .init(name: "dashport.media", data: [1, 2]))
        let inner = Proto.field(1, "dashport.media") + Proto.field(3, bytes: [1, 2])
        #expect(service.serializedBytes() == [0x08, 0x10] + Proto.field(12, bytes: inner))
    }

    @Test func playbackMetadataStrings() {
        let metadata = AAP.MediaPlaybackMetadata(song: "Hé", durationSeconds: 200)
        // "Hé" is 48 c3 a9 in UTF-8; 200 = c8 01.
        #expect(metadata.serializedBytes() == [0x0A, 0x03, 0x48, 0xC3, 0xA9, 0x30, 0xC8, 0x01])
    }
}
