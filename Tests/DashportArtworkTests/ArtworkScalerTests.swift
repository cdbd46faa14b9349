import DashportFiles
import DashportTestSupport
import Glibc
import Testing
@testable import DashportArtwork

@Suite struct ArtworkScalerTests {
    let scaler = ArtworkScaler(maxPixels: 50_000_000, jpegQuality: 85, maxConcurrentDecodes: 2)
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// Fits into the box keeping the aspect; never upscales.
    @Test(arguments: [
        ("landscape-800x400.jpg", 256, 256, 256, 128),
        ("landscape-800x400.jpg", 100, 300, 100, 50),
        ("landscape-800x400.jpg", 400, 100, 200, 100),
        ("landscape-800x400.jpg", 1000, 1000, 800, 400),
        ("small-120x80.jpg", 256, 256, 120, 80),
        ("wide-600x300.webp", 256, 256, 256, 128),
        ("alpha-400x300.png", 256, 256, 256, 192),
    ])
    func fitsTheBox(file: String, boxWidth: Int, boxHeight: Int, width: Int, height: Int) async throws {
        let image = try await scaler.thumbnail(of: Fixture.path(file), fitting: ArtworkBox(width: boxWidth, height: boxHeight)).get()
        #expect(image.width == width)
        #expect(image.height == height)
    }

    @Test func jpegOutUnlessThereIsAlpha() async throws {
        let box = ArtworkBox(width: 256, height: 256)
        for file in ["landscape-800x400.jpg", "wide-600x300.webp", "small-120x80.jpg"] {
            let image = try await scaler.thumbnail(of: Fixture.path(file), fitting: box).get()
            #expect(image.mimeType == ArtworkImage.jpeg, "\(file)")
            #expect(image.bytes.isJPEG, "\(file)")
        }
        let alpha = try await scaler.thumbnail(of: Fixture.path("alpha-400x300.png"), fitting: box).get()
        #expect(alpha.mimeType == ArtworkImage.png)
        #expect(alpha.bytes.isPNG)
    }

    @Test func qualityChangesTheJPEG() async throws {
        let low = ArtworkScaler(maxPixels: 50_000_000, jpegQuality: 10, maxConcurrentDecodes: 1)
        let box = ArtworkBox(width: 400, height: 400)
        let small = try await low.thumbnail(of: Fixture.path("landscape-800x400.jpg"), fitting: box).get()
        let normal = try await scaler.thumbnail(of: Fixture.path("landscape-800x400.jpg"), fitting: box).get()
        #expect(small.bytes.count < normal.bytes.count)
    }

    @Test func pixelBombsAreRefusedBeforeDecoding() async {
        let result = await scaler.thumbnail(of: Fixture.path("bomb-10000x10000.png"), fitting: ArtworkBox(width: 256, height: 256))
        #expect(result == .failure(.tooManyPixels(pixels: 100_000_000, limit: 50_000_000)))
    }

    @Test func truncatedDataFailsWithVipsText() async {
        let result = await scaler.thumbnail(of: Fixture.path("truncated.jpg"), fitting: ArtworkBox(width: 256, height: 256))
        guard case .failure(.decodeFailed(let text)) = result else {
            Issue.record("expected decodeFailed, got \(result)")
            return
        }
        #expect(!text.isEmpty)
        #expect(!text.contains("\n"), "libvips' several lines are one: \(text)")
    }

    @Test func aVipsErrorOfSeveralLinesIsOneLine() {
        #expect(
            ArtworkScaler.oneLine("VipsJpeg: Premature end of JPEG file\nVipsJpeg: out of order read at line 48\n")
                == "VipsJpeg: Premature end of JPEG file; VipsJpeg: out of order read at line 48")
        #expect(ArtworkScaler.oneLine("vipspng: libpng read error\n") == "vipspng: libpng read error")
    }

    @Test func otherFormatsAreRefused() async {
        scratch.write("drawing.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8))
        scratch.write("notes.jpg", Array("just some text, not a picture".utf8))
        scratch.write("image.gif", [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0, 0x3b])
        for name in ["drawing.svg", "notes.jpg", "image.gif"] {
            let result = await scaler.thumbnail(of: scratch.file(name), fitting: ArtworkBox(width: 64, height: 64))
            #expect(result == .failure(.decodeFailed("not a JPEG, PNG or WebP image")), "\(name)")
        }
    }

    @Test func aMissingFileIsAnIOError() async {
        let result = await scaler.thumbnail(of: scratch.file("gone.jpg"), fitting: ArtworkBox(width: 64, height: 64))
        #expect(result == .failure(.io("No such file or directory")))
    }

    @Test func fileNamesAreNotParsedForVipsOptions() async throws {
        scratch.write("cover.jpg[shrink=8]", Fixture.landscape)
        let image = try await scaler.thumbnail(of: scratch.file("cover.jpg[shrink=8]"), fitting: ArtworkBox(width: 512, height: 512)).get()
        #expect(image.width == 512 && image.height == 256)
    }

    /// A download is decoded through a descriptor while it is renamed into the cache: the file's
    /// name may be gone, its descriptor still decodes, and the pixel cap still holds.
    @Test func anOpenFileDecodesAfterItsNameIsGone() async throws {
        scratch.write("moving.jpg", Fixture.landscape)
        let fd = open(scratch.file("moving.jpg"), O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        try Files.remove(scratch.file("moving.jpg"))
        let image = try await scaler.thumbnail(ofDescriptor: fd, fitting: ArtworkBox(width: 256, height: 256)).get()
        #expect(image.width == 256 && image.height == 128 && image.bytes.isJPEG)
        let strict = ArtworkScaler(maxPixels: 800 * 400 - 1, jpegQuality: 85, maxConcurrentDecodes: 1)
        let refused = await strict.thumbnail(ofDescriptor: fd, fitting: ArtworkBox(width: 256, height: 256))
        #expect(refused == .failure(.tooManyPixels(pixels: 800 * 400, limit: 800 * 400 - 1)))
    }
}
