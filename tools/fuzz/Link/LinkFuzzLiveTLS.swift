// FuzzLink's running mode over live TLS sessions: the link's setup is done once per head-unit
// configuration, and every input runs copies of the linked state machines over the same two
// OpenSSL sessions, whose records go on from where the last input left them. Shared with
// Tests/DashportLinkTests like LinkFuzz.swift.
import DashportFrames
import DashportFuzzSupport
import DashportTLS
import Synchronization

extension LinkFuzz {
    /// A phone's server session and a car's client session, established with each other and in
    /// step: what one seals, the other opens next. An OpenSSL session cannot be copied, but the
    /// link's state machines can (`PhoneLink.copy(recordLayer:)`, `HeadUnitLink.copy(recordLayer:)`)
    /// and take their record layer by reference, so one pair serves input after input while its
    /// sequence numbers just continue.
    final class TLSPair {
        let phone: TLSSession
        let car: TLSSession
        /// Each session's records since the handshake (its sequence numbers).
        private let phoneRecords: TLSRecordCounter
        private let carRecords: TLSRecordCounter

        /// Two fresh sessions through a handshake with each other, bytes handed straight across
        /// (the link's version exchange and framing around it are the raw mode's and the setup's,
        /// done once): abbreviated when the car can offer the session an earlier pair's handshake
        /// kept, full otherwise. The car presents no certificate whatever the input's car does:
        /// the link's view of it (the fingerprint, `tlsEstablished`) is the setup's, made with the
        /// input's kind of car, and the records past a handshake are the same AES-GCM either way,
        /// while a ticket holding a certificate costs OpenSSL 3 a decoding of it per resumption
        /// (half of a pair's time). Contexts of their own (`liveContexts`): TLS 1.2 only, buffers kept.
        init() {
            let phone = LinkFuzz.setUpSession(LinkFuzz.liveContexts.phone)
            let car = LinkFuzz.setUpSession(LinkFuzz.liveContexts.car)
            LinkFuzz.liveSessionLock.withLock { _ in
                guard let session = LinkFuzz.liveSession else { return }
                do { try car.resume(session) } catch { fatalError("LinkFuzz: cannot offer the kept session: \(error)") }
            }
            do {
                var toPhone = try car.startHandshake()
                for _ in 0..<8 where !(phone.isHandshakeComplete && car.isHandshakeComplete) {
                    toPhone = try car.handshake(received: try phone.handshake(received: toPhone))
                }
            } catch {
                fatalError("LinkFuzz: the TLS pair's handshake failed: \(error)")
            }
            guard phone.isHandshakeComplete && car.isHandshakeComplete else {
                fatalError("LinkFuzz: the TLS pair's handshake did not finish")
            }
            (self.phone, self.car) = (phone, car)
            (phoneRecords, carRecords) = (phone.countRecords(), car.countRecords())
            if !car.wasResumed {
                // Kept for the process's life: out of LeakSanitizer's sight, as the linked pairs are.
                LinkFuzz.liveSessionLock.withLock { _ in
                    LinkFuzz.withoutLeakChecks { if let session = car.resumableSession { LinkFuzz.liveSession = session } }
                }
            }
        }

        /// Whether the next input can run over this pair: neither session failed (a fatal error
        /// is final) and each direction is in step, which a probe record each way proves (AES-GCM
        /// authenticates the sequence number, so a record the peer never opened, or one it is
        /// still missing, fails the probe). `TLSSession.decrypt` refuses a payload that ends
        /// inside a record and reads all a record holds, so nothing is left buffered in either
        /// session after a call. The probes move both sequences on by one, as any record would.
        func isInStep() -> Bool {
            do {
                return try car.decrypt(phone.encrypt(Self.probe)) == Self.probe
                    && phone.decrypt(car.encrypt(Self.probe)) == Self.probe
            } catch {
                return false
            }
        }

        private static let probe: [UInt8] = [0x5A]

        /// After an input: opens, in a session that lags, the records its peer sealed during the
        /// input that it never read (`phoneSent` and `carSent`, the bytes each side sent, are whole
        /// frames, one record per encrypted one), then probes (`isInStep`). Most inputs that
        /// leave a pair out of step do so by a close: the closed side drops what is still in
        /// flight (the car closed, the phone's bye-bye never read), and a new pair was a
        /// resumed handshake each time. A session that failed stays failed, and the probe says so.
        func settle(phoneSent: [[UInt8]], carSent: [[UInt8]]) -> (inStep: Bool, caughtUp: Int) {
            let toCar = phoneRecords.sealed - carRecords.opened
            let toPhone = carRecords.sealed - phoneRecords.opened
            do {
                try Self.open(toCar, of: phoneSent, in: car)
                try Self.open(toPhone, of: carSent, in: phone)
            } catch {
                return (false, 0)
            }
            return (isInStep(), toCar + toPhone)
        }

