// The FuzzSession driver: `SessionAudioInput` (the server's audio input buffer) under an
// input-derived script of what a socket writer and the audio pump do to it.
import DashportSession
import Glibc
import Synchronization

/// Runs a script (each step one byte of operation, then its arguments; format below) against a
/// real ``SessionAudioInput`` and a plain model of its contract (a FIFO of the written stream's
/// bytes, kept as the stretches of the stream it holds; a writer flag; the streaming rule), and checks through `fuzzCheck`:
/// - every pull hands out exactly the frames asked for: the oldest buffered whole frames in order,
///   then silence, and says how many were audio;
/// - the buffer never holds more than ``SessionAudioInput/capacityBytes``; what did not fit is
///   counted as dropped; a new writer drops the partial frame the last one left, nothing else;
/// - `write` asks the writer to pause exactly when the high-water mark is reached, and a pending
///   `whenRoom` is called once, when a pull takes the level below it (never for a writer that went);
/// - `isStreaming` follows the model (a packet starts it, a writer that went and left less than a
///   frame, or a second of underruns, stops it) and every start calls `wake`;
/// - listening observers hear each change once.
///
/// Steps (`op % 6`): 0 a writer begins; 1 write `u16 % 70000` bytes; 2 pull (`byte & 1`: a
/// packet, else `u16 % 5000` frames); 3 the writer ends; 4 ask `whenRoom`; 5 set listening (`bool`).
public enum AudioInputFuzz {
    public static func run(_ input: [UInt8]) {
        var reader = FuzzReader(bytes: input, index: 0)
        let audio = SessionAudioInput()
        let wakes = Atomic<Int>(0)
        let rooms = Atomic<Int>(0)
        let heard = Mutex<[Bool]>([])
        audio.attach { wakes.add(1, ordering: .relaxed) }
        audio.observeListening { value in heard.withLock { $0.append(value) } }
        var model = Model()
        var counter = 0
        var out: [UInt8] = []
        var steps = 0
        while !reader.isAtEnd, steps < 2000 {
            steps += 1
            let wakesBefore = wakes.load(ordering: .relaxed)
            let streamingBefore = model.streaming
            switch reader.byte() % 6 {
            case 0:
                audio.writerBegan()
                model.writerBegan()
            case 1:
                let count = Int(reader.u16()) % 70_000
                // Stream bytes `counter ..< counter + count`, cut from one pattern made once: made
                // byte by byte per write they were most of an input's time.
                let start = counter % Self.period
                let accepting = audio.write(Array(Self.pattern[start..<(start + count)]))
                model.write(counter..<(counter + count))
                counter += count
                fuzzCheck(accepting == (model.count < SessionAudioInput.highWaterBytes), "write's pause answer is wrong")
            case 2:
                let frames = reader.byte() & 1 == 1 ? SessionAudioFormat.framesPerPacket : Int(reader.u16()) % 5000
                out.removeAll(keepingCapacity: true)  // one buffer for every pull: growing a fresh one was a copy per pull
                out.append(9)
                let got = audio.pull(frames: frames, into: &out)
                let expected = model.pull(frames)
                let audioBytes = expected.reduce(0) { $0 + $1.count }
                fuzzCheck(got == audioBytes / 4, "pull said \(got) frames of audio, the model \(audioBytes / 4)")
                fuzzCheck(out.count == 1 + frames * 4, "pull appended \(out.count - 1) bytes for \(frames) frames")
                fuzzCheck(out.first == 9, "pull overwrote what the buffer held")
                var offset = 1
                for range in expected where offset + range.count <= out.count {
                    fuzzCheck(
                        Self.same(out[offset..<(offset + range.count)], Self.stream(range)), "pull handed out other bytes than were written"
                    )
                    offset += range.count
                }
                fuzzCheck(Self.silent(out.dropFirst(1 + audioBytes)), "an underrun was not padded with silence")
                if model.roomPending, model.count < SessionAudioInput.highWaterBytes {
                    model.roomPending = false
                    model.roomsCalled += 1
                }
            case 3:
                audio.writerEnded()
                model.writerEnded()
            case 4:
                audio.whenRoom { rooms.add(1, ordering: .relaxed) }
                if model.count < SessionAudioInput.highWaterBytes { model.roomsCalled += 1 } else { model.roomPending = true }
            default:
                let value = reader.bool()
                audio.setListening(value)
                if value != model.listening {
                    model.listening = value
                    model.heard.append(value)
                }
            }
            fuzzCheck(audio.bufferedBytes == model.count, "buffered \(audio.bufferedBytes), the model \(model.count)")
            fuzzCheck(audio.bufferedBytes <= SessionAudioInput.capacityBytes, "the buffer outgrew its capacity")
            fuzzCheck(
                audio.statistics.droppedBytes == model.dropped, "dropped \(audio.statistics.droppedBytes), the model \(model.dropped)")
            fuzzCheck(audio.isStreaming == model.streaming, "streaming \(audio.isStreaming), the model \(model.streaming)")
            fuzzCheck(audio.hasWriter == model.writer, "the writer flag differs")
            fuzzCheck(rooms.load(ordering: .relaxed) == model.roomsCalled, "whenRoom called \(rooms.load(ordering: .relaxed)) times")
            if model.streaming, !streamingBefore {
                fuzzCheck(wakes.load(ordering: .relaxed) > wakesBefore, "the stream started without a wake")
            }
        }
        fuzzCheck(heard.withLock { $0 } == [false] + model.heard, "listening observers heard \(heard.withLock { $0 })")
    }

