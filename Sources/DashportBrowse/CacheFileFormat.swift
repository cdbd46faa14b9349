// Sources/DashportBrowse/CacheFileFormat.swift - the bytes of one cached browse node on disk.

import DashportDigest
import FoundationEssentials
import Glibc

/// One cached node: a parent and the children its provider gave.
struct CachedNode: Sendable, Hashable, Codable {
    var parentId: String
    var children: [BrowseItem]
}

/// Why a cache file was refused.
enum CacheFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Shorter than its header or than the body length the header announces.
    case truncated(size: Int)
    /// Does not start with the cache magic: not a Dashport browse cache file.
    case foreign
    /// A format version this build does not read.
    case unsupportedVersion(UInt16)
    /// Longer than the header announces.
    case trailingBytes(Int)
    /// The CRC-32 over header and body does not match: bits flipped on disk.
    case checksumMismatch
    /// The body passed the checksum but is not a node (written by a broken build).
    case undecodable(String)
    /// Larger than the whole cache may be (the bound shrank, or it is not ours).
    case oversized(Int)
    /// The file could not be read.
    case unreadable
    /// A valid node stored under another node's file name.
    case misplaced(parentId: String)

    var description: String {
        switch self {
        case .truncated(let size): "truncated (\(size) bytes)"
        case .foreign: "not a browse cache file (wrong magic)"
        case .unsupportedVersion(let version): "unsupported version \(version)"
        case .trailingBytes(let count): "\(count) bytes after the body"
        case .checksumMismatch: "checksum mismatch"
        case .undecodable(let reason): "undecodable body: \(reason)"
        case .oversized(let size): "\(size) bytes, over the cache's byte bound"
        case .unreadable: "unreadable"
        case .misplaced(let parentId): "holds node '\(parentId)', which belongs in another file"
        }
    }
}

/// The cache file layout, version 1. All integers big-endian.
///
/// ```
/// offset size field
///      0    4 magic "DPBC"
///      4    2 version (1)
///      6    2 reserved (0)
///      8    8 generation: the write order, so the LRU order survives a restart
///     16    4 body length in bytes
///     20    4 CRC-32 (IEEE) over bytes 0..<20 and the body
///     24    n body: JSON of ``CachedNode``
/// ```
enum CacheFileFormat {
    static let magic: [UInt8] = Array("DPBC".utf8)
    static let version: UInt16 = 1
    static let headerSize = 24
    /// The file name suffix of cache files; nothing else in the directory is touched.
    static let fileExtension = "dpbc"

    static func encode(_ node: CachedNode, generation: UInt64) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // A provider's raw list may hold a NaN completion (the rules drop it when serving); keep
        // the node storable rather than failing the whole write.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        let body = Array(try encoder.encode(node))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + body.count)
        bytes += magic
        append(&bytes, UInt64(version), width: 2)
        append(&bytes, 0, width: 2)
        append(&bytes, generation, width: 8)
        append(&bytes, UInt64(body.count), width: 4)
        var crc = CRC32()
        crc.update(bytes[0..<20])
        crc.update(body)
        append(&bytes, UInt64(crc.value), width: 4)
        bytes += body
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws(CacheFormatError) -> (node: CachedNode, generation: UInt64) {
        guard bytes.count >= magic.count else {
            throw bytes.elementsEqual(magic.prefix(bytes.count)) ? .truncated(size: bytes.count) : .foreign
        }
        guard bytes[0..<4].elementsEqual(magic) else { throw .foreign }
        guard bytes.count >= headerSize else { throw .truncated(size: bytes.count) }
        let fileVersion = UInt16(read(bytes, at: 4, width: 2))
        guard fileVersion == version else { throw .unsupportedVersion(fileVersion) }
        let generation = read(bytes, at: 8, width: 8)
        let bodyLength = Int(read(bytes, at: 16, width: 4))
        let stored = UInt32(read(bytes, at: 20, width: 4))
        let available = bytes.count - headerSize
        guard available >= bodyLength else { throw .truncated(size: bytes.count) }
        guard available == bodyLength else { throw .trailingBytes(available - bodyLength) }
        var crc = CRC32()
        crc.update(bytes[0..<20])
        crc.update(bytes[headerSize...])
        guard crc.value == stored else { throw .checksumMismatch }
        do {
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            let node = try decoder.decode(CachedNode.self, from: Data(bytes[headerSize...]))
            return (node, generation)
        } catch {
            throw .undecodable(String(describing: error))
        }
    }

    /// The file name for a parent id: a 64-bit FNV-1a hash in hex. Two ids may share a name; the
    /// file stores its parent id, so a clash is a cache miss, never a wrong answer.
    static func fileName(for parentId: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parentId.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "node-" + String(repeating: "0", count: 16 - hex.count) + hex + "." + fileExtension
    }

    private static func append(_ bytes: inout [UInt8], _ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + width) {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }
}
