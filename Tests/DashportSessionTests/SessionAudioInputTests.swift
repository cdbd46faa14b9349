import DashportSession
import Synchronization
import Testing

/// The audio input's buffer contract, on plain bytes: what a pull hands out, when it streams, when
/// the writer is paused and resumed, and who is told that a car listens.
@Suite("Session audio input")
struct SessionAudioInputTests {
    static let packet = SessionAudioFormat.bytesPerPacket
    static let frames = SessionAudioFormat.framesPerPacket

    /// `count` bytes counting up from `first` (so order and alignment are visible).
    static func bytes(_ count: Int, from first: Int = 0) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: first + $0) } }

    @Test func aPacketWrittenStartsTheStreamAndIsPulledInOrder() {
        let input = SessionAudioInput()
        let wakes = Atomic<Int>(0)
        input.attach { wakes.add(1, ordering: .relaxed) }
        input.writerBegan()
        #expect(input.write(Self.bytes(Self.packet - 4)))
        #expect(!input.isStreaming, "less than a packet: the stream does not start on silence")
        #expect(input.write(Self.bytes(4, from: Self.packet - 4)))
        #expect(input.isStreaming)
        #expect(wakes.load(ordering: .relaxed) >= 1)
        var out: [UInt8] = []
        #expect(input.pull(frames: Self.frames, into: &out) == Self.frames)
        #expect(out == Self.bytes(Self.packet))
    }

    /// Underrun: silence with the audio it has, counted; after a second of nothing it stops.
    @Test func anUnderrunIsPaddedWithSilenceAndASecondOfItStopsTheStream() {
        let input = SessionAudioInput()
        input.attach {}
        input.writerBegan()
        _ = input.write([UInt8](repeating: 7, count: Self.packet + 400))
        var out: [UInt8] = []
        #expect(input.pull(frames: Self.frames, into: &out) == Self.frames)
        out = []
        #expect(input.pull(frames: Self.frames, into: &out) == 100)
        #expect(out.count == Self.packet)
        #expect(out.prefix(400).allSatisfy { $0 == 7 } && out.dropFirst(400).allSatisfy { $0 == 0 })
        #expect(input.statistics.underrunFrames == UInt64(Self.frames - 100))
        for _ in 1..<SessionAudioInput.idlePacketsBeforeStop {
            #expect(input.isStreaming)
            out = []
            _ = input.pull(frames: Self.frames, into: &out)
        }
        #expect(!input.isStreaming, "a second without data: the pump stops rather than send silence forever")
        _ = input.write([UInt8](repeating: 1, count: Self.packet))
        #expect(input.isStreaming, "the next packet starts it again")
    }

    /// The writer goes mid-frame: what it wrote plays, the partial frame is dropped, the next
    /// writer's frames are aligned.
    @Test func aWriterThatGoesMidFrameLosesOnlyThatFrame() {
        let input = SessionAudioInput()
        input.attach {}
        input.writerBegan()
        _ = input.write(Self.bytes(Self.packet + 6))
        input.writerEnded()
        var out: [UInt8] = []
        #expect(input.pull(frames: Self.frames, into: &out) == Self.frames)
        out = []
        #expect(input.pull(frames: Self.frames, into: &out) == 1, "one whole frame was left")
        #expect(!input.isStreaming)
        input.writerBegan()
        _ = input.write(Self.bytes(Self.packet, from: 100))
        out = []
        #expect(input.pull(frames: Self.frames, into: &out) == Self.frames)
        #expect(out == Self.bytes(Self.packet, from: 100))
        #expect(input.statistics.droppedBytes == 2)
    }

    /// Back-pressure: at the high-water mark the writer is told to pause; a pull that makes room
    /// resumes it; the ring never holds more than its capacity.
    @Test func theWriterPausesAtTheHighWaterMarkAndResumesWhenAPullMakesRoom() {
        let input = SessionAudioInput()
        input.attach {}
        input.writerBegan()
        #expect(!input.write(Self.bytes(SessionAudioInput.highWaterBytes)))
        let resumed = Atomic<Int>(0)
        input.whenRoom { resumed.add(1, ordering: .relaxed) }
        #expect(resumed.load(ordering: .relaxed) == 0)
        #expect(!input.write(Self.bytes(SessionAudioInput.capacityBytes)), "what arrives after the mark is kept up to capacity")
        #expect(input.bufferedBytes == SessionAudioInput.capacityBytes)
        #expect(input.statistics.droppedBytes == UInt64(SessionAudioInput.highWaterBytes))
        var out: [UInt8] = []
        while input.bufferedBytes >= SessionAudioInput.highWaterBytes {
            #expect(resumed.load(ordering: .relaxed) == 0)
            _ = input.pull(frames: Self.frames, into: &out)
        }
        #expect(resumed.load(ordering: .relaxed) == 1)
    }

    @Test func observersHearWhetherACarListens() {
        let input = SessionAudioInput()
        let heard = Mutex<[Bool]>([])
        let id = input.observeListening { value in heard.withLock { $0.append(value) } }
        input.setListening(true)
        input.setListening(true)
        input.setListening(false)
        input.stopObserving(id)
        input.setListening(true)
        #expect(heard.withLock { $0 } == [false, true, false])
    }
}
