import Testing
@testable import DashportArtwork

@Suite struct SHA256Tests {
    /// FIPS 180-4 examples, and lengths around the padding boundaries (values from Python's hashlib).
    @Test(arguments: [
        ([UInt8](), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ([UInt8](repeating: 0x61, count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        ([UInt8](repeating: 0x61, count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        ([UInt8](repeating: 0x61, count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ([UInt8](repeating: 0x61, count: 119), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (Array((0..<1280).map { UInt8($0 % 256) }), "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed"),
    ])
    func knownVectors(message: [UInt8], expected: String) {
        #expect(SHA256.hex(of: message) == expected)
        #expect(SHA256.digest(message).count == 32)
    }

    @Test func keysAreTheFirst32HexDigitsOfTheURIHash() {
        let key = ArtworkKey.digest(of: "abc")
        #expect(key.rawValue == "ba7816bf8f01cfea414140de5dae2223")
        #expect(key.isWellFormed)
        #expect(!ArtworkKey(rawValue: "../../etc/passwd").isWellFormed)
        #expect(!ArtworkKey(rawValue: "BA7816BF8F01CFEA414140DE5DAE2223").isWellFormed)
    }
}
