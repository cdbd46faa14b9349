// The FuzzServices driver: how an input becomes calls on one service, and what must hold. It lives
// in the DashportFuzzDrivers library, which both the FuzzServices fuzz target and
// Tests/DashportServicesTests/FuzzReplayTests.swift import, so a kept input replays exactly as the
// fuzzer ran it. A broken invariant goes to `fuzzViolation` (FuzzInvariant.swift): a trap under
// libFuzzer, an issue in the tests.
import DashportClock
import DashportBrowse
import DashportMessages
import DashportServices
import DashportSession

/// Runs one input through one sans-IO service. Byte 0 picks the service (`% 5`: AAP input, AAP
/// playback status, AAP classic browser, Dashport media channel, AAP media audio sink; `% 5`
/// rather than the former `& 3` keeps every kept input, whose first bytes are 0…3, on its service);
/// the next bytes configure it
/// (small caps, so the cap paths are reachable); the rest is a script of operations, one byte each
/// (`op & 7` the kind) followed by its arguments: a message from the car (well-formed from
/// input-derived fields, or raw id and body), an answer from the core or the artwork pipeline with
/// input-derived contents (to a pending ticket, or a stale, unknown or mismatched one), a session
/// update, or the clock moving on with a tick at every deadline on the way.
///
/// Invariants, for every service: no crash; every message sent goes on the service's channel,
/// has an id the service sends, decodes with the generated type of that id and fits the message
/// cap; commands name the right source; after a tick `nextDeadline` is later than the tick (a
/// driver never spins); in-flight counts never exceed their caps; and the checks per service in
/// the `run…` functions.
public enum ServicesFuzz {
    public static func run(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        var reader = Reader(bytes: input, index: 1)
        switch selector % 5 {
        case 0: runInput(&reader)
        case 1: runStatus(&reader)
        case 2:
            var classic = ClassicRun(&reader)
            classic.run()
        case 3:
            var media = MediaRun(&reader)
            media.run()
        default:
            var sink = SinkRun(&reader)
            sink.run()
        }
    }

    /// The name every service gets for its car.
    static let car = "fuzz-car"

    /// Every message on the wire must fit this (the link's message cap).
    static func checkSize(_ message: OutgoingMessage, channel: UInt8) {
        fuzzCheck(message.channel == channel, "a message on channel \(message.channel), not the service's \(channel)")
        fuzzCheck(
            message.body.count + 2 <= WireLimits.maximumMessageBytes,
            "a \(message.body.count)-byte body does not fit one message")
    }

    /// Decodes `body` as `type`, reporting a body the service wrote that its own schema cannot read.
    static func decode<M: WireMessage>(_ type: M.Type, _ body: [UInt8]) -> M? {
        do {
            return try M(serializedBytes: body)
        } catch {
            fuzzViolation("a \(M.self) the service sent does not decode: \(error)")
            return nil
        }
    }

