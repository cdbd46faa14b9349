import DashportTestSupport
import DashportHeadUnit
import DashportLink
import DashportTLS
import Testing
import DashportRandom

/// A phone link and a fake head unit wired back to back in memory with a fake clock, like
/// swift-nio-ssl's `interactInMemory`: real OpenSSL on both sides, no sockets, no sleeps.
///
/// `pump()` moves bytes both ways until both sides are quiet; `advance(by:)` moves the clock from
/// deadline to deadline, ticking both sides and pumping after each. Every byte each side sent is
/// kept for wire assertions. With a `splitSeed`, deliveries are cut into random pieces.
final class LinkHarness {
    let phone: PhoneLink
    let headUnit: HeadUnitLink
    private(set) var now: Duration = .seconds(1000)

    private(set) var phoneEvents: [LinkEvent] = []
    private(set) var headUnitEvents: [HeadUnitEvent] = []
    private(set) var phoneClose: LinkCloseReason?
    private(set) var headUnitClose: LinkCloseReason?
    /// Every byte the phone wrote, in order.
    private(set) var phoneWire: [UInt8] = []
    /// Every byte the head unit wrote, in order.
    private(set) var headUnitWire: [UInt8] = []

    private var toPhone: [UInt8] = []
    private var toHeadUnit: [UInt8] = []
    private var splitter: SplitMix64?

    init(
        phone configuration: LinkConfiguration = LinkConfiguration(),
        headUnit headUnitConfiguration: HeadUnitConfiguration = HeadUnitConfiguration(),
        phoneTLS: TLSSession? = nil,
        splitSeed: UInt64? = nil
    ) throws {
        phone = PhoneLink(configuration: configuration, tls: try phoneTLS ?? TestTLS.phoneSession())
        headUnit = HeadUnitLink(configuration: headUnitConfiguration, tls: try TestTLS.carSession())
        splitter = splitSeed.map(SplitMix64.init(seed:))
    }

    /// Both transports up: the phone starts its clock, the head unit sends VERSION_REQUEST.
    /// Nothing is delivered until ``pump()``.
    func connect() {
        perform(phone.tick(now: now))
        perform(headUnit.start(now: now))
    }

    /// Connects and pumps until both sides are quiet: setup runs as far as it can.
    func connectAndSettle() {
        connect()
        pump()
    }

    /// Delivers pending bytes both ways until neither side has anything more to say.
    func pump() {
        while !toPhone.isEmpty || !toHeadUnit.isEmpty {
            let forPhone = toPhone
            toPhone = []
            for piece in pieces(of: forPhone) where phoneClose == nil {
                perform(phone.receive(piece, now: now))
                // As the server's worker does: what is left past one slice is decoded next.
                while phone.hasMoreToDecode && phoneClose == nil { perform(phone.receive([], now: now)) }
            }
            let forHeadUnit = toHeadUnit
            toHeadUnit = []
            for piece in pieces(of: forHeadUnit) where headUnitClose == nil {
                perform(headUnit.receive(piece, now: now))
            }
        }
    }

    /// Moves the fake clock forward by `interval`, stopping at every deadline of either side on
    /// the way to tick it and pump the result.
    func advance(by interval: Duration) {
        let target = now + interval
        while true {
            let next = [phone.nextDeadline, headUnit.nextDeadline].compactMap { $0 }.filter { $0 > now }.min()
            guard let next, next <= target else { break }
            now = next
            perform(phone.tick(now: now))
            perform(headUnit.tick(now: now))
            pump()
        }
        now = target
        perform(phone.tick(now: now))
        perform(headUnit.tick(now: now))
        pump()
    }

    /// Hands bytes to the phone as if the head unit had written them (bypassing the head unit).
    func injectToPhone(_ bytes: [UInt8]) {
        toPhone.append(contentsOf: bytes)
        headUnitWire.append(contentsOf: bytes)
    }

    /// Carries out a phone call's actions: bytes go to the head unit's inbox.
    func perform(_ actions: [LinkAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                #expect(phoneClose == nil, "the phone sent bytes after closing")
                phoneWire.append(contentsOf: bytes)
                toHeadUnit.append(contentsOf: bytes)
            case .event(let event):
                phoneEvents.append(event)
            case .close(let reason):
                #expect(phoneClose == nil, "the phone closed twice")
                phoneClose = reason
            }
        }
    }

    /// Carries out a head-unit call's actions: bytes go to the phone's inbox.
    func perform(_ actions: [HeadUnitAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                headUnitWire.append(contentsOf: bytes)
                toPhone.append(contentsOf: bytes)
            case .event(let event):
                headUnitEvents.append(event)
            case .close(let reason):
                headUnitClose = reason
            }
        }
    }

    /// The services the phone reported open, in event order.
    var phoneOpenedChannels: [UInt8] {
        phoneEvents.compactMap { if case .channelOpened(let service) = $0 { service.channel } else { nil } }
    }

    /// Service messages the phone delivered.
    var phoneMessages: [(channel: UInt8, id: UInt16, body: [UInt8])] {
        phoneEvents.compactMap {
            if case .message(let channel, let id, let body) = $0 { (channel, id, body) } else { nil }
        }
    }

    /// Service messages the head unit delivered.
    var headUnitMessages: [(channel: UInt8, id: UInt16, body: [UInt8])] {
        headUnitEvents.compactMap {
            if case .message(let channel, let id, let body) = $0 { (channel, id, body) } else { nil }
        }
    }

    private func pieces(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        guard !bytes.isEmpty else { return [] }
        guard var rng = splitter else { return [bytes[...]] }
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            // Mostly tiny pieces (headers split mid-field), sometimes large ones.
            let limit = rng.next() % 4 == 0 ? 20_000 : 7
            let length = min(bytes.count - start, 1 + Int(rng.next() % UInt64(limit)))
            result.append(bytes[start..<start + length])
            start += length
        }
        splitter = rng
        return result
    }
}
