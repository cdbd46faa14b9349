// The running mode of FuzzLink (and FuzzLinkRunning's): a linked phone and car in memory (a real
// handshake, or copies of a linked pair), then the input as a script. Shared with
// Tests/DashportLinkTests like LinkFuzz.swift.
import DashportFrames
import DashportFuzzSupport
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportRandom
import DashportTLS

extension LinkFuzz {
    /// A `PhoneLink` and a `HeadUnitLink` back to back in memory, driven by the input.
    ///
    /// Byte 0 (odd) configures the head unit: bit 1 encrypted control messages, bit 2 it pings every
    /// 700 ms, bit 3 it never answers the open of channel 15, bit 4 it refuses channel 13, bit 5 it
    /// presents no certificate, bit 6 it does not answer pings, bit 7 its SERVICE_DISCOVERY_RESPONSE
    /// body comes from the input (two length bytes, low first, then the body), so discovery parsing
    /// is fuzzed too (it still answers channel opens for its own channels 8, 13, 15 and 16). Then
    /// each operation is one byte `op` (`op & 7` the kind, bits 5 and 6 options) followed by its
    /// arguments (see `perform`). Lengths are one byte, two with bit 6.
    final class Script {
        let phone: PhoneLink
        let headUnit: HeadUnitLink
        let watch: Watch
        private var reader: FuzzReader
        private var random: SplitMix64
        private(set) var now = Duration.seconds(1000)
        private var toPhone: [UInt8] = []
        private var toHeadUnit: [UInt8] = []
        /// No raw bytes went to the phone yet, so its frame decoder is in step with the head unit.
        private var wireClean = true
        /// Stream mode: what the head unit sends is dropped (the input is the phone's only input).
        private var headUnitMuted = false
        /// What the phone may still be asked to send below the message cap (keeps one input's
        /// cost bounded; a message over the cap costs nothing and is always allowed).
        private var sendBudget = LinkFuzz.sendBudget
        /// Deadlines the input's clock steps may still stop at (see `advance`).
        private var clockStopsLeft = LinkFuzz.inputClockStops
        /// The timestamp of the phone's latest ping, for a head-unit answer.
        private var lastPhonePing: Int64 = 0

        /// Whether the discovery response is the input's rather than the head unit's own.
        let fuzzedDiscovery: Bool
        /// What protects the records; with `.null`, the two layers (a copy of the pair is a copy of them).
        let records: Records
        private let phoneLayer: NullRecordLayer?
        private let headUnitLayer: NullRecordLayer?
        /// Over TLS, the car's session (whose session the next input resumes) and the phone's.
        private let carTLS: TLSSession?
        private let phoneTLS: TLSSession?
        private let carHasCertificate: Bool
        /// Over TLS, whether the handshake resumed the session an earlier input kept.
        var resumedTLS: Bool { carTLS?.wasResumed ?? false }
        /// Set up already (a copy of a linked pair, see `init(_:after:)`): `run` skips the handshake.
        private var linked = false
        /// Over live TLS from the discovery snapshot (`init(_:from:over:)`): the SERVICE_DISCOVERY_RESPONSE
        /// body the car still has to send, the input's.
        private var discoveryToSend: [UInt8]?
        /// While `link(capturingDiscovery:)` runs: where the pair stood when the car had just
        /// answered SERVICE_DISCOVERY_REQUEST (its answer not yet delivered).
        private var capturesDiscovery = false
        private(set) var discoverySnapshot: Snapshot?
        /// Over live TLS: the bytes each side sent during the input (whole frames), which
        /// `TLSPair.settle` opens the records of that the other side never read.
        private(set) var phoneSent: [[UInt8]] = []
        private(set) var carSent: [[UInt8]] = []
        private var logsSends = false

