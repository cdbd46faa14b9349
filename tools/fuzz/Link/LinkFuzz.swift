// The FuzzLink driver: how an input becomes calls on a PhoneLink, and what must hold. It lives in
// the DashportFuzzLinkDrivers library (tools/fuzz/Link), which the three link fuzz targets and
// Tests/DashportLinkTests/FuzzReplayTests.swift import, so a kept input replays exactly as the
// fuzzer ran it; the library links the link's modules and no other driver, so libFuzzer has only
// their coverage counters to scan after each input. A broken invariant goes to `fuzzViolation`
// (tools/fuzz/Support/FuzzInvariant.swift): a trap under libFuzzer, an issue in the tests.
import DashportFrames
import DashportFuzzSupport
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTLS
import DashportRandom
import Glibc
import Synchronization

/// Runs one input through a fresh `PhoneLink` with a real TLS server context and reports every
/// break of the driver contract through `fuzzViolation` (the fuzz target traps, the tests record).
/// The first byte picks the mode (bit 0) and configuration bits:
/// - even: the rest is raw wire bytes from a "head unit", fed in input-derived splits with ticks
///   at input-derived times (reaches the version exchange and the TLS handshake);
/// - odd: a script of operations (`Script`) over a phone and a `HeadUnitLink` linked over real TLS:
///   raw bytes, service messages the head unit encrypts for real on its open channels, control
///   messages, clock steps, phone sends and bye-byes. The link is set up once per head-unit
///   configuration and copied onto live OpenSSL sessions for each input (`runOverLiveTLS`,
///   LinkFuzzLiveTLS.swift).
///
/// Invariants (`Watch`): no crash; at most one `.close`, always the last action, nothing
/// after it and `phase == .closed` exactly from then on; every `.send` is whole, well-formed frames
/// of at most 16384 bytes; setup events in order; message events only on channels the events
/// opened, which match `openServices`; after a tick `nextDeadline` is later than the tick. In the
/// running mode also: the head unit can always read what the phone sends, a clean service message
/// arrives intact, and a bye-bye always ends the link within the grace.
public enum LinkFuzz {
    public static func run(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        if mode & 1 == 0 {
            runRaw(input)
        } else {
            runOverLiveTLS(input)
        }
    }

    /// What protects the link's records: real TLS (`FuzzLink`, the handshake phase and the
    /// running link over OpenSSL) or the null layer (`FuzzLinkRunning`, see `NullRecordLayer`).
    public enum Records: Sendable { case tls, null }

    /// The `FuzzLinkRunning` target: the link past its handshake, over null record layers on both
    /// sides, so an input costs no RSA or ECDHE. Byte 0 configures the head unit as in `Script`.
    /// Odd: the rest is a `Script`, as in `FuzzLink`'s running mode (so its corpus seeds this one).
    /// Even: the rest is the raw byte stream into the running phone (`Script.runStream`): frames
    /// the input spells itself, encrypted ones carrying null records (`NullRecordLayer`).
    public static func runPostHandshake(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        // A discovery response from the input needs its own handshake; any other byte 0 starts
        // from a copy of the pair linked once for its head-unit flags (`linkedPairs`).
        let script = mode & 0x80 == 0 ? linkedPair(input) : Script(input, records: .null)
        if mode & 1 == 0 {
            script.runStream()
        } else {
            script.run()
        }
    }

    /// Null-layer pairs past their handshake, one per head-unit configuration (byte 0 bits 1–6),
    /// linked on first use and only ever copied afterwards: an input no longer pays for the
    /// version exchange, discovery and channel opens (FuzzLinkRunning went from ~370 to thousands
    /// of inputs a second).
    ///
    /// `nonisolated(unsafe)` because a `Script` is not Sendable: every access holds
    /// `linkedPairsLock`, and a stored pair never leaves it (callers get a copy made under the lock,
    /// which shares no mutable object with the pair: layers, links and watch are copied).
    nonisolated(unsafe) private static var linkedPairs: [UInt8: Script] = [:]
    private static let linkedPairsLock = Mutex(())

    /// A script for `input` (byte 0 without bit 7) starting from a copy of its linked pair.
    static func linkedPair(_ input: [UInt8]) -> Script {
        let key = input[0] & 0x7E
        return linkedPairsLock.withLock { _ in
            let pair: Script
            if let known = linkedPairs[key] {
                pair = known
            } else {
                pair = withoutLeakChecks {
                    let pair = Script([key | 1], records: .null)
                    pair.link()
                    return pair
                }
                linkedPairs[key] = pair
            }
            return Script(input, after: pair)
        }
    }

