@testable import DashportFuzzLinkDrivers
import DashportLink
import DashportTestSupport
import Testing

/// FuzzLink's running mode over real TLS: after the first input, each car offers the session an
/// earlier input kept and the phone's fuzz-only resuming context resumes it, so an input runs an
/// abbreviated handshake instead of RSA and ECDHE, and the link past it is the same.
@Suite struct LinkFuzzResumptionTests {
    /// A running-mode seed: the car sends an input report (a key down and up) on the input channel.
    private static let seed = "seed-run-input-keys.bin"

    @Test func aRunningInputAfterAnotherResumesItsSessionAndLinksTheSame() throws {
        let bytes = try FuzzReplay.keptInput(Self.seed)
        try #require(bytes.first.map { $0 & 0x81 == 0x01 } == true, "a running-mode seed without a fuzzed discovery")
        // The first run keeps a session for this kind of car (or an earlier test did); its
        // links are gone, as an input's are, before the second starts.
        let firstMessages: [(channel: UInt8, id: UInt16, body: [UInt8])]
        do {
            let first = LinkFuzz.Script(bytes)
            FuzzReplay.run(Self.seed) { first.run() }
            firstMessages = first.watch.messages
        }
        // Twice: a resumed input's end must not spoil the kept session for the next one.
        for round in 1...2 {
            let again = LinkFuzz.Script(bytes)
            FuzzReplay.run("\(Self.seed), resumed \(round)") { again.run() }
            #expect(again.resumedTLS, "input \(round) after the first resumed the kept session")
            // The same link came up and the same messages arrived, over TLS each time.
            #expect(again.watch.setupStep == 4)
            #expect(again.watch.messages.map(\.id) == firstMessages.map(\.id))
            #expect(again.watch.messages.map(\.body) == firstMessages.map(\.body))
            #expect(again.watch.messages.first?.id == 0x8001, "the input report arrived")
            #expect(again.watch.closed, "the input ends with a bye-bye")
        }
    }
}