        init(_ input: [UInt8], records: Records = .tls) {
            let flags = input[0]
            reader = FuzzReader(bytes: input, index: 1)
            fuzzedDiscovery = flags & 0x80 != 0
            let discovery = fuzzedDiscovery ? reader.take(Int(reader.byte()) | Int(reader.byte()) << 8) : nil
            let configuration = HeadUnitConfiguration(
                controlEncryption: flags & 0x02 != 0 ? .encrypted : .plain,
                answersPings: flags & 0x40 == 0,
                pingInterval: flags & 0x04 != 0 ? .milliseconds(700) : nil,
                unansweredChannelOpens: flags & 0x08 != 0 ? [15] : [],
                refusedChannelOpens: flags & 0x10 != 0 ? [13: -4] : [:],
                discoveryResponseBody: discovery)
            let certificate = flags & 0x20 == 0
            carHasCertificate = certificate
            self.records = records
            switch records {
            case .tls:
                let phoneSession = LinkFuzz.resumingPhoneSession()
                phone = PhoneLink(tls: phoneSession)
                let car = LinkFuzz.carSession(certificate: certificate)
                LinkFuzz.offerKeptSession(to: car, certificate: certificate)
                headUnit = HeadUnitLink(configuration: configuration, tls: car)
                (phoneLayer, headUnitLayer, carTLS, phoneTLS) = (nil, nil, car, phoneSession)
            case .null:
                let layers = (
                    NullRecordLayer(.server, peerFingerprint: certificate ? LinkFuzz.nullCarFingerprint : nil), NullRecordLayer(.client)
                )
                (phoneLayer, headUnitLayer, carTLS, phoneTLS) = (layers.0, layers.1, nil, nil)
                phone = PhoneLink(recordLayer: layers.0)
                headUnit = HeadUnitLink(configuration: configuration, recordLayer: layers.1)
            }
            watch = Watch(phone)
            watch.checksEveryCall = false  // after each operation (`run`, `runStream`, `finish`)
            random = SplitMix64(hashing: input)
        }

        /// A script for `input` that starts where `pair` (a null-layer script whose handshake is
        /// done, and which nothing else ran) stands: copies of its phone, car, layers and watch.
        /// What follows is what `init(_:records:)` and the handshake would have led to with the
        /// same byte 0 (no fuzzed discovery), but for the input-derived splits of the handshake's
        /// bytes, which the handshake tests and `FuzzLink` explore instead.
        init(_ input: [UInt8], after pair: Script) {
            guard let phoneLayer = pair.phoneLayer?.copy(), let headUnitLayer = pair.headUnitLayer?.copy() else {
                fatalError("LinkFuzz: only a null-layer pair is copied")
            }
            (self.phoneLayer, self.headUnitLayer) = (phoneLayer, headUnitLayer)
            (carTLS, phoneTLS, carHasCertificate) = (nil, nil, pair.carHasCertificate)
            records = .null
            fuzzedDiscovery = false
            phone = pair.phone.copy(recordLayer: phoneLayer)
            headUnit = pair.headUnit.copy(recordLayer: headUnitLayer)
            watch = pair.watch.copy(watching: phone)
            reader = FuzzReader(bytes: input, index: 1)
            random = SplitMix64(hashing: input)
            now = pair.now
            lastPhonePing = pair.lastPhonePing
            linked = true
        }

        /// A script for `input` over a live TLS pair (`FuzzLink`, `LinkFuzz.TLSPair`): copies of
        /// the links `snapshot` holds, recording over `tls`'s sessions, whose records go on from
        /// wherever earlier inputs left them. With a fuzzed discovery (byte 0 bit 7) `snapshot` is
        /// the pair's `discoverySnapshot` and `run` first has the car send the input's body as
        /// its answer, as `init(_:records:)`'s car would; otherwise it is a linked pair's.
        init(_ input: [UInt8], from snapshot: Snapshot, over tls: TLSPair) {
            let flags = input[0]
            reader = FuzzReader(bytes: input, index: 1)
            fuzzedDiscovery = flags & 0x80 != 0
            if fuzzedDiscovery { discoveryToSend = reader.take(Int(reader.byte()) | Int(reader.byte()) << 8) }
            carHasCertificate = flags & 0x20 == 0
            records = .tls
            (phoneLayer, headUnitLayer, carTLS, phoneTLS) = (nil, nil, tls.car, tls.phone)
            phone = snapshot.phone.copy(recordLayer: tls.phone)
            headUnit = snapshot.headUnit.copy(recordLayer: tls.car)
            watch = snapshot.watch.copy(watching: phone)
            random = SplitMix64(hashing: input)
            now = snapshot.now
            lastPhonePing = snapshot.lastPhonePing
            linked = true
            logsSends = true
        }

        /// Where a script's links stand, to be copied onto live TLS sessions (`init(_:from:over:)`).
        struct Snapshot {
            let phone: PhoneLink
            let headUnit: HeadUnitLink
            let watch: Watch
            let now: Duration
            let lastPhonePing: Int64
        }

        /// Copies of this script's links and watch as they stand (over TLS only).
        func snapshot() -> Snapshot {
            guard let phoneTLS, let carTLS else { fatalError("LinkFuzz: only a TLS script is snapshot") }
            let phone = phone.copy(recordLayer: phoneTLS)
            return Snapshot(
                phone: phone, headUnit: headUnit.copy(recordLayer: carTLS), watch: watch.copy(watching: phone), now: now,
                lastPhonePing: lastPhonePing)
        }

