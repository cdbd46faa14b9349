import Synchronization

/// Sound made outside the process and written to the server (its audio input socket, fed by
/// `dashport audio-in`, e.g. MPD's pipe output): raw S16LE 48000 Hz stereo, buffered in one fixed
/// ring and pulled by the server's audio pump like any ``SessionAudioSource``.
///
/// Pacing: the reader sets the pace. The pump pulls one 2048-frame packet every 42.67 ms; the
/// writer's side stops reading its socket once ``highWaterBytes`` are buffered (back-pressure: the
/// kernel's socket buffer fills, `dashport audio-in` blocks on its write, MPD's pipe blocks, and
/// MPD's `elapsed` follows what was pulled) and resumes when a pull took the level below it. The
/// ring never grows: ``capacityBytes`` is the high-water mark plus one socket read (what arrives
/// after the mark was crossed, before reading pauses); anything beyond is dropped and counted. It is
/// allocated when the first writer comes, so a server nobody feeds holds none of it.
///
/// Streaming (``isStreaming``): begins when a writer has buffered a packet (or ended with less),
/// so a car's stream starts with audio, not silence. An **underrun** (the writer is connected but
/// its data is not there yet) is padded with silence, and the pull says how many frames were audio;
/// after ``idlePacketsBeforeStop`` such pulls in a row (1 s with nothing) the input stops
/// streaming, so the pump stops and the cars' streams go quiet (no DATA; their START stands while the
/// session plays) rather than carrying silence forever, and starts again with the next packet
/// written. When the writer goes, what it wrote is played out (a trailing partial frame is
/// dropped) and then the input stops streaming.
///
/// Listening: the server says whether any car has a media audio sink that hears this input
/// (``setListening(_:)``); a player that feeds the input (MPD's pipe output) observes it
/// (``observeListening(_:)``) to pause its pipe output while nobody listens and let its other
/// outputs play. Whoever listens, the server pulls the input in real time while it streams, so a
/// writer is always drained and never blocks for longer than the buffer takes to play.
///
/// Threading: every method takes one `Mutex` and nothing else (no waiting, no allocation beyond
/// the pull's output); callbacks are called after the lock is released.
public final class SessionAudioInput: SessionAudioSource {
    /// Buffered audio at which the writer is paused: 4 packets, 171 ms of lead.
    public static let highWaterBytes = 4 * SessionAudioFormat.bytesPerPacket
    /// Room for what one socket read may bring beyond the high-water mark (the reactor reads 64 KiB
    /// at most at once, and pauses before the next read).
    public static let capacityBytes = highWaterBytes + 64 * 1024
    /// Underrun pulls in a row (with a writer connected) before the input stops streaming: 1 s.
    public static let idlePacketsBeforeStop = 24

    /// What the input did, for logs, `dashport ctl` and tests.
    public struct Statistics: Sendable, Hashable {
        /// Bytes accepted from writers.
        public var bytesIn: UInt64 = 0
        /// Frames of audio handed to the pump.
        public var framesOut: UInt64 = 0
        /// Frames of silence padded into pulls while a writer was connected (underruns).
        public var underrunFrames: UInt64 = 0
        /// Bytes dropped: beyond ``capacityBytes``, or a partial frame a writer left.
        public var droppedBytes: UInt64 = 0
        /// Writers that connected.
        public var writers: Int = 0
    }

    private struct State {
        /// Allocated when the first writer comes (a server nobody feeds holds none of it), then kept.
        var ring: [UInt8] = []
        /// Index of the oldest buffered byte.
        var start = 0
        var count = 0
        var writerConnected = false
        var streaming = false
        var underruns = 0
        var wake: (@Sendable () -> Void)?
        var room: (@Sendable () -> Void)?
        var listening = false
        var listeners: [UInt64: @Sendable (Bool) -> Void] = [:]
        var nextListener: UInt64 = 0
        var statistics = Statistics()
        /// Bytes the writer sent that are not buffered here yet (its socket's unread bytes).
        var inFlight: (@Sendable () -> Int)?

        /// Moves the oldest `bytes` buffered bytes to the end of `buffer`.
        mutating func take(_ bytes: Int, into buffer: inout [UInt8]) {
            guard bytes > 0 else { return }
            let capacity = ring.count
            let first = min(bytes, capacity - start)
            buffer.append(contentsOf: ring[start..<start + first])
            if first < bytes { buffer.append(contentsOf: ring[0..<bytes - first]) }
            start = (start + bytes) % capacity
            count -= bytes
        }

        mutating func reserve() {
            if ring.isEmpty { ring = Array(repeating: 0, count: SessionAudioInput.capacityBytes) }
        }

        /// Appends `bytes` after the buffered ones (the caller checked the room).
        mutating func put(_ bytes: ArraySlice<UInt8>) {
            reserve()
            let capacity = ring.count
            let end = (start + count) % capacity
            let first = min(bytes.count, capacity - end)
            ring.replaceSubrange(end..<end + first, with: bytes.prefix(first))
            if first < bytes.count { ring.replaceSubrange(0..<bytes.count - first, with: bytes.dropFirst(first)) }
            count += bytes.count
        }
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: SessionAudioSource

    public func attach(wake: @escaping @Sendable () -> Void) {
        let streaming = state.withLock { state in
            state.wake = wake
            return state.streaming
        }
        if streaming { wake() }
    }

    public var isStreaming: Bool { state.withLock { $0.streaming } }