    /// `text` as it arrives through protobuf-c, which ends a string at its first NUL.
    static func onWire(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix { $0 != "\0" }))
    }

    // MARK: - Reading the input

    typealias Reader = FuzzReader

    // MARK: - Values from the core, within what the core would hand over

    static func browseItem(_ r: inout Reader) -> BrowseItem {
        let flags = r.byte()
        return BrowseItem(
            id: r.string(), title: r.string(), subtitle: flags & 0x04 != 0 ? r.string() : nil,
            artworkUri: flags & 0x08 != 0 ? r.uri() : nil, browsable: flags & 0x01 != 0, playable: flags & 0x02 != 0,
            childStyle: flags & 0x10 != 0 ? r.pick(BrowseItem.ChildStyle.allCases) : nil,
            mediaType: flags & 0x20 != 0 ? r.pick(BrowseItem.MediaType.allCases) : nil,
            artist: flags & 0x40 != 0 ? r.string() : nil, album: flags & 0x40 != 0 ? r.string() : nil,
            durationMs: flags & 0x80 != 0 ? r.int64() : nil)
    }

    /// A page of items (a total from edge values) or an error screen.
    static func browseAnswer(_ r: inout Reader) -> BrowseAnswer {
        let flags = r.byte()
        if flags & 0x01 != 0 {
            let resolution = flags & 0x02 != 0 ? BrowseError.Resolution(label: r.string(), url: r.string()) : nil
            return .error(BrowseError(code: r.pick(BrowseError.Code.allCases), message: r.string(), resolution: resolution))
        }
        let count = Int(flags >> 2) % (flags & 0x02 != 0 ? 40 : 6)
        let items = (0..<count).map { _ in browseItem(&r) }
        let total = r.pick([items.count, 0, items.count + 7, 1000, Int.max])
        return .items(items, total: total, fromCache: flags & 0x80 != 0)
    }

    static func mediaItem(_ r: inout Reader) -> MediaItem {
        let flags = r.byte()
        let id = r.string()
        return MediaItem(
            id: id.isEmpty ? "item" : id, title: flags & 0x01 != 0 ? r.string() : nil,
            subtitle: flags & 0x02 != 0 ? r.string() : nil, artist: flags & 0x04 != 0 ? r.string() : nil,
            album: flags & 0x08 != 0 ? r.string() : nil, artworkUri: flags & 0x10 != 0 ? r.uri() : nil,
            durationMs: flags & 0x20 != 0 ? r.millis() : nil,
            albumArtist: flags & 0x40 != 0 ? r.string() : nil, genre: flags & 0x40 != 0 ? r.string() : nil,
            trackNumber: flags & 0x80 != 0 ? Int(r.u16()) : nil, discNumber: flags & 0x80 != 0 ? Int(r.byte()) : nil,
            year: flags & 0x80 != 0 ? Int(Int16(bitPattern: r.u16())) : nil, isLive: flags & 0x40 != 0 ? r.bool() : nil,
            extras: flags & 0x40 != 0 ? [r.string(): r.string()] : nil)
    }

    static func playbackState(_ r: inout Reader) -> PlaybackState {
        let flags = r.byte()
        let capabilities = Set(SessionCapability.allCases.filter { _ in r.bool() })
        let actions =
            flags & 0x40 != 0 && capabilities.contains(.customAction)
            ? [CustomAction(name: "like", label: "Like", iconUri: r.uri()), CustomAction(name: "skip", label: "Skip")] : []
        return PlaybackState(
            status: r.pick(PlaybackStatus.allCases),
            position: PositionAnchor(
                valueMs: r.millis(), at: ClockInstant(milliseconds: r.int64()),
                rate: r.pick([1, 0, 0.5, 2, PlaybackState.maxRate])),
            bufferedPositionMs: flags & 0x01 != 0 ? r.millis() : nil,
            controls: Set(SessionCapability.allCases.filter { capabilities.contains($0) && r.bool() }),
            capabilities: capabilities, customActions: actions,
            queueIndex: flags & 0x02 != 0 ? Int(r.byte() % 8) : nil, errorMessage: flags & 0x04 != 0 ? r.string() : nil,
            repeatMode: r.pick(RepeatMode.allCases), shuffle: flags & 0x08 != 0)
    }

    static func sessionUpdate(_ r: inout Reader) -> SessionUpdate {
        switch r.byte() % 7 {
        case 0: .playbackState(playbackState(&r))
        case 1: .mediaItem(MediaItemState(item: r.maybe(mediaItem)))
        case 2: .queue(QueueState(items: (0..<Int(r.byte() % 8)).map { _ in mediaItem(&r) }, title: r.maybe { $0.string() }))
        case 3:
            .error(
                SessionError(
                    code: r.pick(SessionError.Code.allCases), severity: r.pick([.fatal, .degraded]),
                    message: r.string(), subject: r.maybe { $0.string() }))
        case 5:
            .sleepTimer(
                r.maybe { r in
                    SleepTimerStatus(
                        timer: r.bool() ? .endOfTrack : .duration(ms: 1000),
                        deadline: r.maybe { ClockInstant(milliseconds: $0.int64()) })
                })
        case 6:
            .remotePlayback(
                r.maybe { r in
                    RemotePlayback(
                        volume: Double(r.byte()) / 255, muted: r.bool(), steps: Int(r.byte()),
                        control: r.pick(RemotePlayback.Control.allCases))
                })
        default: .sleepTimerFired
        }
    }

    static func commandResult(_ r: inout Reader) -> CommandResult {
        r.bool() ? .accepted : .rejected(reason: r.pick(rejections) + r.string())
    }

    /// The phrasings the session core rejects with, so every classification is reachable.
    static let rejections = [
        "", "seekTo is not in the declared capabilities", "notSupported: ", "there is no item '", "seek position ",
        "custom action '", "already at the end of the queue", "3 extras, more than ",
        SessionCore.remotePlaybackNotDeclared, SessionCore.remoteVolumeNotWritable, "queue position ", "volume ",
    ]

    static func command(_ r: inout Reader) -> SessionCommand {
        switch r.byte() % 6 {
        case 0: .play
        case 1: .playPause
        case 2: .seekTo(ms: r.int64())
        case 3: .skipToNext
        case 4: .playFromMediaId(r.string())
        default: .customAction(name: r.string(), extras: [:])
        }
    }

    /// Image bytes for an artwork answer: none, empty, or some (possibly over a cap).
    static func imageBytes(_ r: inout Reader) -> [UInt8]? {
        switch r.byte() % 4 {
        case 0: nil
        case 1: []
        default: [UInt8](repeating: 0xAB, count: r.length() * 8)
        }
    }
}