        /// Runs the handshake of a pair that `init(_:after:)` will copy; with `capturingDiscovery`
        /// (over TLS) also keeps `discoverySnapshot` on the way.
        func link(capturingDiscovery: Bool = false) {
            capturesDiscovery = capturingDiscovery
            handshake()
            capturesDiscovery = false
            linked = true
        }

        func run() {
            if !linked {
                handshake()
            } else if let body = discoveryToSend {
                // The car's answer to the request the snapshot's phone sent (what its
                // `handleDiscoveryRequest` sends with the input's body configured).
                takeHeadUnit(
                    headUnit.sendUnchecked(channel: 0, messageId: ControlID.serviceDiscoveryResponse, body: body, encrypted: true))
                pump()
                checkLinked()
            }
            while !reader.isAtEnd {
                perform(reader.byte())
                pump()
                watch.checkOpenServices()
            }
            finish()
        }

        /// The stream mode of `FuzzLinkRunning`: after the handshake the rest of the input is the
        /// only thing the phone receives, in input-derived pieces with the clock moving between
        /// them. The head unit still reads (and so checks) all the phone sends; what it would send
        /// back is dropped, so the phone's inbound record sequence is the input's alone.
        ///
        /// With `sealed` (`FuzzLinkStream`) the rest of the input is the plaintext stream: its
        /// frames' encrypted payloads are sealed as the phone's next null records first
        /// (`LinkFuzz.seal`), so every input gets past the record layer to the link.
        func runStream(sealed: Bool = false) {
            if !linked { handshake() }
            headUnitMuted = true
            wireClean = false
            if sealed, let phoneLayer {
                reader = FuzzReader(bytes: LinkFuzz.seal(reader.rest, firstRecord: phoneLayer.inboundRecordNumber), index: 0)
            }
            while !reader.isAtEnd {
                let r = random.next()
                toPhone += reader.take(1 + Int(r % (r & 0x300 == 0 ? 4096 : 64)))
                pump()
                if (r >> 20) & 3 == 0 { advance(by: .milliseconds(Int64((r >> 24) % 3000))) }
                watch.checkOpenServices()
            }
            finish()
        }

        private func handshake() {
            toHeadUnit += watch.tick(now)
            takeHeadUnit(headUnit.start(now: now))
            pump()
            watch.checkOpenServices()
            checkLinked()
            if let carTLS { LinkFuzz.keepSession(of: carTLS, certificate: carHasCertificate) }
        }

        /// After the setup: both sides running, or the phone refused a discovery response from the input.
        private func checkLinked() {
            // Only a discovery response from the input may stop the handshake: one that does not decode.
            var refused = false
            if fuzzedDiscovery, case .undecodable(ControlID.serviceDiscoveryResponse, _)? = phone.closeReason { refused = true }
            fuzzCheck(
                headUnit.phase == .running && (phone.phase == .running || refused),
                "the in-memory handshake did not finish: phone \(phone.phase), head unit \(headUnit.phase)")
        }

        /// The bye-bye every input ends with, at once: only the inputs move the clock (clock steps,
        /// op 3). Over TLS (`FuzzLink`) the clock used to run 6 s on first, through every ping
        /// and channel timeout due over AES-GCM (8 % of its time; stopping at 8 at most, still a
        /// tenth once the setup was gone), as `FuzzLinkRunning`'s did before it.
        private func finish() {
            watch.checkOpenServices()
            toHeadUnit += watch.take(phone.sayByeBye(now: now))
            pump()
            advance(by: .seconds(2))
            fuzzCheck(watch.closed, "a bye-bye did not end the link within the grace (phase \(phone.phase))")
        }

