@testable import DashportFuzzLinkDrivers
import DashportHeadUnit
import DashportLink
import DashportTLS
import DashportTestSupport
import Testing

/// FuzzLinkRunning: the real link past its handshake over the fuzz drivers' null record layer.
/// These check that its inputs really reach the running link, and that the null layer keeps the
/// record rules the link relies on (one record per frame, in order), so what the fuzzer explores
/// is what runs over TLS.
@Suite struct LinkFuzzRunningTests {
    /// The stream seeds' record numbers start where the null-layer setup leaves the phone
    /// (generate.py's STREAM_FIRST_RECORD): both key reports arrive, in order, on the input channel.
    @Test func streamSeedReachesTheRunningLink() throws {
        let script = LinkFuzz.Script(try FuzzReplay.keptInput("seed-stream-input-keys.bin"), records: .null)
        let violations = FuzzReplay.violations { script.runStream() }
        #expect(violations.isEmpty, "\(violations)")
        #expect(script.watch.messages.map(\.channel) == [8, 8])
        #expect(script.watch.messages.map(\.id) == [0x8001, 0x8003])
        #expect(script.watch.closed, "the stream ends with a bye-bye")
    }

    /// A fragmented message over two records arrives whole, then a message on another channel.
    @Test func fragmentedStreamMessageArrivesWhole() throws {
        let script = LinkFuzz.Script(try FuzzReplay.keptInput("seed-stream-fragmented.bin"), records: .null)
        script.runStream()
        #expect(script.watch.messages.map(\.channel) == [16, 13])
        #expect(script.watch.messages.first?.body == Array((0..<1024).map { UInt8($0 % 256) }))
    }

    /// A record out of sequence ends the link with a TLS failure, as a replayed AES-GCM record does.
    @Test func recordOutOfSequenceEndsTheLink() throws {
        let script = LinkFuzz.Script(try FuzzReplay.keptInput("seed-stream-wrong-record-number.bin"), records: .null)
        script.runStream()
        guard case .tlsFailure(.decryptFailed)? = script.phone.closeReason else {
            Issue.record("closed with \(String(describing: script.phone.closeReason))")
            return
        }
        #expect(script.watch.messages.isEmpty)
    }

    /// FuzzLinkRunning copies a linked pair per input: the copies hold every stored property of
    /// the originals (a property added to the links but not to their `copy` fails here, by name)
    /// and share no layer with them.
    @Test func linkedPairCopiesCarryEveryProperty() throws {
        let pair = LinkFuzz.Script([0x07], records: .null)
        pair.link()
        let copy = LinkFuzz.Script([0x07], after: pair)
        #expect(copy.phone.phase == .running && copy.headUnit.phase == .running)
        #expect(
            Self.properties(of: copy.phone) == Self.properties(of: pair.phone),
            "every PhoneLink property must be copied (PhoneLink.copy(recordLayer:))")
        #expect(
            Self.properties(of: copy.headUnit) == Self.properties(of: pair.headUnit),
            "every HeadUnitLink property must be copied (HeadUnitLink.copy(recordLayer:))")
        #expect(Self.properties(of: copy.phone).count >= 15)
        // The copy runs on its own: a ping on it moves its record numbers, not the pair's.
        let next = copy.phone.nextDeadline ?? .zero
        _ = copy.phone.tick(now: next)
        #expect(Self.properties(of: copy.phone) != Self.properties(of: pair.phone))
        // And it behaves as the original would: the same stream seed gives the same messages.
        let input = try FuzzReplay.keptInput("seed-stream-input-keys.bin")
        let fresh = LinkFuzz.Script(input, records: .null)
        fresh.runStream()
        let copied = LinkFuzz.linkedPair(input)
        copied.runStream()
        #expect(copied.watch.messages.map(\.id) == fresh.watch.messages.map(\.id))
        #expect(copied.watch.closed && fresh.watch.closed)
    }

    /// Every stored property by name and value, the record layer's identity left out.
    static func properties(of object: AnyObject) -> [String: String] {
        var found: [String: String] = [:]
        for child in Mirror(reflecting: object).children {
            guard let label = child.label else { continue }
            if label == "wire" {
                for part in Mirror(reflecting: child.value).children where part.label != "tls" {
                    found["wire.\(part.label ?? "?")"] = String(describing: part.value)
                }
            } else if label != "logger" {
                found[label] = String(describing: child.value)
            }
        }
        return found
    }

    /// The null layer's records are TLS 1.2 AES-GCM-sized, open once and only in order.
    @Test func nullRecordsKeepTheRecordRules() throws {
        let client = NullRecordLayer(.client)
        let server = NullRecordLayer(.server)
        let finished = try server.handshake(received: try client.startHandshake())
        #expect(try client.handshake(received: finished).isEmpty)
        #expect(client.isHandshakeComplete && server.isHandshakeComplete)
        let first = try client.encrypt([1, 2, 3][...])
        let second = try client.encrypt([4][...])
        #expect(first.count == 3 + TLSSession.recordOverhead)
        #expect(try server.decrypt(first) == [1, 2, 3])
        #expect(throws: TLSError.self) { try server.decrypt(first) }
        #expect(throws: TLSError.self, "a failed layer stays failed") { try server.decrypt(second) }
    }

    /// The null layer's handshake accepts only its own hello.
    @Test func nullHandshakeRefusesOtherBytes() {
        let server = NullRecordLayer(.server)
        #expect(throws: TLSError.self) { try server.handshake(received: Array("ClientHello".utf8)) }
        #expect(!server.isHandshakeComplete)
    }
}