    /// Runs `body` with LeakSanitizer ignoring what it allocates (`__lsan_disable`, this thread),
    /// when the process has LeakSanitizer (the fuzz build; elsewhere the symbols are absent and
    /// `body` just runs). The linked pairs live as long as the process, and LeakSanitizer cannot
    /// follow Swift's references packed with enum tags in their spare bits, so at exit it reported
    /// parts of them (a discovered car's service arrays) as leaked and libFuzzer kept the empty
    /// input as a crash.
    static func withoutLeakChecks<T>(_ body: () -> T) -> T {
        typealias Switch = @convention(c) () -> Void
        guard let disable = dlsym(nil, "__lsan_disable"), let enable = dlsym(nil, "__lsan_enable") else { return body() }
        unsafeBitCast(disable, to: Switch.self)()
        defer { unsafeBitCast(enable, to: Switch.self)() }
        return body()
    }

    /// What the null layer reports as the car's certificate when it "presents" one.
    static let nullCarFingerprint = String(repeating: "0f", count: 32)

    // MARK: - TLS, made once (RSA key generation is slow)

    private static func setUp<T>(_ build: () throws -> T) -> T {
        do { return try build() } catch { fatalError("FuzzLink setup failed: \(error)") }
    }

    static let phoneIdentity = setUp { try TLSIdentity.generate(commonName: "FuzzLink phone") }
    private static let serverContext = setUp { try TLSContext(.server(identity: phoneIdentity, peerPolicy: .acceptAny)) }
    private static let carContext = setUp {
        try TLSContext(.client(identity: try TLSIdentity.generate(commonName: "FuzzLink car")))
    }
    private static let anonymousCarContext = setUp { try TLSContext(.client(identity: nil)) }

    /// The running mode's phone: the same server, but issuing TLS 1.2 session tickets, so a car
    /// that offers the session of an earlier input resumes it (`TLSContext(_:resumableSessions:)`,
    /// package-level; Dashport's server never resumes). The raw mode keeps `serverContext`.
    private static let resumingServerContext = setUp {
        try TLSContext(.server(identity: phoneIdentity, peerPolicy: .acceptAny), resumableSessions: true)
    }

    static func phoneSession() -> TLSSession { setUp { try TLSSession(context: serverContext) } }
    static func resumingPhoneSession() -> TLSSession { setUp { try TLSSession(context: resumingServerContext) } }
    static func carSession(certificate: Bool) -> TLSSession {
        setUp { try TLSSession(context: certificate ? carContext : anonymousCarContext) }
    }

    /// The latest session a running-mode car established with `resumingServerContext`, one per
    /// car context (with and without a certificate), which the next car offers: every input
    /// after the first runs a real but abbreviated TLS handshake (ClientHello, the phone's
    /// ServerHello and Finished, the car's Finished: no certificates, ECDHE or RSA, which took
    /// ~5 ms of each input). `nonisolated(unsafe)` because `TLSResumableSession` is not Sendable:
    /// every access holds `carSessionsLock`, and OpenSSL only reads a session it is handed.
    nonisolated(unsafe) private static var carSessions: [Bool: TLSResumableSession] = [:]
    private static let carSessionsLock = Mutex(())

    /// Offers `car` the session kept for its kind of car, if any.
    static func offerKeptSession(to car: TLSSession, certificate: Bool) {
        carSessionsLock.withLock { _ in
            guard let session = carSessions[certificate] else { return }
            setUp { try car.resume(session) }
        }
    }

    /// Keeps `car`'s session for the next input when its handshake was a full one (the first, or
    /// one whose offer the server no longer knew).
    static func keepSession(of car: TLSSession, certificate: Bool) {
        guard !car.wasResumed else { return }
        // Kept for the process's life: out of LeakSanitizer's sight, as the linked pairs are.
        carSessionsLock.withLock { _ in
            withoutLeakChecks {
                if let session = car.resumableSession { carSessions[certificate] = session }
            }
        }
    }

    // MARK: - Raw mode

    /// Small receive caps, so the cap errors are reachable with short inputs.
    static let tightLimits = FrameLimits(maxReceivePayload: 512, maxMessageSize: 1024, maxPendingBytes: 2048)

