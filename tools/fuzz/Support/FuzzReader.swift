/// The fuzz drivers' one way of reading an input as a script: a byte at a time, past the end
/// every read is zero (so any input is a complete script). The link drivers read through it.
/// DashportFuzzDrivers still has its own copy (tools/fuzz/Drivers/FuzzReader.swift, where
/// ServicesFuzz adds its value menus), since a member from here needs `import DashportFuzzSupport`
/// in each file that uses it; once its drivers import this module, that copy goes.
package struct FuzzReader {
    package let bytes: [UInt8]
    package var index: Int
    package var isAtEnd: Bool { index >= bytes.count }

    package init(bytes: [UInt8], index: Int) {
        self.bytes = bytes
        self.index = index
    }

    package mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    package mutating func u16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }
    package mutating func bool() -> Bool { byte() & 1 == 1 }

    /// What is left to read.
    package var rest: ArraySlice<UInt8> { bytes[min(index, bytes.count)...] }

    package mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }
}
