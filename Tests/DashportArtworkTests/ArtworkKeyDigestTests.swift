import Testing
@testable import DashportArtwork

/// Artwork keys are SHA-256 of the URI (from DashportDigest, whose own tests hold the vectors).
@Suite struct ArtworkKeyDigestTests {
    @Test func keysAreTheFirst32HexDigitsOfTheURIHash() {
        let key = ArtworkKey.digest(of: "abc")
        #expect(key.rawValue == "ba7816bf8f01cfea414140de5dae2223")
        #expect(key.isWellFormed)
        #expect(!ArtworkKey(rawValue: "../../etc/passwd").isWellFormed)
        #expect(!ArtworkKey(rawValue: "BA7816BF8F01CFEA414140DE5DAE2223").isWellFormed)
    }
}