        private static func open(_ missing: Int, of sent: [[UInt8]], in session: TLSSession) throws {
            guard missing > 0 else { return }
            var decoder = FrameDecoder(limits: FrameLimits(maxReceivePayload: 65535, maxMessageSize: Int(UInt32.max)))
            for bytes in sent { decoder.feed(bytes) }
            var records: [[UInt8]] = []
            while let frame = try decoder.next() {
                if frame.header.flags.contains(.encrypted) && !frame.payload.isEmpty { records.append(frame.payload) }
            }
            guard records.count >= missing else { throw TLSError.notEstablished }
            for record in records.suffix(missing) { _ = try session.decrypt(record) }
        }
    }

    /// The links of one head-unit configuration, set up once over TLS (a full link setup: version
    /// exchange, handshake, discovery, channel opens) and only copied afterwards.
    struct TLSSetup {
        /// Past the setup, both sides running.
        let running: Script.Snapshot
        /// The phone waiting for the SERVICE_DISCOVERY_RESPONSE the car has just decided to
        /// send (for inputs whose byte 0 has bit 7: the body is the input's).
        let discovery: Script.Snapshot
    }

    /// What a `runOverLiveTLS` did with its pair (for the tests).
    struct LiveRun {
        let script: Script
        /// The pair the input ran over was one an earlier input left (not made for this one).
        let reusedPair: Bool
        /// The pair was still in step after the input and stays for the next one.
        let keptPair: Bool
        /// Records the driver opened to bring the pair back in step (`TLSPair.settle`).
        let caughtUp: Int
        /// The pair the input ran over, and the one the next input gets.
        let pair: ObjectIdentifier
        let nextPair: ObjectIdentifier
    }

    /// `nonisolated(unsafe)` because `TLSPair` and the snapshots are not Sendable: every access
    /// holds `liveTLSLock`, and what an input gets are copies of the links made under it.
    nonisolated(unsafe) private static var tlsSetups: [UInt8: TLSSetup] = [:]
    nonisolated(unsafe) private static var livePair: TLSPair?
    private static let liveTLSLock = Mutex(())

    /// The live pairs' contexts: the phone's issues tickets (`resumableSessions`), the car offers
    /// TLS 1.2 only, and both keep their sessions' buffers (`keepsBuffers`: a session seals and
    /// opens a record at a time, and freeing and making its 17 KiB buffers around each one was
    /// AddressSanitizer's work). Made once; Dashport's own contexts are the raw mode's and the setup's.
    static let liveContexts: (phone: TLSContext, car: TLSContext) = {
        do {
            return (
                try TLSContext(.server(identity: phoneIdentity, peerPolicy: .acceptAny), resumableSessions: true, keepsBuffers: true),
                try TLSContext(.client(identity: nil), resumableSessions: true, keepsBuffers: true)
            )
        } catch {
            fatalError("LinkFuzz: the live contexts: \(error)")
        }
    }()

    static func setUpSession(_ context: TLSContext) -> TLSSession {
        do { return try TLSSession(context: context) } catch { fatalError("LinkFuzz: a session: \(error)") }
    }

    /// The session the latest full handshake of a live pair left, which the next pair's car offers.
    /// `nonisolated(unsafe)`: every access holds `liveSessionLock` (tests make pairs of their own
    /// beside the fuzzer's), and OpenSSL only reads a session it is handed.
    nonisolated(unsafe) static var liveSession: TLSResumableSession?
    static let liveSessionLock = Mutex(())

    /// The setup of byte 0's head-unit configuration (bits 1–6), made on first use.
    static func tlsSetup(_ flags: UInt8) -> TLSSetup {
        liveTLSLock.withLock { _ in setupLocked(flags & 0x7E) }
    }

    private static func setupLocked(_ key: UInt8) -> TLSSetup {
        if let known = tlsSetups[key] { return known }
        // Kept for the process's life: out of LeakSanitizer's sight, as the linked pairs are.
        let setup = withoutLeakChecks {
            let script = Script([key | 1], records: .tls)
            script.link(capturingDiscovery: true)
            guard let discovery = script.discoverySnapshot else { fatalError("LinkFuzz: the setup passed no discovery") }
            return TLSSetup(running: script.snapshot(), discovery: discovery)
        }
        tlsSetups[key] = setup
        return setup
    }

    /// `FuzzLink`'s running mode: `input` as a script from its configuration's setup, over the
    /// live pair. A pair the input left out of
    /// step (raw bytes, a hand-made frame or a close that dropped records in flight, a failed
    /// session) is replaced at once by a new one, so the next input never sees it and the
    /// handshake's cost is this input's.
    @discardableResult
    static func runOverLiveTLS(_ input: [UInt8]) -> LiveRun {
        liveTLSLock.withLock { _ in
            let setup = setupLocked(input[0] & 0x7E)
            let reused = livePair != nil
            let pair = livePair ?? withoutLeakChecks { TLSPair() }
            let script = Script(input, from: input[0] & 0x80 != 0 ? setup.discovery : setup.running, over: pair)
            script.run()
            let (kept, caughtUp) = pair.settle(phoneSent: script.phoneSent, carSent: script.carSent)
            let next = kept ? pair : withoutLeakChecks { TLSPair() }
            livePair = next
            return LiveRun(
                script: script, reusedPair: reused, keptPair: kept, caughtUp: caughtUp, pair: ObjectIdentifier(pair),
                nextPair: ObjectIdentifier(next))
        }
    }
}
