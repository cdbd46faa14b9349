@testable import DashportFuzzLinkDrivers
import DashportFrames
import DashportLink
import DashportTLS
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

/// FuzzLink's running mode over live TLS (`LinkFuzz.runOverLiveTLS`): the link's setup is done once
/// per configuration and every input runs copies of the linked links over the same two OpenSSL
/// sessions, as long as an input leaves them in step.
@Suite struct LinkFuzzLiveTLSTests {
    /// Running inputs: the car's input report (default car), a discovery response from the input
    /// (bit 7), which starts from the setup's discovery snapshot, and a car that pings every 700 ms
    /// (bit 2) sending two service messages (op 1) around a 500 ms clock step (op 3).
    private static let seeds = ["seed-run-input-keys.bin", "seed-run-discovery-odd-entries.bin", "pings and messages"]
    private static let pingsAndMessages: [UInt8] = [0x05, 0x01, 0x00, 0x80, 0x01, 3, 1, 2, 3, 0x03, 50, 0x01, 0x01, 0x80, 0x02, 2, 4, 5]

    @Test(arguments: seeds) func anInputOverAReusedLivePairDeliversWhatAFreshPairDoes(_ seed: String) throws {
        let bytes = seed == "pings and messages" ? Self.pingsAndMessages : try FuzzReplay.keptInput(seed)
        let fresh = LinkFuzz.Script(bytes)
        FuzzReplay.run("\(seed), fresh") { fresh.run() }
        #expect(fresh.watch.setupStep == 4 && fresh.watch.closed)
        try #require(!fresh.watch.messages.isEmpty, "the seed delivers messages to compare")
        // A pair of this test's own (the fuzzer's are shared with the other tests): the first round
        // runs over a new pair, the next ones over the sessions the previous round left.
        let pair = LinkFuzz.TLSPair()
        let setup = LinkFuzz.tlsSetup(bytes[0])
        for round in 1...3 {
            let live = LinkFuzz.Script(bytes, from: bytes[0] & 0x80 != 0 ? setup.discovery : setup.running, over: pair)
            FuzzReplay.run("\(seed), live round \(round)") { live.run() }
            #expect(live.watch.setupStep == 4 && live.watch.closed, "round \(round) linked and ended with the bye-bye")
            #expect(live.watch.messages.map(\.channel) == fresh.watch.messages.map(\.channel), "round \(round)")
            #expect(live.watch.messages.map(\.id) == fresh.watch.messages.map(\.id), "round \(round)")
            #expect(live.watch.messages.map(\.body) == fresh.watch.messages.map(\.body), "round \(round)")
            #expect(live.phone.closeReason == fresh.phone.closeReason, "round \(round)")
            #expect(pair.isInStep(), "round \(round) left the pair in step")
        }
        // The fuzzer's own path keeps its pair after such an input.
        let run = LinkFuzz.runOverLiveTLS(bytes)
        #expect(run.keptPair && run.nextPair == run.pair)
        #expect(run.script.watch.messages.map(\.body) == fresh.watch.messages.map(\.body))
    }

    @Test func aPairAnInputBrokeIsNotReused() throws {
        // A hand-made encrypted frame (op 7: channel 0, flags 0x0B, message id 0x1703) whose
        // payload looks like a 37-byte record (17 03 03 00 25 ...) but is none of this session's:
        // the phone's TLS session fails opening it, and the link closes.
        let bytes: [UInt8] = [0x01, 0x07, 0x00, 0x0B, 0x00, 0x00, 0x17, 0x03, 40, 0x03, 0x00, 37] + [UInt8](repeating: 0, count: 37)
        let pair = LinkFuzz.TLSPair()
        let live = LinkFuzz.Script(bytes, from: LinkFuzz.tlsSetup(bytes[0]).running, over: pair)
        FuzzReplay.run("a bad record, live") { live.run() }
        #expect(live.watch.closed && live.phone.closeReason != .byeBye(answered: true))
        #expect(!pair.isInStep(), "the input left the pair out of step")
        let run = LinkFuzz.runOverLiveTLS(bytes)
        #expect(!run.keptPair && run.nextPair != run.pair, "the next input gets a new pair")
        // The new pair is whole: a clean input over it keeps it.
        let clean = LinkFuzz.runOverLiveTLS(try FuzzReplay.keptInput("seed-run-input-keys.bin"))
        #expect(clean.script.watch.setupStep == 4 && clean.keptPair)
    }

    @Test func recordsLeftInFlightAreOpenedForTheSideThatDroppedThem() throws {
        // The phone's last frame never reached the car's session (a closed car drops what
        // arrives): the driver opens it from the bytes the phone sent, and the pair is in step.
        let pair = LinkFuzz.TLSPair()
        let plaintextFrame: [UInt8] = [0x00, 0x03, 0x00, 0x02, 0x80, 0x01]
        let dropped = Frame(channel: 3, flags: [.bulk, .encrypted], payload: try pair.phone.encrypt([0x80, 0x01, 7])).encoded()
        let settled = pair.settle(phoneSent: [plaintextFrame, dropped], carSent: [])
        #expect(settled.inStep && settled.caughtUp == 1)
        // Without those bytes the missing record cannot be found, and the pair is not kept.
        let other = LinkFuzz.TLSPair()
        _ = try other.car.encrypt([0x80, 0x01, 7])
        #expect(!other.settle(phoneSent: [], carSent: []).inStep)
    }
}
