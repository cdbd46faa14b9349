// FuzzLink's running mode over live TLS sessions: the link's setup is done once per head-unit
// configuration, and every input runs copies of the linked state machines over the same two
// OpenSSL sessions, whose records go on from where the last input left them. Shared with
// Tests/DashportLinkTests like LinkFuzz.swift.
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

        /// Two fresh sessions of `LinkFuzz`'s contexts through a handshake with each other, bytes
        /// handed straight across (the link's version exchange and framing around it are the raw
        /// mode's and the setup's, done once): abbreviated when the car can offer the session an
        /// earlier handshake of its kind kept (`offerKeptSession`), full otherwise.
        init(certificate: Bool) {
            phone = LinkFuzz.resumingPhoneSession()
            car = LinkFuzz.carSession(certificate: certificate)
            LinkFuzz.offerKeptSession(to: car, certificate: certificate)
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
            LinkFuzz.keepSession(of: car, certificate: certificate)
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
        /// The pair the input ran over, and the one the next input gets.
        let pair: ObjectIdentifier
        let nextPair: ObjectIdentifier
    }

    /// `nonisolated(unsafe)` because `TLSPair` and the snapshots are not Sendable: every access
    /// holds `liveTLSLock`, and what an input gets are copies of the links made under it.
    nonisolated(unsafe) private static var tlsSetups: [UInt8: TLSSetup] = [:]
    nonisolated(unsafe) private static var livePairs: [Bool: TLSPair] = [:]
    private static let liveTLSLock = Mutex(())

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
    /// live pair of its kind of car (with or without a certificate). A pair the input left out of
    /// step (raw bytes, a hand-made frame or a close that dropped records in flight, a failed
    /// session) is replaced at once by a new one, so the next input never sees it and the
    /// handshake's cost is this input's.
    @discardableResult
    static func runOverLiveTLS(_ input: [UInt8]) -> LiveRun {
        let certificate = input[0] & 0x20 == 0
        return liveTLSLock.withLock { _ in
            let setup = setupLocked(input[0] & 0x7E)
            let reused = livePairs[certificate] != nil
            let pair = livePairs[certificate] ?? withoutLeakChecks { TLSPair(certificate: certificate) }
            let script = Script(input, from: input[0] & 0x80 != 0 ? setup.discovery : setup.running, over: pair)
            script.run()
            let kept = pair.isInStep()
            let next = kept ? pair : withoutLeakChecks { TLSPair(certificate: certificate) }
            livePairs[certificate] = next
            return LiveRun(
                script: script, reusedPair: reused, keptPair: kept, pair: ObjectIdentifier(pair), nextPair: ObjectIdentifier(next))
        }
    }
}
