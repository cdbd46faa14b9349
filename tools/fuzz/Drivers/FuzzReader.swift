/// The fuzz drivers' one way of reading an input as a script: a byte at a time, past the end
/// every read is zero (so any input is a complete script). LinkFuzz and ServicesFuzz both read
/// through it; ServicesFuzz adds its value menus in an extension.
struct FuzzReader {
    let bytes: [UInt8]
    var index: Int
    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }
    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// What is left to read.
    var rest: ArraySlice<UInt8> { bytes[min(index, bytes.count)...] }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }
}
