import DashportLink
import DashportLog
import DashportServices
import DashportSession

/// Input for one car's services that comes from outside the link: a core answer or push,
/// addressed to the service on `channel` (the one that asked, or subscribed), carrying that
/// service's own input type. A service whose channel has closed since is not handed it.
struct ServiceInput: Sendable {
    var channel: UInt8
    var payload: any Sendable

    init(channel: UInt8, _ payload: any Sendable) {
        self.channel = channel
        self.payload = payload
    }
}

/// What a ``CarMailbox/wake(channel:inlineAllowed:)`` hands the service on that channel: something it watches
/// (the server's audio) has news.
struct ServiceWake: Sendable {}

/// One AAP service of one car as its connection hosts it: a sans-IO service from
/// `DashportServices` and the glue that performs what it asks of the core (swift-nio's channel
/// handlers are the model: a state machine that returns actions, driven by one owner).
///
/// A service is made by ``make(for:host:now:)`` when the link opens the channel the car listed it
/// on, and lives in ``CarServices``' table under that channel until the channel or the
/// connection closes. Adding a service is one type conforming to this protocol plus one entry in
/// ``CarServices/registered``: nothing else in the connection knows which services exist.
protocol HostedService {
    /// The hosted service for a channel the link just opened, with what it sends first; nil when
    /// the service is not this type's.
    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])?

    /// Control-channel message ids this service takes besides its own channel's messages
    /// (the media audio sink takes AUDIO_FOCUS_NOTIFICATION). Default none.
    var controlMessageIds: Set<UInt16> { get }

    /// A car's message on this service's channel, or a control message it claimed.
    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage]

    /// A core answer or push this service asked for (the payload it posted through `host`).
    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage]

    /// Fires what is due at `now`. Default: nothing.
    mutating func tick(host: ServiceHost, now: Duration) -> [OutgoingMessage]

    /// When ``tick(host:now:)`` must be called next; nil when nothing is scheduled. Default nil.
    var nextDeadline: Duration? { get }

    /// The channel or the connection closed: let go of what the service holds outside itself.
    mutating func closed(host: ServiceHost)
}

extension HostedService {
    var controlMessageIds: Set<UInt16> { [] }
    mutating func tick(host: ServiceHost, now: Duration) -> [OutgoingMessage] { [] }
    var nextDeadline: Duration? { nil }
    mutating func closed(host: ServiceHost) {}
}

/// What a hosted service reaches outside itself: the core, the car's bridge to it (answers come
/// back addressed to this service's channel), the logger (with the channel), and who the car is.
///
/// A class, made once per open channel (``CarServices`` keeps it): every message and every audio
/// packet hands it to a service, and copying a struct of ten references cost ten retains each time.
final class ServiceHost {
    let core: ServerCore
    let bridge: CoreBridge
    let answers: AnswerMemo
    /// The connection's logger with the service's channel.
    let logger: Logger
    /// The connection's logger (the peer only), for a service that names the channel itself.
    let connectionLogger: Logger
    let channel: UInt8
    /// "Make Model (head unit ...)" from the car's discovery response.
    let carName: String
    /// The AAP version the link negotiated with the car.
    let version: AAPVersion?
    /// The server's media audio (nil when the session makes no sound or audio is turned off).
    let audio: AudioFanout?
    /// Changes what `dashport ctl cars` shows for this car.
    let updateCar: @Sendable (_ change: @Sendable (inout ConnectedCar) -> Void) -> Void

    init(
        core: ServerCore, bridge: CoreBridge, answers: AnswerMemo, logger: Logger, connectionLogger: Logger, channel: UInt8,
        carName: String, version: AAPVersion?, audio: AudioFanout?,
        updateCar: @escaping @Sendable (_ change: @Sendable (inout ConnectedCar) -> Void) -> Void
    ) {
        self.core = core
        self.bridge = bridge
        self.answers = answers
        self.logger = logger
        self.connectionLogger = connectionLogger
        self.channel = channel
        self.carName = carName
        self.version = version
        self.audio = audio
        self.updateCar = updateCar
    }

    /// Runs `work` concurrently and hands what it returns to this service.
    func run(_ work: @escaping @Sendable () async -> (any Sendable)?) {
        let channel = self.channel
        bridge.run { await work().map { ServiceInput(channel: channel, $0) } }
    }

    /// Like ``run(_:)`` for the core work a car asks for (browse, search, item): at most
    /// ``CoreBridge/maxConcurrentRequests`` run at once per car, the rest in order, so one car's
    /// pile of searches cannot take every thread from the others. Covers use ``run(_:)``: they
    /// wait on the network and have their own decode limit.
    func request(_ work: @escaping @Sendable () async -> (any Sendable)?) {
        let channel = self.channel
        bridge.request { await work().map { ServiceInput(channel: channel, $0) } }
    }

    /// Hands `payload` to this service on the connection's worker, without a task.
    func post(_ payload: any Sendable) {
        bridge.post(ServiceInput(channel: channel, payload))
    }

    /// How something outside the car wakes this service (coalesced; see
    /// ``CarMailbox/wake(channel:inlineAllowed:)``); it returns `.gone` once the car is gone.
    var waker: AudioFanout.Waker {
        let inputs = bridge.inputs
        let channel = self.channel
        return { inputs.wake(channel: channel, inlineAllowed: $0) }
    }

    /// Subscribes this service to a core push; see ``CoreBridge/attach(_:)``.
    func attach(_ subscribe: @escaping @Sendable (_ post: @escaping @Sendable (any Sendable) -> Bool) async -> CoreBridge.Unsubscribe) {
        let channel = self.channel
        bridge.attach { post in await subscribe { post(ServiceInput(channel: channel, $0)) } }
    }

    /// Performs a car's command on the session after the car's earlier ones; `answer` turns the
    /// result into this service's input.
    func perform(
        _ command: SessionCommand, from source: CommandSource, answer: @escaping @Sendable (CommandResult) -> (any Sendable)
    ) {
        let channel = self.channel
        logger.debug("command from the car", ["command": "\(command)"])
        bridge.perform(command, from: source, on: core.session) { ServiceInput(channel: channel, answer($0)) }
    }
}
