import DashportMessages
import Testing

/// Tolerant reader: what proto3-era or sloppy head units send still decodes; garbage does not.
@Suite struct TolerantDecodeTests {
    @Test func emptyAuthCompleteDecodesAsOK() throws {
        let auth = try AAP.AuthResponse(serializedBytes: [])
        #expect(auth.status == 0)
    }

    @Test func pingWithoutTimestampDecodes() throws {
        #expect(try AAP.PingRequest(serializedBytes: []).timestamp == 0)
        #expect(try AAP.PingRequest(serializedBytes: [0x10, 0x01]).bugReport == true)
    }

    @Test func omittedStatusReadsAsSuccessNotTheFirstDeclaredValue() throws {
        // A proto3 sender omits a zero status; MessageStatus declares UNSOLICITED_MESSAGE (1) first.
        #expect(try AAP.ChannelOpenResponse(serializedBytes: []).status == .success)
    }

    @Test func missingRequiredSubMessageReadsAsEmpty() throws {
        let node = try AAP.MediaSongNode(serializedBytes: Proto.field(3, 240))
        #expect(node.song == AAP.MediaSong())
        #expect(node.durationSeconds == 240)
    }

    @Test func unknownFieldsAreSkipped() throws {
        let bytes: [UInt8] = [0x08, 0x00] + Proto.field(100, 1) + Proto.field(101, bytes: [1, 2, 3])
        #expect(try AAP.AuthResponse(serializedBytes: bytes) == AAP.AuthResponse(status: 0))
    }

    @Test func unpackedRepeatedFieldIsAccepted() throws {
        // Some encoders write packable fields unpacked; the decoder takes both.
        let bytes = Proto.field(1, 85) + Proto.field(1, 87)
        #expect(try AAP.KeyBindingRequest(serializedBytes: bytes).keycodes == [85, 87])
    }

    @Test func decodesFromAnySliceOrCollection() throws {
        let framed: [UInt8] = [0x00, 0x0B, 0x08, 0xAC, 0x02]
        #expect(try AAP.PingRequest(serializedBytes: framed.dropFirst(2)).timestamp == 300)
        #expect(try AAP.PingRequest(serializedBytes: framed.dropFirst(2).reversed().reversed()).timestamp == 300)
    }

    @Test(arguments: [
        [0xFF] as [UInt8],  // tag with an unfinished varint
        [0x08],  // tag without its value
        [0x0A, 0x05, 0x01],  // length beyond the end
        [0x0A, 0x01, 0x00],  // field 1 is a varint, sent length-delimited
        [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // 11-byte varint
        [0x00, 0x00],  // field number 0
    ])
    func garbageIsRejectedNamingTheMessage(bytes: [UInt8]) {
        #expect {
            _ = try AAP.AuthResponse(serializedBytes: bytes)
        } throws: { error in
            guard let error = error as? WireDecodingError else { return false }
            return error.messageName == "dashport.aap.AuthResponse" && error.reason == .malformed
                && error.byteCount == bytes.count && error.description.contains("dashport.aap.AuthResponse")
        }
    }

    @Test func oversizedInputIsRefusedUnparsed() {
        let bytes = [UInt8](repeating: 0, count: WireLimits.maximumMessageBytes + 1)
        #expect(
            throws: WireDecodingError(
                messageName: "dashport.aap.MediaPlaybackMetadata",
                reason: .tooLarge(limit: WireLimits.maximumMessageBytes),
                byteCount: bytes.count
            )
        ) {
            _ = try AAP.MediaPlaybackMetadata(serializedBytes: bytes)
        }
    }

    @Test func invalidUTF8IsRepairedNotRejected() throws {
        let bytes = Proto.field(1, bytes: [0x41, 0xFF, 0x42])
        let service = try AAP.VendorExtensionService(serializedBytes: bytes)
        #expect(service.name == "A\u{FFFD}B")
    }
}
