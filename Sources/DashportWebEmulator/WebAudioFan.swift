public import DashportHTTP
import Synchronization

/// The media sink's PCM (48 kHz, 16-bit, stereo, interleaved) to every page that listens on
/// `/audio`, as little-endian bytes. A listener that falls behind loses audio (real time does not
/// wait) instead of growing a queue: above ``maxQueuedBytes`` a chunk is skipped for it.
public final class WebAudioFan: Sendable {
    /// About 1.4 s of audio queued per listener at most.
    public static let maxQueuedBytes = 256 * 1024
    private let state = Mutex(State())

    private struct State {
        var listeners: [ObjectIdentifier: HTTPStream] = [:]
        var samplesHeard: Int = 0
        var bytesSkipped: Int = 0
    }

    public init() {}

    /// Samples (both channels counted) the car's sink decoded since the start.
    public var samplesHeard: Int { state.withLock { $0.samplesHeard } }
    /// Bytes not sent to a listener that was behind.
    public var bytesSkipped: Int { state.withLock { $0.bytesSkipped } }
    public var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// What a listener is sent first: one silent frame (4 zero bytes). Firefox resolves the page's
    /// `fetch('/audio')` only with the first byte of the body, not with the head, so without it the
    /// page could not tell that the stream is open until the car plays something.
    public static let openingSilence = [UInt8](repeating: 0, count: 4)

    public func add(_ stream: HTTPStream) {
        stream.write(WebAudioFan.openingSilence)
        let id = ObjectIdentifier(stream)
        state.withLock { $0.listeners[id] = stream }
        stream.whenClosed { [weak self] in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
    }

    /// One decoded DATA's PCM (the client's executor calls this; it only queues).
    public func take(_ samples: [Int16]) {
        let listeners = state.withLock { state -> [HTTPStream] in
            state.samplesHeard += samples.count
            return Array(state.listeners.values)
        }
        guard !listeners.isEmpty else { return }
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        for (index, sample) in samples.enumerated() {
            let value = UInt16(bitPattern: sample)
            bytes[2 * index] = UInt8(truncatingIfNeeded: value)
            bytes[2 * index + 1] = UInt8(truncatingIfNeeded: value >> 8)
        }
        var skipped = 0
        for listener in listeners {
            if listener.bufferedBytes > WebAudioFan.maxQueuedBytes {
                skipped += bytes.count
            } else {
                listener.write(bytes)
            }
        }
        if skipped > 0 { state.withLock { $0.bytesSkipped += skipped } }
    }

    /// The head of the `/audio` stream.
    public static func responseHead() -> [UInt8] {
        HTTPResponse(
            status: 200,
            headers: [
                HTTPField("Content-Type", "application/octet-stream"), HTTPField("Cache-Control", "no-store"),
                HTTPField("X-Dashport-Audio", "pcm s16le 48000 2"),
            ] + HTTPResponse.safetyHeaders
        ).encoded(keepAlive: false, bodyIsOpenEnded: true)
    }
}
