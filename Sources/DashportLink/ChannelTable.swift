/// The channels of one running link: which the head unit listed, which we asked to open, which
/// are open. Channel ids only come from the discovery response (aap-protocol.md §3.3, §8.9).
struct ChannelTable {
    enum State: Equatable {
        /// Listed, not requested: we do not drive this service.
        case listed
        /// CHANNEL_OPEN_REQUEST sent; reported as failed if no answer by `deadline`.
        case requested(deadline: Duration)
        /// Requested, not answered in time. A late success still opens it.
        case timedOut
        case open
        /// The head unit refused it, or closed it later.
        case closed
    }

    private var services: [UInt8: CarService] = [:]
    private var states: [UInt8: State] = [:] {
        didSet { nextDeadline = Self.earliestRequest(in: states) }
    }

    init(car: CarDescription) {
        for service in car.services {
            services[service.channel] = service
            states[service.channel] = .listed
        }
    }

    func service(_ channel: UInt8) -> CarService? { services[channel] }

    func state(_ channel: UInt8) -> State? { states[channel] }

    func isOpen(_ channel: UInt8) -> Bool { states[channel] == .open }

    /// The services that are open now, in channel order.
    var openServices: [CarService] {
        // One array, allocated once and sorted in place: no filtered dictionary and key array on
        // the way (the link fuzzers' driver asks after every call).
        var open: [CarService] = []
        open.reserveCapacity(states.count)
        for (channel, state) in states where state == .open {
            if let service = services[channel] { open.append(service) }
        }
        open.sort { $0.channel < $1.channel }
        return open
    }

    mutating func markRequested(_ channel: UInt8, deadline: Duration) {
        states[channel] = .requested(deadline: deadline)
    }

    /// Applies a CHANNEL_OPEN_RESPONSE. Returns `nil` when it changes nothing (a duplicate, or an
    /// answer to a request we never made), which the caller logs and ignores.
    mutating func answer(_ channel: UInt8, success: Bool) -> CarService? {
        guard let service = services[channel], let state = states[channel] else { return nil }
        switch state {
        case .requested:
            states[channel] = success ? .open : .closed
            return service
        case .timedOut:
            // Already reported as failed: only a late success is news.
            states[channel] = success ? .open : .closed
            return success ? service : nil
        case .listed, .open, .closed:
            return nil
        }
    }

    /// Applies CHANNEL_CLOSE_NOTIFICATION; returns the service if it was open.
    mutating func close(_ channel: UInt8) -> CarService? {
        guard states[channel] == .open, let service = services[channel] else { return nil }
        states[channel] = .closed
        return service
    }

    /// Requests whose deadline passed by `now`, now marked timed out, in channel order.
    mutating func expire(now: Duration) -> [CarService] {
        var expired: [CarService] = []
        for channel in states.keys.sorted() {
            if case .requested(let deadline) = states[channel], now >= deadline, let service = services[channel] {
                states[channel] = .timedOut
                expired.append(service)
            }
        }
        return expired
    }

    /// The earliest pending channel-open deadline.
    /// Kept as `states` changes (rarely: an open, an answer, an expiry) rather than computed: the
    /// link's owner asks for it twice per input (issue 22, item 2).
    private(set) var nextDeadline: Duration?

    private static func earliestRequest(in states: [UInt8: State]) -> Duration? {
        var earliest: Duration?
        for case .requested(let deadline) in states.values where earliest.map({ deadline < $0 }) ?? true {
            earliest = deadline
        }
        return earliest
    }
}
