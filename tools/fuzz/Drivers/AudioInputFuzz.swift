// The FuzzSession driver: `SessionAudioInput` (the server's audio input buffer) under an
// input-derived script of what a socket writer and the audio pump do to it.
import DashportSession
import Glibc
import Synchronization

/// Runs a script (each step one byte of operation, then its arguments; format below) against a
/// real ``SessionAudioInput`` and a plain model of its contract (a FIFO of bytes, a writer flag,
/// the streaming rule), and checks through `fuzzCheck`:
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
                // The bytes (counter + i) &* 31 >> 2, cut from one pattern made once: made byte by
                // byte per write they were most of an input's time.
                let start = counter % 1024
                let bytes = Array(Self.pattern[start..<(start + count)])
                counter += count
                let accepting = audio.write(bytes)
                model.write(bytes)
                fuzzCheck(accepting == (model.fifo.count < SessionAudioInput.highWaterBytes), "write's pause answer is wrong")
            case 2:
                let frames = reader.byte() & 1 == 1 ? SessionAudioFormat.framesPerPacket : Int(reader.u16()) % 5000
                var out: [UInt8] = [9]
                let got = audio.pull(frames: frames, into: &out)
                let expected = model.pull(frames)
                fuzzCheck(got == expected.count / 4, "pull said \(got) frames of audio, the model \(expected.count / 4)")
                fuzzCheck(out.count == 1 + frames * 4, "pull appended \(out.count - 1) bytes for \(frames) frames")
                fuzzCheck(out.first == 9, "pull overwrote what the buffer held")
                fuzzCheck(Self.same(out.dropFirst().prefix(expected.count), expected[...]), "pull handed out other bytes than were written")
                fuzzCheck(Self.silent(out.dropFirst(1 + expected.count)), "an underrun was not padded with silence")
                if model.roomPending, model.fifo.count < SessionAudioInput.highWaterBytes {
                    model.roomPending = false
                    model.roomsCalled += 1
                }
            case 3:
                audio.writerEnded()
                model.writerEnded()
            case 4:
                audio.whenRoom { rooms.add(1, ordering: .relaxed) }
                if model.fifo.count < SessionAudioInput.highWaterBytes { model.roomsCalled += 1 } else { model.roomPending = true }
            default:
                let value = reader.bool()
                audio.setListening(value)
                if value != model.listening {
                    model.listening = value
                    model.heard.append(value)
                }
            }
            fuzzCheck(audio.bufferedBytes == model.fifo.count, "buffered \(audio.bufferedBytes), the model \(model.fifo.count)")
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

    /// Whether every byte is zero, with one comparison: the bytes are or-ed together first.
    static func silent(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var any: UInt64 = 0
            var index = 0
            while index + 8 <= raw.count {
                any |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                any |= UInt64(raw[index])
                index += 1
            }
            return any == 0
        }
    }

    /// What writes are cut from: byte `i` is `i &* 31 >> 2`, which repeats every 1024 bytes (every
    /// 256, as Swift's `>>` binds first), long enough for the longest write from any offset.
    static let pattern: [UInt8] = (0..<(70_000 + 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 2) }

    /// The contract, plainly.
    struct Model {
        var fifo: [UInt8] = []
        var writer = false
        var streaming = false
        var underruns = 0
        var dropped: UInt64 = 0
        var roomPending = false
        var roomsCalled = 0
        var listening = false
        var heard: [Bool] = []

        mutating func writerBegan() {
            let partial = fifo.count % 4
            fifo.removeLast(partial)
            dropped += UInt64(partial)
            writer = true
            underruns = 0
        }

        mutating func write(_ bytes: [UInt8]) {
            let taken = min(bytes.count, SessionAudioInput.capacityBytes - fifo.count)
            fifo += bytes.prefix(taken)
            dropped += UInt64(bytes.count - taken)
            if !streaming, fifo.count >= SessionAudioFormat.bytesPerPacket {
                streaming = true
                underruns = 0
            }
            if fifo.count >= 4 { underruns = 0 }
        }

        mutating func pull(_ frames: Int) -> [UInt8] {
            let audio = min(frames, fifo.count / 4)
            let out = Array(fifo.prefix(audio * 4))
            fifo.removeFirst(audio * 4)
            if !writer, fifo.count < 4 {
                dropped += UInt64(fifo.count)
                fifo = []
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
            if !streaming, fifo.count >= 4 {
                streaming = true
            } else if fifo.count < 4 {
                streaming = false
            }
        }
    }
}