/// ServicesFuzz's menus of values the core hands over (strings, ids, URIs, times).
extension FuzzReader {
    /// One byte; with its top bit set, 15 bits from two.
    mutating func length() -> Int {
        let first = byte()
        return first & 0x80 == 0 ? Int(first) : Int(first & 0x7F) << 8 | Int(byte())
    }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    /// One of `options`, or (the choice after the last) whatever `other` reads.
    mutating func pick<T>(_ options: [T], or other: (inout FuzzReader) -> T) -> T {
        let choice = Int(byte()) % (options.count + 1)
        return choice < options.count ? options[choice] : other(&self)
    }

    mutating func maybe<T>(_ make: (inout FuzzReader) -> T) -> T? {
        bool() ? make(&self) : nil
    }

    /// A string from a menu of troublesome ones, or (top bit) any bytes as UTF-8.
    mutating func string() -> String {
        let choice = byte()
        if choice & 0x80 != 0 { return String(decoding: take(Int(choice & 0x7F)), as: UTF8.self) }
        return Self.strings[Int(choice) % Self.strings.count]
    }

    static let strings = [
        "", "a", "b", "c", "song-1", "album-7", BrowseItem.rootId, "é ü/%2F", "%", "%zz", "/src/a", "\u{0}",
        String(repeating: "x", count: 300), "tab 1", "🎵",
    ]

    /// An Int64 from edge values, or a multiple of 1000 from two bytes.
    mutating func int64() -> Int64 {
        let choice = byte()
        if choice & 0x80 != 0 { return Int64(u16()) * 1000 }
        return [0, 1, 999, 1000, 59_999, 180_000, .max, .max - 1, 1 << 53][Int(choice) % 9]
    }

    /// A non-negative Int64 duration or position (what the session core accepts).
    mutating func millis() -> Int64 { max(0, int64()) }

    mutating func uri() -> String? { pick(Self.uris) }

    static let uris: [String?] = [nil, "", "https://img.example/1.jpg", "https://img.example/2.jpg", "file:///music/c.png"]
}