        private func perform(_ op: UInt8) {
            switch op & 7 {
            case 0:  // raw bytes straight to the phone
                wireClean = false
                toPhone += reader.take(length(op))
            case 1:  // a service message the head unit encrypts on one of its open channels
                let channels = headUnit.openChannels.sorted()
                let channel = channels.isEmpty ? 0 : channels[Int(reader.byte()) % channels.count]
                let id = reader.u16()
                let body = reader.take(length(op))
                let expectDelivery =
                    wireClean && phone.phase == .running && watch.openChannels.contains(channel)
                    && id != ControlID.channelOpenResponse && id != ControlID.channelCloseNotification
                let before = watch.messages.count
                guard let actions = try? headUnit.send(channel: channel, messageId: id, body: body) else { return }
                takeHeadUnit(actions)
                pump()
                if expectDelivery && phone.phase == .running {
                    let delivered = watch.messages.dropFirst(before).map { "\($0.channel)/\($0.id)/\($0.body.count)" }
                    fuzzCheck(
                        delivered == ["\(channel)/\(id)/\(body.count)"] && watch.messages.last?.body == body,
                        "a \(body.count)-byte message \(id) on channel \(channel) arrived as \(delivered)")
                }
            case 2:  // any message on any channel, framed and (bit 5) encrypted by the head unit
                let channel = reader.byte()
                let id = reader.u16()
                takeHeadUnit(
                    headUnit.sendUnchecked(
                        channel: channel, messageId: id, body: reader.take(length(op)),
                        encrypted: op & 0x20 != 0))
            case 3:  // the clock moves on: both sides tick at every deadline on the way
                advance(by: .milliseconds(Int64(reader.byte()) * (op & 0x40 != 0 ? 100 : 10)))
            case 4:  // the phone sends on an open channel (bit 5: any channel)
                phoneSend(op)
            case 5:  // bye-bye from the phone (bit 5) or the head unit
                let reason = AAP.ByeByeRequest.Reason(rawValue: Int32(reader.byte()))
                if op & 0x20 != 0 {
                    toHeadUnit += watch.take(phone.sayByeBye(reason: reason, now: now))
                } else {
                    takeHeadUnit(headUnit.sayByeBye(reason: reason, now: now))
                }
            case 6:
                controlMessage(op)
            default:  // a hand-made plaintext frame: any channel, any flags, a message id and a body
                wireClean = false
                let channel = reader.byte()
                let flags = FrameFlags(rawValue: reader.byte())
                let total = UInt32(reader.u16())
                let payload = MessageID.encode(reader.u16(), body: reader.take(length(op)))
                toPhone += Frame(
                    channel: channel, flags: flags, totalLength: flags.type == .first ? total : nil,
                    payload: payload
                ).encoded()
            }
        }

        private func length(_ op: UInt8) -> Int {
            Int(reader.byte()) | (op & 0x40 != 0 ? Int(reader.byte()) << 8 : 0)
        }

        private func phoneSend(_ op: UInt8) {
            let open = phone.openServices.map(\.channel)
            let pick = reader.byte()
            let channel = op & 0x20 != 0 || open.isEmpty ? pick : open[Int(pick) % open.count]
            let id = reader.u16()
            let asked = Int(reader.u16()) * (op & 0x40 != 0 ? 17 : 1)
            // Over the message cap the link refuses before reading a byte: hand it the pattern
            // itself (shared, not copied) rather than a fresh megabyte each input. Below it, an
            // input sends at most `sendBudget` bytes in all (64 KiB: four full fragments and more
            // are no new path, only time).
            let overCap = asked + 2 > FrameLimits.default.maxMessageSize
            let size = overCap ? LinkFuzz.sendPattern.count : min(sendBudget, asked)
            if !overCap { sendBudget -= size }
            let body = overCap ? LinkFuzz.sendPattern : Array(LinkFuzz.sendPattern[..<size])
            do {
                toHeadUnit += watch.take(try phone.send(channel: channel, messageId: id, body: body))
            } catch {
                switch error {
                case .notRunning(let phase): fuzzCheck(phase == phone.phase && phase != .running, "\(error) while \(phone.phase)")
                case .channelNotOpen: fuzzCheck(!watch.openChannels.contains(channel) || watch.closed, "\(error) on an open channel")
                case .messageTooLarge: fuzzCheck(size + 2 > FrameLimits.default.maxMessageSize, "\(error) for \(size) bytes")
                }
            }
        }

        /// Well-formed control traffic the fuzzer would take long to spell: pings either way, a
        /// channel close, a channel-open answer with any status.
        private func controlMessage(_ op: UInt8) {
            let listed = headUnit.configuration.car.services.map(\.channel)
            let sub = reader.byte()
            let value = reader.u16()
            let encrypted = op & 0x20 != 0
            let (channel, id, body): (UInt8, UInt16, [UInt8])
            switch sub & 3 {
            case 0:
                (channel, id, body) = (0, ControlID.pingRequest, AAP.PingRequest(timestamp: Int64(value)).serializedBytes())
            case 1:
                let stamp = op & 0x40 != 0 ? Int64(value) : lastPhonePing
                (channel, id, body) = (0, ControlID.pingResponse, AAP.PingResponse(timestamp: stamp).serializedBytes())
            case 2:
                (channel, id, body) = (listed[Int(value) % listed.count], ControlID.channelCloseNotification, [])
            default:
                let status = AAP.MessageStatus(rawValue: Int32(Int8(truncatingIfNeeded: value)))
                (channel, id, body) = (
                    listed[Int(value >> 8) % listed.count], ControlID.channelOpenResponse,
                    AAP.ChannelOpenResponse(status: status).serializedBytes()
                )
            }
            takeHeadUnit(headUnit.sendUnchecked(channel: channel, messageId: id, body: body, encrypted: encrypted || channel != 0))
        }

