import DashportClock
import DashportFiles
import DashportLog
import DashportTestSupport
import Foundation
import Synchronization
@testable import DashportArtwork

#if canImport(Glibc)
import Glibc
#endif

/// The committed test images in Fixtures/artwork (made once with ImageMagick and vips):
/// landscape-800x400.jpg, small-120x80.jpg, alpha-400x300.png (RGBA), wide-600x300.webp,
/// bomb-10000x10000.png (1-bit, one colour: 12 KB for 100 megapixels) and truncated.jpg
/// (the first 3000 bytes of the landscape JPEG).
enum Fixture {
    static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // this file, Support, DashportArtworkTests, Tests
        return url.appendingPathComponent("Fixtures/artwork").path
    }()

    static func path(_ name: String) -> String { directory + "/" + name }

    static func bytes(_ name: String) -> [UInt8] {
        (try? Files.read(path(name), limit: 1 << 20)) ?? []
    }

    static var landscape: [UInt8] { bytes("landscape-800x400.jpg") }
    static var small: [UInt8] { bytes("small-120x80.jpg") }
    static var alpha: [UInt8] { bytes("alpha-400x300.png") }
    static var webp: [UInt8] { bytes("wide-600x300.webp") }
    static var bomb: [UInt8] { bytes("bomb-10000x10000.png") }
    static var truncated: [UInt8] { bytes("truncated.jpg") }
}

/// A fetcher that takes a minute unless cancelled: for the outer request deadline.
struct SlowFetcher: ArtworkFetcher {
    func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int {
        for _ in 0..<60 where !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
        throw .io("slow fetcher cancelled")
    }
}

extension ArtworkConfiguration {
    /// Test defaults: plain http to the loopback server allowed, everything else as shipped.
    static func forTests(cache: TemporaryDirectory, roots: [String] = []) -> ArtworkConfiguration {
        var configuration = ArtworkConfiguration(roots: roots, cacheDirectory: cache.file("cache"))
        configuration.allowPlainHTTP = true
        return configuration
    }
}

extension [UInt8] {
    var isJPEG: Bool { starts(with: [0xff, 0xd8, 0xff]) }
    var isPNG: Bool { starts(with: [0x89, 0x50, 0x4e, 0x47]) }
}
