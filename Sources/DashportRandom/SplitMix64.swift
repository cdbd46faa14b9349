/// A small seedable random generator (SplitMix64, Steele, Lea and Flood 2014): the same seed gives
/// the same numbers on every machine and run. The demo player's shuffle, the fuzz drivers' splits
/// and the tests' random cuts all use this one, so a seed written in a test or a kept fuzz input
/// means the same sequence everywhere. Not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    /// A generator seeded with the FNV-1a hash of `bytes`: a fuzz input decides its own cuts, so a
    /// kept input replays them exactly.
    public init(hashing bytes: some Sequence<UInt8>) {
        self.init(seed: Self.fnv1a(bytes))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Cuts `0..<count` into consecutive pieces of 1 to `maxLength` elements.
    public mutating func pieces(covering count: Int, maxLength: Int) -> [Range<Int>] {
        precondition(maxLength >= 1, "a piece holds at least one element")
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = min(count, start + 1 + Int(next() % UInt64(maxLength)))
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }

    /// FNV-1a (64-bit) over `bytes`.
    public static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        // Contiguous bytes (arrays, slices: every fuzz input) are hashed in a loop over their
        // buffer: a caller in another module gets this function unspecialised, and stepping a
        // generic iterator per byte was an eighth of FuzzFrames' time (perf, issue 23 item 8).
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return hash
        }
        return contiguous ?? bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