    /// Byte 0 bits 1–3: idle deadline 2 s, handshake deadline 3 s, tight limits.
    static func rawConfiguration(_ flags: UInt8) -> LinkConfiguration {
        var configuration = LinkConfiguration()
        if flags & 0x02 != 0 { configuration.idleDeadline = .seconds(2) }
        if flags & 0x04 != 0 { configuration.handshakeDeadline = .seconds(3) }
        if flags & 0x08 != 0 { configuration.limits = tightLimits }
        return configuration
    }

    static func runRaw(_ input: [UInt8]) {
        let phone = PhoneLink(configuration: rawConfiguration(input[0]), tls: phoneSession())
        let watch = Watch(phone)
        var random = SplitMix64(hashing: input)
        var now = Duration.seconds(1000)
        _ = watch.tick(now)
        var offset = 1
        while offset < input.count {
            let r = random.next()
            let end = min(input.count, offset + 1 + Int(r % (r & 0x300 == 0 ? 2048 : 16)))
            _ = watch.take(phone.receive(input[offset..<end], now: now))
            // As the server's worker does: what is left past one slice is decoded next.
            while phone.hasMoreToDecode { _ = watch.take(phone.receive([], now: now)) }
            if (r >> 20) & 3 == 0 {
                now += .milliseconds(Int64((r >> 24) % 4000))
                _ = watch.tick(now)
            }
            offset = end
        }
        // Setup cannot finish without the head unit's keys: the handshake deadline must end it.
        var steps = 0
        while let deadline = phone.nextDeadline, steps < 100 {
            now = max(now, deadline)
            _ = watch.tick(now)
            steps += 1
        }
        fuzzCheck(watch.closed, "an unfinished setup did not close at the handshake deadline (phase \(phone.phase))")
    }

    // MARK: - The contract every PhoneLink call keeps

    /// Checks each call's actions as a driver would perform them, and mirrors the link's channel
    /// state from its events.
    final class Watch {
        let phone: PhoneLink
        private(set) var closed = false
        /// 1 version negotiated, 2 TLS established, 3 auth complete, 4 discovered.
        private(set) var setupStep = 0
        /// Channels opened by `.channelOpened` and not closed or failed since.
        private(set) var openChannels: Set<UInt8> = []
        private(set) var messages: [(channel: UInt8, id: UInt16, body: [UInt8])] = []
        /// Whether `take` compares `openServices` with the events after every call (the raw
        /// mode). A `Script` turns it off and compares after each of its operations instead
        /// (`checkOpenServices`): a pump or a clock step is dozens of calls, and the comparison
        /// after each was a sixth of FuzzLinkRunning's time; a table that changed without an
        /// event is still caught, at the end of the operation.
        var checksEveryCall = true

        init(_ phone: PhoneLink) { self.phone = phone }

        /// This watch's record of a link, watching `phone` (a copy of the watched link).
        func copy(watching phone: PhoneLink) -> Watch {
            let copy = Watch(phone)
            copy.closed = closed
            copy.setupStep = setupStep
            copy.openChannels = openChannels
            copy.messages = messages
            copy.checksEveryCall = checksEveryCall
            return copy
        }

        /// Checks one call's actions; returns the bytes the driver would write.
        func take(_ actions: [LinkAction]) -> [UInt8] {
            if closed { fuzzCheck(actions.isEmpty, "actions after the close: \(actions)") }
            var wire: [UInt8] = []
            for (index, action) in actions.enumerated() {
                switch action {
                case .send(let bytes):
                    checkFrames(bytes)
                    wire += bytes
                case .event(let event):
                    record(event)
                case .close(let reason):
                    fuzzCheck(index == actions.count - 1, "close is not the last action: \(actions)")
                    fuzzCheck(phone.closeReason == reason, "closeReason \(String(describing: phone.closeReason)) is not \(reason)")
                    closed = true
                }
            }
            fuzzCheck(closed == (phone.phase == .closed), "phase \(phone.phase) disagrees with the close actions")
            if checksEveryCall { checkOpenServices() }
            return wire
        }

        /// Once running and until the close, `openServices` is exactly the channels the events opened.
        func checkOpenServices() {
            guard !closed && setupStep == 4 else { return }
            // Compared in place (no set built per call: allocations are most of what an input
            // costs under AddressSanitizer).
            let open = phone.openServices
            fuzzCheck(
                open.count == openChannels.count && open.allSatisfy { openChannels.contains($0.channel) },
                "openServices \(open.map(\.channel)) but the events opened \(openChannels.sorted())")
        }

