// Tests/DashportBrowseTests/CacheFileFormatTests.swift - the cache file bytes: round trip and every damage.

import Foundation
import Testing
@testable import DashportBrowse

@Suite struct CacheFileFormatTests {
    static let node = CachedNode(
        parentId: "tab-albums",
        children: [
            BrowseItem(id: "a", title: "Album", artworkUri: "https://example.com/a.jpg", browsable: true, playable: true),
            BrowseItem(id: "t", title: "Track", playable: true, completion: 0.5, durationMs: 1000),
        ])

    @Test func roundTrip() throws {
        let bytes = try CacheFileFormat.encode(Self.node, generation: 42)
        #expect(Array(bytes.prefix(4)) == Array("DPBC".utf8))
        let (node, generation) = try CacheFileFormat.decode(bytes)
        #expect(node == Self.node)
        #expect(generation == 42)
    }

    @Test func everyTruncationIsRefused() throws {
        let bytes = try CacheFileFormat.encode(Self.node, generation: 1)
        for length in 0..<bytes.count {
            #expect(throws: CacheFormatError.self, "length \(length)") {
                try CacheFileFormat.decode(Array(bytes.prefix(length)))
            }
        }
    }

    @Test func everySingleBitFlipIsRefused() throws {
        let bytes = try CacheFileFormat.encode(Self.node, generation: 1)
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= UInt8(1) << UInt8(bit)
                #expect(throws: CacheFormatError.self, "byte \(index) bit \(bit)") {
                    try CacheFileFormat.decode(damaged)
                }
            }
        }
    }

    @Test func foreignAndOtherVersionFilesAreRefused() throws {
        #expect(throws: CacheFormatError.foreign) {
            try CacheFileFormat.decode(Array("{\"parentId\":\"x\",\"children\":[]}".utf8))
        }
        #expect(throws: CacheFormatError.foreign) {
            try CacheFileFormat.decode([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + Array(repeating: 0, count: 40))
        }
        var future = try CacheFileFormat.encode(Self.node, generation: 1)
        future[5] = 2
        #expect(throws: CacheFormatError.unsupportedVersion(2)) { try CacheFileFormat.decode(future) }
        let extra = try CacheFileFormat.encode(Self.node, generation: 1) + [0]
        #expect(throws: CacheFormatError.trailingBytes(1)) { try CacheFileFormat.decode(extra) }
    }

    @Test func aNaNCompletionSurvivesTheCache() throws {
        var item = BrowseItem(id: "n", title: "N", playable: true)
        item.completion = .nan
        let bytes = try CacheFileFormat.encode(CachedNode(parentId: "p", children: [item]), generation: 1)
        let (node, _) = try CacheFileFormat.decode(bytes)
        #expect(try #require(node.children.first?.completion).isNaN)
    }

    @Test func fileNamesAreStableAndSafe() {
        let name = CacheFileFormat.fileName(for: "album/../../etc")
        #expect(name == CacheFileFormat.fileName(for: "album/../../etc"))
        #expect(name != CacheFileFormat.fileName(for: "album"))
        #expect(name.hasPrefix("node-") && name.hasSuffix(".dpbc") && !name.contains("/"))
        #expect(name.count == "node-".count + 16 + ".dpbc".count)
    }
}
