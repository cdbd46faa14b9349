internal import CDashportVips
import Dispatch
import Synchronization
import FoundationEssentials
import Glibc

/// Decodes an original and fits it into a box with libvips (shrink-on-load, never upscaled),
/// as JPEG, or PNG when the image has alpha.
///
/// The file is opened and sniffed once; its header is read first and images with more pixels
/// than the cap are refused before any pixel is decoded. Decodes run on Dispatch threads, never on Swift's cooperative pool, at most
/// `maxConcurrentDecodes` at a time: libvips threads each decode itself.
struct ArtworkScaler: Sendable {
    let maxPixels: Int
    let jpegQuality: Int
    private let limiter: AsyncLimiter

    init(maxPixels: Int, jpegQuality: Int, maxConcurrentDecodes: Int) {
        self.maxPixels = maxPixels
        self.jpegQuality = min(100, max(1, jpegQuality))
        self.limiter = AsyncLimiter(permits: max(1, maxConcurrentDecodes))
    }

    /// A thumbnail of the image file at `path` that fits `box`.
    func thumbnail(of path: String, fitting box: ArtworkBox) async -> Result<ArtworkImage, ArtworkError> {
        await thumbnail(fitting: box) { maxPixels, quality in Self.scale(path, box, maxPixels: maxPixels, quality: quality) }
    }

    /// A thumbnail of the open image file `fd` that fits `box`; `fd` stays open (its name may
    /// change meanwhile: a download is renamed into the cache while it is decoded).
    func thumbnail(ofDescriptor fd: Int32, fitting box: ArtworkBox) async -> Result<ArtworkImage, ArtworkError> {
        await thumbnail(fitting: box) { maxPixels, quality in Self.scale(fd, box, maxPixels: maxPixels, quality: quality) }
    }

    private func thumbnail(
        fitting box: ArtworkBox, _ scale: @escaping @Sendable (Int, Int) -> Result<ArtworkImage, ArtworkError>
    ) async -> Result<ArtworkImage, ArtworkError> {
        await limiter.acquire()
        defer { limiter.release() }
        let (maxPixels, quality) = (maxPixels, jpegQuality)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: scale(maxPixels, quality))
            }
        }
    }

    /// Blocking: opens `path` and scales the open file.
    static func scale(_ path: String, _ box: ArtworkBox, maxPixels: Int, quality: Int) -> Result<ArtworkImage, ArtworkError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.io(String(cString: strerror(errno)))) }
        defer { close(fd) }
        return scale(fd, box, maxPixels: maxPixels, quality: quality)
    }

    /// Blocking: probe, check the pixel cap, thumbnail, encode, on one open file (sniffed once).
    static func scale(_ fd: Int32, _ box: ArtworkBox, maxPixels: Int, quality: Int) -> Result<ArtworkImage, ArtworkError> {
        guard dashport_vips_init() == 0 else {
            return .failure(.decodeFailed("libvips failed to start: " + String(cString: dashport_vips_init_error())))
        }
        var errorText = [CChar](repeating: 0, count: 512)
        var probe = dashport_vips_probe_result()
        var out = dashport_vips_thumbnail_result()
        let status = dashport_vips_thumbnail_descriptor(
            fd, Int64(clamping: maxPixels), Int32(clamping: box.width), Int32(clamping: box.height),
            Int32(quality), &probe, &out, &errorText, errorText.count)
        if status == DASHPORT_VIPS_TOO_MANY_PIXELS {
            return .failure(.tooManyPixels(pixels: Int(probe.width) * Int(probe.height), limit: maxPixels))
        }
        guard status == DASHPORT_VIPS_OK else { return .failure(failure(status, errorText)) }
        defer { dashport_vips_free(out.bytes) }
        guard let bytes = out.bytes, out.length > 0 else { return .failure(.decodeFailed("libvips returned no data")) }
        return .success(
            ArtworkImage(
                bytes: Array(UnsafeBufferPointer(start: bytes, count: out.length)),
                mimeType: out.is_png != 0 ? ArtworkImage.png : ArtworkImage.jpeg,
                width: Int(out.width),
                height: Int(out.height)
            ))
    }

    /// libvips' error buffer holds one line per message ("VipsJpeg: Premature end…\nvipspng: …"):
    /// joined into one, so an error is one log line and one text a car may be shown.
    static func oneLine(_ raw: String) -> String {
        raw.split(whereSeparator: \.isNewline).map { $0.trimming(while: \.isWhitespace) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    private static func failure(_ status: dashport_vips_status, _ text: [CChar]) -> ArtworkError {
        let message = oneLine(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return status == DASHPORT_VIPS_IO ? .io(message) : .decodeFailed(message)
    }
}

/// A counting semaphore for async code: at most `permits` holders, the rest wait in FIFO order.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(permits: Int) { state = Mutex(State(available: permits)) }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
