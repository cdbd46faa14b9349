@testable import DashportFuzzLinkDrivers
import DashportLink
import DashportTestSupport
import Testing

/// FuzzLinkStream: the running link fed a plaintext stream whose encrypted frames the driver seals
/// as null records. These check that the sealing is the record format the link reads (the same
/// bytes as the hand-sealed stream seeds of Fixtures/link/generate.py) and that its seeds reach
/// the running link's dispatch.
@Suite struct LinkFuzzStreamTests {
    /// Sealing the plaintext seed gives exactly the bytes generate.py sealed by hand for the
    /// FuzzLinkRunning seed of the same messages (records numbered from 6, where setup leaves the phone).
    @Test func sealingMatchesTheHandSealedSeed() throws {
        let plain = try FuzzReplay.keptInput("seed-plain-input-keys.bin")
        let sealed = try FuzzReplay.keptInput("seed-stream-input-keys.bin")
        #expect(LinkFuzz.seal(plain.dropFirst(), firstRecord: 6) == Array(sealed.dropFirst()))
        let fragmentsPlain = try FuzzReplay.keptInput("seed-plain-fragmented.bin")
        let fragmentsSealed = try FuzzReplay.keptInput("seed-stream-fragmented.bin")
        #expect(LinkFuzz.seal(fragmentsPlain.dropFirst(), firstRecord: 6) == Array(fragmentsSealed.dropFirst()))
    }

    /// Plaintext frames, empty encrypted frames and a frame the input ends inside pass unchanged.
    @Test func sealingLeavesOtherFramesAlone() {
        let ping: [UInt8] = [0x00, 0x03, 0x00, 0x04, 0x00, 0x0B, 0x08, 0x05]
        let emptyLast: [UInt8] = [0x08, 0x0A, 0x00, 0x00]
        let cut: [UInt8] = [0x08, 0x0B, 0x00, 0x09, 0x80, 0x01]
        #expect(LinkFuzz.seal((ping + emptyLast + cut)[...], firstRecord: 6) == ping + emptyLast + cut)
        let sealed = LinkFuzz.seal([0x08, 0x0B, 0x00, 0x02, 0x80, 0x01][...], firstRecord: 7)
        #expect(sealed.count == 4 + 2 + 29)
        #expect(Array(sealed[0..<4]) == [0x08, 0x0B, 0x00, 31], "the frame's length counts the record")
        #expect(Array(sealed[4..<17]) == [23, 3, 3, 0, 26, 0, 0, 0, 0, 0, 0, 0, 7], "header and record number 7")
        #expect(Array(sealed[17..<19]) == [0x80, 0x01])
    }

    /// The plaintext seeds reach the running link: both key reports arrive in order on the input
    /// channel, and a fragmented message arrives whole, then a message on another channel.
    @Test func plaintextSeedsReachTheRunningLink() throws {
        let keys = LinkFuzz.linkedPair(try FuzzReplay.keptInput("seed-plain-input-keys.bin"))
        let violations = FuzzReplay.violations { keys.runStream(sealed: true) }
        #expect(violations.isEmpty, "\(violations)")
        #expect(keys.watch.messages.map(\.channel) == [8, 8])
        #expect(keys.watch.messages.map(\.id) == [0x8001, 0x8003])
        #expect(keys.watch.closed, "the stream ends with a bye-bye")
        let fragments = LinkFuzz.linkedPair(try FuzzReplay.keptInput("seed-plain-fragmented.bin"))
        fragments.runStream(sealed: true)
        #expect(fragments.watch.messages.map(\.channel) == [16, 13])
        #expect(fragments.watch.messages.first?.body == Array((0..<1024).map { UInt8($0 % 256) }))
    }

    /// A channel close from the stream closes the channel in the link (the event and `openServices`).
    @Test func plaintextChannelCloseReachesTheChannelTable() throws {
        let script = LinkFuzz.linkedPair(try FuzzReplay.keptInput("seed-plain-close-and-byebye.bin"))
        let before = Set(script.phone.openServices.map(\.channel))
        #expect(before.contains(13))
        let violations = FuzzReplay.violations { script.runStream(sealed: true) }
        #expect(violations.isEmpty, "\(violations)")
        #expect(!script.watch.openChannels.contains(13))
    }

    /// The car's AUDIO_FOCUS_NOTIFICATION on channel 0 is the one control message the running
    /// link hands the services (for the media audio sink): the driver took it for a message on a
    /// channel never opened until FuzzLinkStream found it (the kept `crash-bc848c05…`).
    @Test func focusNotificationOnChannelZeroIsAMessage() throws {
        let script = LinkFuzz.linkedPair(try FuzzReplay.keptInput("crash-bc848c054136c55d96c4e5d82ebb34c4db927b36"))
        let violations = FuzzReplay.violations { script.runStream(sealed: true) }
        #expect(violations.isEmpty, "\(violations)")
        #expect(script.watch.messages.contains { $0.channel == 0 && $0.id == ControlID.audioFocusNotification })
        #expect(script.watch.closed, "the stream ends with a bye-bye")
    }
}
