import DashportTestSupport
import DashportClock
import DashportBrowse
import Foundation
import Synchronization
import Testing
@testable import DashportSession

extension TestLibrary {
    /// A music track of `ms` milliseconds whose tone is `hz`.
    static func tone(_ id: String, ms: Int64, hz: String) -> BrowseItem {
        BrowseItem(
            id: id, title: id.uppercased(), playable: true, mediaType: .music, durationMs: ms,
            metadata: BrowseItem.Metadata(extras: ["toneHz": hz]))
    }

    /// ```
    /// root ─ tab-tones ─ album-t ─ t1 (100 ms, 440 Hz), t2 (150 ms, 659.26 Hz), t3 (200 ms, 1046.5 Hz)
    /// ```
    static let tones = TestLibrary(tree: [
        BrowseItem.rootId: [BrowseItem(id: "tab-tones", title: "Tones", browsable: true)],
        "tab-tones": [BrowseItem(id: "album-t", title: "Tones", browsable: true, playable: true, mediaType: .album)],
        "album-t": [tone("t1", ms: 100, hz: "440"), tone("t2", ms: 150, hz: "659.26"), tone("t3", ms: 200, hz: "1046.5")],
    ])
}

/// A demo core whose player is attached as the server would attach it, and what it pulled.
final class AudioRig: Sendable {
    let clock: ManualClock
    let handler: DemoPlaybackHandler
    let core: SessionCore
    private let wakes = Mutex(0)

    init(library: any BrowseProvider = TestLibrary.tones) {
        let clock = ManualClock()
        self.clock = clock
        handler = DemoPlaybackHandler(library: library, clock: clock, shuffleSeed: 42)
        core = SessionCore(handler: handler, clock: clock, configuration: testConfiguration)
        handler.player.attach { [weak self] in self?.wakes.withLock { $0 += 1 } }
    }

    var player: DemoTonePlayer { handler.player }
    var wakeCount: Int { wakes.withLock { $0 } }
    /// Frames of the current track the player has played (exact).
    var framesPlayed: Double { player.deck.withLock { $0.position } }

    /// Plays `id` (its siblings queued) and expects it accepted.
    func play(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await core.perform(.playFromMediaId(id), from: .local) == .accepted, sourceLocation: sourceLocation)
    }

    /// Pulls `frames` frames: the left channel as samples (checking the right one is the same), and
    /// how many were audio.
    func pull(_ frames: Int, sourceLocation: SourceLocation = #_sourceLocation) -> (samples: [Int16], audio: Int) {
        var bytes: [UInt8] = []
        let audio = player.pull(frames: frames, into: &bytes)
        #expect(bytes.count == frames * SessionAudioFormat.bytesPerFrame, sourceLocation: sourceLocation)
        var left: [Int16] = []
        var same = true
        for frame in 0..<frames {
            let base = frame * 4
            let l = Int16(bitPattern: UInt16(bytes[base]) | UInt16(bytes[base + 1]) << 8)
            let r = Int16(bitPattern: UInt16(bytes[base + 2]) | UInt16(bytes[base + 3]) << 8)
            same = same && l == r
            left.append(l)
        }
        #expect(same, "both channels carry the same tone", sourceLocation: sourceLocation)
        return (left, audio)
    }

    /// Pulls `count` whole packets (2048 frames each).
    func pullPackets(_ count: Int) -> [Int16] {
        (0..<count).flatMap { _ in pull(SessionAudioFormat.framesPerPacket).samples }
    }
}

/// Tone detection: the Goertzel filter's power at `hz` over `samples`.
func goertzelPower(_ samples: some Collection<Int16>, hz: Double) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * hz / Double(SessionAudioFormat.sampleRate))
    var s1 = 0.0
    var s2 = 0.0
    for sample in samples {
        let s = Double(sample) + coefficient * s1 - s2
        s2 = s1
        s1 = s
    }
    return s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

/// Which of `candidates` is loudest in `samples`, and whether it beats every other one tenfold.
func dominantTone(_ samples: some Collection<Int16>, among candidates: [Double]) -> (hz: Double, clear: Bool)? {
    let powers = candidates.map { ($0, goertzelPower(samples, hz: $0)) }.sorted { $0.1 > $1.1 }
    guard let best = powers.first else { return nil }
    return (best.0, powers.count < 2 || best.1 > 10 * powers[1].1)
}

/// Every demo tone (the test library's are among them).
let candidateTones: [Double] = [
    220, 293.66, 369.99, 440, 523.25, 587.33, 659.26, 739.99, 830.61, 932.33, 1046.5, 1108.73, 1174.66,
    1244.51, 1318.51, 1396.91, 1479.98, 1567.98, 1661.22, 1760,
]

/// The largest change from one sample to the next.
func largestStep(_ samples: [Int16]) -> Int {
    zip(samples, samples.dropFirst()).map { abs(Int($1) - Int($0)) }.max() ?? 0
}

/// The largest step a tone at `hz` can take between two samples at full level, plus what a fade
/// adds per sample and rounding.
func stepBound(hz: Double) -> Int {
    let peak = DemoTonePlayer.amplitude * Double(Int16.max)
    return Int((peak * 2 * Double.pi * hz / Double(SessionAudioFormat.sampleRate) + peak / Double(DemoTonePlayer.fadeFrames)).rounded(.up))
        + 2
}

/// The first update on `iterator` that `match` accepts (the core must be about to deliver it).
func awaitUpdate(
    _ iterator: inout AsyncStream<SessionUpdate>.Iterator, _ match: (SessionUpdate) -> Bool
) async -> SessionUpdate? {
    while let update = await iterator.next() {
        if match(update) { return update }
    }
    return nil
}