    public func pull(frames: Int, into buffer: inout [UInt8]) -> Int {
        let wanted = max(0, frames)
        let (audio, room) = state.withLock { state -> (Int, (@Sendable () -> Void)?) in
            let audio = min(wanted, state.count / SessionAudioFormat.bytesPerFrame)
            state.take(audio * SessionAudioFormat.bytesPerFrame, into: &buffer)
            state.statistics.framesOut += UInt64(audio)
            if !state.writerConnected, state.count < SessionAudioFormat.bytesPerFrame {
                state.statistics.droppedBytes += UInt64(state.count)
                state.count = 0
                state.streaming = false
            } else if audio < wanted {
                state.statistics.underrunFrames += UInt64(wanted - audio)
                state.underruns += 1
                if state.underruns >= Self.idlePacketsBeforeStop { state.streaming = false }
            } else {
                state.underruns = 0
            }
            guard state.count < Self.highWaterBytes, let room = state.room else { return (audio, nil) }
            state.room = nil
            return (audio, room)
        }
        buffer.append(contentsOf: repeatElement(0, count: (wanted - audio) * SessionAudioFormat.bytesPerFrame))
        room?()
        return audio
    }

    // MARK: The writer's side (the server's audio input socket)

    /// A writer connected. A partial frame the one before it left is dropped, so frames stay aligned.
    public func writerBegan() {
        state.withLock { state in
            let partial = state.count % SessionAudioFormat.bytesPerFrame
            state.count -= partial
            state.statistics.droppedBytes += UInt64(partial)
            state.writerConnected = true
            state.underruns = 0
            state.statistics.writers += 1
            state.reserve()
        }
    }

    /// Buffers `bytes` (all of them, up to ``capacityBytes``; the rest is dropped and counted).
    /// Returns false when the writer should pause until ``whenRoom(_:)`` calls back: the buffer
    /// holds ``highWaterBytes`` or more.
    public func write(_ bytes: [UInt8]) -> Bool {
        let (wake, accepting) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            let room = Self.capacityBytes - state.count
            let taken = min(room, bytes.count)
            state.put(bytes[..<taken])
            state.statistics.bytesIn += UInt64(taken)
            state.statistics.droppedBytes += UInt64(bytes.count - taken)
            if !state.streaming, state.count >= SessionAudioFormat.bytesPerPacket {
                state.streaming = true
                state.underruns = 0
            }
            if state.count >= SessionAudioFormat.bytesPerFrame { state.underruns = 0 }
            return (state.streaming ? state.wake : nil, state.count < Self.highWaterBytes)
        }
        wake?()
        return accepting
    }

    /// Calls `callback` once when the buffer is below ``highWaterBytes`` (at once if it is now);
    /// replaces a callback not yet called.
    public func whenRoom(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.count < Self.highWaterBytes { return true }
            state.room = callback
            return false
        }
        if now { callback() }
    }

    /// The writer went (closed, or vanished mid-packet): what it wrote plays out, then the input
    /// stops streaming.
    public func writerEnded() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.writerConnected = false
            state.room = nil  // it belonged to the writer that went
            state.inFlight = nil
            if !state.streaming, state.count >= SessionAudioFormat.bytesPerFrame {
                state.streaming = true
                return state.wake
            }
            if state.count < SessionAudioFormat.bytesPerFrame { state.streaming = false }
            return nil
        }
        wake?()
    }

    /// How far the writer is ahead of what the cars were sent, in frames: the bytes it wrote that
    /// no pull has taken yet, buffered here or still in its socket (``setInFlight(_:)``). For MPD's
    /// pipe output this is MPD's lead: its `elapsed` counts what it wrote, the cars hear this much
    /// later. 0 without a writer and nothing buffered.
    public var leadFrames: Int {
        let (buffered, inFlight) = state.withLock { ($0.count, $0.inFlight) }
        return (buffered + (inFlight?() ?? 0)) / SessionAudioFormat.bytesPerFrame
    }

    /// ``leadFrames`` as milliseconds of audio.
    public var leadMs: Int64 { Int64(leadFrames) * 1000 / Int64(SessionAudioFormat.sampleRate) }

    /// The server: how to ask how many bytes the writer sent that are still on their way (the
    /// socket's unread bytes); nil when the writer went. Called outside the lock.
    public func setInFlight(_ inFlight: (@Sendable () -> Int)?) {
        state.withLock { $0.inFlight = inFlight }
    }

    /// Whether a writer is connected now.
    public var hasWriter: Bool { state.withLock { $0.writerConnected } }

    /// Bytes buffered now.
    public var bufferedBytes: Int { state.withLock { $0.count } }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    // MARK: Listening

    /// Whether a car's media audio sink hears this input now.
    public var isListening: Bool { state.withLock { $0.listening } }

    /// Calls `observer` with ``isListening`` now and on every change after (from any thread; it
    /// must not block: a player hops to its own task to act). Returns an id for ``stopObserving(_:)``.
    @discardableResult
    public func observeListening(_ observer: @escaping @Sendable (Bool) -> Void) -> UInt64 {
        let (id, now) = state.withLock { state -> (UInt64, Bool) in
            state.nextListener += 1
            state.listeners[state.nextListener] = observer
            return (state.nextListener, state.listening)
        }
        observer(now)
        return id
    }

    public func stopObserving(_ id: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// The server: whether any car's media audio sink hears this input (observers are told on a change).
    public func setListening(_ listening: Bool) {
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.listening != listening else { return [] }
            state.listening = listening
            return Array(state.listeners.values)
        }
        for observer in observers { observer(listening) }
    }
}
