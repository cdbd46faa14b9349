import DashportRandom
import Testing

/// `SplitMix64(hashing:)` seeds every fuzz driver's splits from its input, so a kept input must
/// hash the same whichever way its bytes are held (the contiguous fast path and the generic one).
@Suite struct SplitMix64HashingTests {
    /// FNV-1a 64's published test vectors.
    @Test func fnv1aMatchesTheReferenceVectors() {
        #expect(SplitMix64.fnv1a([UInt8]()) == 0xCBF2_9CE4_8422_2325)
        #expect(SplitMix64.fnv1a(Array("a".utf8)) == 0xAF63_DC4C_8601_EC8C)
        #expect(SplitMix64.fnv1a(Array("foobar".utf8)) == 0x8594_4171_F739_67E8)
    }

    /// An array, a slice of it and a sequence without contiguous storage hash alike.
    @Test func contiguousAndGenericBytesHashAlike() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let generic = SplitMix64.fnv1a(bytes.lazy.map { $0 })
        #expect(SplitMix64.fnv1a(bytes) == generic)
        #expect(SplitMix64.fnv1a(([0] + bytes)[1...]) == generic)
        #expect(SplitMix64.fnv1a("foobar".utf8) == 0x8594_4171_F739_67E8, "String.UTF8View")
    }
}