        /// Ticks at `now` and checks that the next deadline moved past it (a driver never spins).
        func tick(_ now: Duration) -> [UInt8] {
            let wire = take(phone.tick(now: now))
            if let next = phone.nextDeadline { fuzzCheck(next > now, "nextDeadline \(next) is not after a tick at \(now)") }
            return wire
        }

        private func record(_ event: LinkEvent) {
            switch event {
            case .versionNegotiated: step(to: 1, event)
            case .tlsEstablished: step(to: 2, event)
            case .authComplete: step(to: 3, event)
            case .discovered: step(to: 4, event)
            case .channelOpened(let service):
                let wasClosed = openChannels.insert(service.channel).inserted
                fuzzCheck(setupStep == 4 && wasClosed, "\(event) for an open channel")
            case .channelOpenFailed(let service, _):
                fuzzCheck(setupStep == 4 && !openChannels.contains(service.channel), "\(event) for an open channel")
            case .channelClosed(let service):
                let wasOpen = openChannels.remove(service.channel) != nil
                fuzzCheck(wasOpen, "\(event) for a channel that was not open")
            case .message(let channel, let id, let body):
                // Channel 0 carries one message to the services: the car's AUDIO_FOCUS_NOTIFICATION
                // once running, for the media audio sink (aap-audio.md §A.0).
                let focus = channel == 0 && id == ControlID.audioFocusNotification && setupStep == 4
                fuzzCheck(openChannels.contains(channel) || focus, "a message \(id) on channel \(channel), which is not open")
                messages.append((channel, id, body))
            case .pingAnswered(let rtt):
                fuzzCheck(setupStep == 4 && rtt >= .zero, "\(event) before running, or negative")
            case .byeByeReceived:
                break
            }
        }

        private func step(to next: Int, _ event: LinkEvent) {
            fuzzCheck(setupStep == next - 1, "\(event) out of order (after setup step \(setupStep))")
            setupStep = next
        }
    }

    /// Whole, well-formed frames of at most 16384 bytes, carrying whole messages whose totals add up
    /// (an encrypted fragment is its plaintext plus 29 bytes of AES-GCM record).
    static func checkFrames(_ bytes: [UInt8]) {
        var decoder = FrameDecoder(limits: FrameLimits(maxReceivePayload: 65535, maxMessageSize: Int(UInt32.max)))
        decoder.feed(bytes)
        var partial: (channel: UInt8, total: Int, have: Int)?
        do {
            while let frame = try decoder.next() {
                let header = frame.header
                fuzzCheck(header.encodedSize + frame.payload.count <= 16384, "a \(header.encodedSize + frame.payload.count)-byte frame")
                fuzzCheck(header.flags.rawValue & 0xF0 == 0, "unused flag bits set: \(header)")
                fuzzCheck(header.channel != 0 || !header.flags.contains(.control), "control flag on channel 0")
                let encrypted = header.flags.contains(.encrypted)
                fuzzCheck(!encrypted || frame.payload.count > FrameLimits.tlsRecordOverhead, "an encrypted frame without a record")
                let plaintext = frame.payload.count - (encrypted ? FrameLimits.tlsRecordOverhead : 0)
                fuzzCheck(plaintext > 0, "an empty frame")
                switch header.type {
                case .bulk:
                    fuzzCheck(partial == nil && plaintext >= 2, "BULK inside a message, or without an id")
                case .first:
                    fuzzCheck(partial == nil, "FIRST inside a message")
                    let total = Int(header.totalLength ?? 0)
                    fuzzCheck(plaintext < total, "FIRST holds the whole \(total)-byte message")
                    partial = (header.channel, total, plaintext)
                case .middle, .last:
                    guard let open = partial, open.channel == header.channel else {
                        fuzzViolation("\(header.type) without FIRST")
                        return
                    }
                    let have = open.have + plaintext
                    fuzzCheck(header.type == .last ? have == open.total : have < open.total, "fragments do not add up to \(open.total)")
                    partial = header.type == .last ? nil : (open.channel, open.total, have)
                }
            }
        } catch {
            fuzzViolation("the phone sent bytes that do not decode: \(error)")
            return
        }
        fuzzCheck(decoder.bufferedByteCount == 0 && partial == nil, "a send ends inside a frame or a message")
    }
}