        // MARK: - Moving bytes and time

        private func takeHeadUnit(_ actions: [HeadUnitAction]) {
            for action in actions {
                switch action {
                case .send(let bytes):
                    if !headUnitMuted { toPhone += bytes }
                    if logsSends { carSent.append(bytes) }
                case .event(.pingReceived(let timestamp, _)):
                    lastPhonePing = timestamp
                case .event(.discoveryRequested) where capturesDiscovery && discoverySnapshot == nil:
                    // The car has answered (its answer follows in these actions, not yet sent).
                    discoverySnapshot = snapshot()
                case .event:
                    break
                case .close(let reason):
                    switch reason {
                    case .badFrame, .missingMessageId, .tlsFailure:
                        fuzzViolation("the head unit could not read what the phone sent: \(reason)")
                    default:
                        break
                    }
                }
            }
        }

        /// Delivers both ways until both sides are quiet; the phone gets input-derived pieces.
        private func pump() {
            var rounds = 0
            while !toPhone.isEmpty || !toHeadUnit.isEmpty {
                rounds += 1
                fuzzCheck(rounds < 10_000, "the two sides never go quiet")
                let forPhone = toPhone
                toPhone = []
                var start = 0
                while start < forPhone.count {
                    let r = random.next()
                    let end = r & 3 == 0 ? forPhone.count : min(forPhone.count, start + 1 + Int((r >> 8) % 64))
                    toHeadUnit += watch.take(phone.receive(forPhone[start..<end], now: now))
                    // As the server's worker does: what is left past one slice is decoded next.
                    while phone.hasMoreToDecode { toHeadUnit += watch.take(phone.receive([], now: now)) }
                    start = end
                }
                let forHeadUnit = toHeadUnit
                toHeadUnit = []
                if logsSends && !forHeadUnit.isEmpty { phoneSent.append(forHeadUnit) }
                if !forHeadUnit.isEmpty { takeHeadUnit(headUnit.receive(forHeadUnit, now: now)) }
            }
        }

        /// Moves the clock by `interval`, stopping at each deadline of either side to tick both, at
        /// most `stops` times (by default `LinkFuzz.clockStops`, and no more than the input has
        /// left of `LinkFuzz.inputClockStops`): past them the clock jumps to the end and both
        /// sides tick late once, as after a stalled driver (a step of 25.5 s would otherwise run
        /// dozens of pings each way, and a 4 KiB input of clock steps thousands).
        private func advance(by interval: Duration, stops: Int? = nil) {
            let limit = stops ?? min(LinkFuzz.clockStops, clockStopsLeft)
            let target = now + interval
            var steps = 0
            defer { if stops == nil { clockStopsLeft -= steps } }
            while steps < limit, let next = [phone.nextDeadline, headUnit.nextDeadline].compactMap({ $0 }).min(), next <= target {
                now = max(now, next)
                toHeadUnit += watch.tick(now)
                takeHeadUnit(headUnit.tick(now: now))
                pump()
                steps += 1
            }
            now = target
            toHeadUnit += watch.tick(now)
            takeHeadUnit(headUnit.tick(now: now))
            pump()
        }
    }

    /// Bodies the phone sends, made once: up to 65535 × 17 bytes, past the 1 MiB message cap.
    static let sendPattern: [UInt8] = (0..<65535 * 17).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    /// What one input may have the phone send below the message cap, in all.
    static let sendBudget = 64 * 1024
    /// The deadlines one clock step of a script stops at (see `Script.advance`).
    static let clockStops = 8
    /// The deadlines all of one input's clock steps stop at, in all: 16 (it was 64; past them
    /// the clock still jumps, and both sides tick late once). Each stop ticks both sides and
    /// carries what they send, pings mostly: FuzzLinkRunning ran 1,750 inputs per CPU second
    /// with 64 and 2,385 with 16 on the same corpus and seed, with the same coverage.
    static let inputClockStops = 16
}