    /// Whether two byte runs are equal, by `memcmp`: compared byte by byte in this module (built
    /// with libFuzzer's comparison tracing) each byte called a tracing hook, and pulls of up to
    /// 20 KB made those hooks most of an input's time.
    static func same(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }  // both empty
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// Whether every byte is zero, by `memcmp` against zeros made once (an or-reduction in this
    /// module still went through a comparison hook per word).
    static func silent(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var index = 0
            while index < raw.count {
                let length = min(raw.count - index, zeros.count)
                let equal = zeros.withUnsafeBytes { zero in
                    guard let p = raw.baseAddress, let q = zero.baseAddress else { return true }
                    return memcmp(p + index, q, length) == 0
                }
                guard equal else { return false }
                index += length
            }
            return true
        }
    }

    static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Byte `p` of the stream the writes are cut from is `p &* 7` (truncated), so it repeats every
    /// `period` bytes. (It was written `p &* 31 >> 2`, which is this: `>>` binds first.)
    static let period = 256

    /// The stream from position 0 of a period, long enough for the longest write from any offset
    /// and for anything the buffer holds at once.
    static let pattern: [UInt8] = (0..<(max(70_000, SessionAudioInput.capacityBytes) + period)).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// Stream positions `range` (at most the buffer's capacity long) as bytes.
    static func stream(_ range: Range<Int>) -> ArraySlice<UInt8> {
        let start = range.lowerBound % period
        return pattern[start..<(start + range.count)]
    }

    /// The contract, plainly. The bytes are not kept: every write is a stretch of one stream
    /// (`stream(_:)`), so the FIFO is the stretches of it that are buffered, oldest first.
    struct Model {
        var fifo: [Range<Int>] = []
        /// Bytes buffered (the stretches' lengths added up).
        var count = 0
        var writer = false
        var streaming = false
        var underruns = 0
        var dropped: UInt64 = 0
        var roomPending = false
        var roomsCalled = 0
        var listening = false
        var heard: [Bool] = []

        mutating func writerBegan() {
            var partial = count % 4
            dropped += UInt64(partial)
            count -= partial
            while partial > 0, let last = fifo.last {
                let cut = min(partial, last.count)
                fifo[fifo.count - 1] = last.lowerBound..<(last.upperBound - cut)
                if fifo[fifo.count - 1].isEmpty { fifo.removeLast() }
                partial -= cut
            }
            writer = true
            underruns = 0
        }

        /// A write of the stream's `bytes`.
        mutating func write(_ bytes: Range<Int>) {
            let taken = min(bytes.count, SessionAudioInput.capacityBytes - count)
            if taken > 0 {
                if let last = fifo.last, last.upperBound == bytes.lowerBound {
                    fifo[fifo.count - 1] = last.lowerBound..<(bytes.lowerBound + taken)
                } else {
                    fifo.append(bytes.lowerBound..<(bytes.lowerBound + taken))
                }
            }
            count += taken
            dropped += UInt64(bytes.count - taken)
            if !streaming, count >= SessionAudioFormat.bytesPerPacket {
                streaming = true
                underruns = 0
            }
            if count >= 4 { underruns = 0 }
        }

        /// The stretches of the stream a pull of `frames` hands out, in order.
        mutating func pull(_ frames: Int) -> [Range<Int>] {
            let audio = min(frames, count / 4)
            var left = audio * 4
            var out: [Range<Int>] = []
            var taken = 0
            while left > 0 {
                let first = fifo[taken]
                let cut = min(left, first.count)
                out.append(first.lowerBound..<(first.lowerBound + cut))
                left -= cut
                if cut == first.count { taken += 1 } else { fifo[taken] = (first.lowerBound + cut)..<first.upperBound }
            }
            fifo.removeFirst(taken)
            count -= audio * 4
            if !writer, count < 4 {
                dropped += UInt64(count)
                fifo = []
                count = 0
                streaming = false
            } else if audio < frames {
                underruns += 1
                if underruns >= SessionAudioInput.idlePacketsBeforeStop { streaming = false }
            } else {
                underruns = 0
            }
            return out
        }

        mutating func writerEnded() {
            writer = false
            roomPending = false
            if !streaming, count >= 4 {
                streaming = true
            } else if count < 4 {
                streaming = false
            }
        }
    }
}
