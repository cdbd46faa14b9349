import DashportMessages
import Testing

/// Every message against reference encodings made by tools/regenerate (Google's Python protobuf
/// runtime for `full`, a strict proto2 writer for `empty`).
@Suite struct GeneratedSampleTests {
    @Test(arguments: WireSamples.full)
    func encodesLikeTheReferenceAndRoundTrips(sample: WireSample) throws {
        let encoded = sample.message.serializedBytes()
        #expect(encoded == sample.bytes)
        let decoded = try decode(sample.bytes, as: sample.message)
        let roundTrips = isEqual(sample.message, decoded)
        #expect(roundTrips)
    }

    @Test(arguments: WireSamples.empty)
    func emptyMessageWritesEveryRequiredField(sample: WireSample) throws {
        let encoded = sample.message.serializedBytes()
        #expect(encoded == sample.bytes)
        let decoded = try decode(sample.bytes, as: sample.message)
        let roundTrips = isEqual(sample.message, decoded)
        #expect(roundTrips)
        // Decoding nothing at all (a proto3 sender omitting every zero) gives the same value.
        let fromNothing = try decode([], as: sample.message)
        let tolerated = isEqual(sample.message, fromNothing)
        #expect(tolerated)
    }

    @Test func everyMessageTypeHasSamples() {
        let sampled = Set(WireSamples.empty.map { "\(type(of: $0.message))" })
        let all = (AAP.messageTypes + DashportMedia.messageTypes).map { "\($0)" }
        #expect(all.count > 100)
        for name in all {
            #expect(sampled.contains(name), "no sample for \(name)")
        }
    }
}
