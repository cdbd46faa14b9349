import DashportDigest
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-4 examples, and lengths around the padding boundaries (values from Python's hashlib).
    @Test(arguments: [
        ([UInt8](), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        ([UInt8](repeating: 0x61, count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        ([UInt8](repeating: 0x61, count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        ([UInt8](repeating: 0x61, count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ([UInt8](repeating: 0x61, count: 119), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (Array((0..<1280).map { UInt8($0 % 256) }), "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed"),
    ])
    func knownVectors(message: [UInt8], expected: String) {
        #expect(SHA256.hex(message) == expected)
        #expect(SHA256.digest(message).count == 32)
    }

    @Test func aSliceAndAnArrayOfTheSameBytesAgree() {
        let bytes = Array("xxabcxx".utf8)
        #expect(SHA256.digest(bytes[2..<5]) == SHA256.digest(Array("abc".utf8)))
    }
}

@Suite struct CRC32Tests {
    @Test func theStandardCheckValueInOneGoAndInPieces() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xcbf4_3926)
        var crc = CRC32()
        crc.update(Array("1234".utf8))
        crc.update(ArraySlice(Array("56789".utf8)))
        #expect(crc.value == 0xcbf4_3926)
        #expect(CRC32().value == 0)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func aLargeInputMatchesZlibsKnownValue() {
        // 1 MiB of zeros; value from Python's zlib.crc32(bytes(1 << 20)).
        #expect(CRC32.checksum([UInt8](repeating: 0, count: 1 << 20)) == 0xa738_ea1c)
    }
}

@Suite struct HexTests {
    @Test func bytesIdsAndSeparators() {
        #expect(Hex.string([0x00, 0x03, 0xab, 0xff]) == "0003abff")
        #expect(Hex.string([0x00, 0x03, 0xab], separator: " ") == "00 03 ab")
        #expect(Hex.string([UInt8](), separator: " ") == "")
        #expect(Hex.id(0x8001) == "0x8001")
        #expect(Hex.id(0x0a) == "0x000a")
        #expect(Hex.id(0xffff) == "0xffff")
    }
}
