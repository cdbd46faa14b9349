import DashportFrames
import Testing

/// Byte-exact fixtures, both directions, and the decoder verifier over each of them.
@Suite struct FixtureTests {
    @Test(arguments: FrameFixture.all)
    func encodingExpectedFramesGivesTheFixtureBytes(_ fixture: FrameFixture) throws {
        let bytes = try Fixtures.bytes(fixture.file)
        #expect(fixture.frames.flatMap { $0.encoded() } == bytes)
    }

    @Test(arguments: FrameFixture.all)
    func decoderGivesTheSameFramesHoweverTheBytesAreSplit(_ fixture: FrameFixture) throws {
        let bytes = try Fixtures.bytes(fixture.file)
        FrameDecoderVerifier.verify(bytes, frames: fixture.frames)
    }

    @Test(arguments: FrameFixture.all.filter { $0.messages != nil })
    func plaintextFixturesReassembleIntoTheirMessages(_ fixture: FrameFixture) throws {
        let bytes = try Fixtures.bytes(fixture.file)
        let frames = FrameDecoderVerifier.decode(bytes, plan: .allAtOnce).frames
        #expect(try assemble(frames) == fixture.messages)
    }

    /// All fixtures back to back form one valid stream; the verifier must split it the same way.
    @Test func concatenatedFixturesDecodeAsOneStream() throws {
        let bytes = try FrameFixture.all.flatMap { try Fixtures.bytes($0.file) }
        FrameDecoderVerifier.verify(bytes, frames: FrameFixture.all.flatMap(\.frames))
    }

    @Test func versionRequestIsTheDocumentedTenBytes() throws {
        #expect(try Fixtures.bytes("version-request.hex") == [0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06])
        let message = try #require(FrameFixture.versionRequest.messages?.first)
        #expect(message.messageId == 1)
        #expect(Array(message.body) == [0x00, 0x01, 0x00, 0x06])
        #expect(message.encrypted == false)
    }

    @Test func fragmenterFramesVersionResponseAsTheFixture() throws {
        let frames = Fragmenter.plaintextFrames(channel: 0, message: FrameFixture.versionResponseMessage)
        #expect(frames.flatMap { $0.encoded() } == (try Fixtures.bytes("version-response.hex")))
    }

    @Test func fragmenterCutsTheFortyThousandByteMessageAsTheFixture() throws {
        let frames = Fragmenter.plaintextFrames(channel: 13, message: FrameFixture.message40000)
        #expect(frames == FrameFixture.triple40000.frames)
        #expect(frames.flatMap { $0.encoded() } == (try Fixtures.bytes("message-40000-first-middle-last.bin")))
    }

    @Test func fragmenterFlagsMatchTheEncryptedControlFixture() throws {
        let fragments = Fragmenter.fragments(channel: 8, message: [0x00, 0x08, 0x08, 0x00], encrypted: true, control: true)
        let fragment = try #require(fragments.first)
        #expect(fragments.count == 1)
        let frame = Fragmenter.frame(fragment, wirePayload: syntheticTLSRecord(plaintextCount: 4, seed: 17))
        #expect(frame.encoded() == (try Fixtures.bytes("encrypted-control.hex")))
    }
}
