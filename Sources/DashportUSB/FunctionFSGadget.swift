import Dispatch
import DashportThread
import FoundationEssentials
import Glibc
public import DashportClock
public import DashportLog
import DashportTransport
import Synchronization

/// Dashport as a USB device (the car is the host): a FunctionFS function that answers the Android
/// Open Accessory switch on ep0 and carries each session's AAP byte stream over its bulk
/// endpoints, one ``USBSessionStream`` per session, handed to ``start(onSession:)``.
///
/// Three dedicated threads, because every endpoint read and write blocks: ep0 events, bulk OUT
/// reads, bulk IN writes. A session starts when the car configures the accessory (ENABLE) or first
/// speaks on the bulk pipe; it ends on DISABLE, UNBIND or SUSPEND (an unplug is SUSPEND then
/// UNBIND, a host reset DISABLE then ENABLE). When the server ends a session itself and the
/// gadget's configfs directory is known, the gadget re-enumerates, so the car sees the phone go.
public final class FunctionFSGadget: Sendable {
    public struct Options: Sendable {
        public var mode: GadgetMode = .switch
        /// How long after the car configures the phone identity the gadget warns that no START came.
        public var startTimeout: Duration = .seconds(10)
        /// Bytes read from the car before the session is known, at most.
        public var stashLimit = 64 * 1024
        public init(mode: GadgetMode = .switch) { self.mode = mode }
    }

    struct Shared {
        var control: AccessoryControl
        var session: USBSessionStream?
        var sessionsStarted = 0
        var stash: [UInt8] = []
        var linkEnabled = false
        var afterLocalClose = false
        /// What the car was shown: the accessory (2d00) or the phone (switch mode before START).
        var accessoryIdentity: Bool
        var maxPacket = 512
        var enableGeneration = 0
        var stopping = false
        var stopped = false
        var onSession: (@Sendable (USBSessionStream) -> Void)?
    }

    public let endpoints: any FunctionFSEndpoints
    public let identity: GadgetIdentity?
    public let options: Options
    let logger: Logger
    /// Times the wait for START (the project's one clock seam; tests pass a manual clock).
    let clock: any DashportClock
    let shared: Mutex<Shared>
    let writerWake = DispatchSemaphore(value: 0)
    let enabledWake = DispatchSemaphore(value: 0)
    let threadsDone = DispatchGroup()

    public init(
        endpoints: any FunctionFSEndpoints, identity: GadgetIdentity?, options: Options = Options(),
        clock: any DashportClock = SystemClock(), logger: Logger
    ) {
        self.endpoints = endpoints
        self.clock = clock
        self.identity = identity
        self.options = options
        self.logger = logger.labelled("usb")
        self.shared = Mutex(Shared(control: AccessoryControl(mode: options.mode), accessoryIdentity: options.mode == .direct))
    }

    /// How many sessions have started.
    public var sessionsStarted: Int { shared.withLock { $0.sessionsStarted } }

    /// Writes the descriptors, opens the bulk endpoints, starts the threads and, with a configfs
    /// identity, binds the gadget to its controller (as the phone in switch mode, the accessory in
    /// direct mode). Throws an error a person can act on.
    public func start(onSession: @escaping @Sendable (USBSessionStream) -> Void) throws(USBGadgetError) {
        shared.withLock { $0.onSession = onSession }
        let ep0 = try endpoints.openControl()
        let bulkIn: Int32
        let bulkOut: Int32
        do throws(USBGadgetError) {
            for blob in [FunctionFSDescriptors.descriptors(), FunctionFSDescriptors.strings()] {
                let result = FileIO.write(ep0, blob)
                if result < 0 { throw .descriptors("writing to \(endpoints.name)/ep0: \(FileIO.describe(result))") }
            }
            bulkIn = try endpoints.openBulkIn()
            do { bulkOut = try endpoints.openBulkOut() } catch {
                close(bulkIn)
                throw error
            }
        } catch {
            close(ep0)
            throw error
        }
        spawn("dashport-usb-ep0") { self.controlLoop(ep0) }
        spawn("dashport-usb-out") { self.readLoop(bulkOut) }
        spawn("dashport-usb-in") { self.writeLoop(bulkIn) }
        logger.notice("USB gadget ready", ["endpoints": endpoints.name, "mode": options.mode.rawValue])
        if let identity {
            let product = options.mode == .direct ? AccessoryProtocol.accessoryProduct : AccessoryProtocol.phoneProduct
            do throws(USBGadgetError) {
                try identity.unbind()
                try identity.setProduct(product)
                try identity.bind()
            } catch {
                stop()
                throw error
            }
            logger.notice(
                "bound to USB controller \(identity.controller) as 18d1:\(String(product, radix: 16))", ["gadget": identity.directory])
        }
    }

    /// No new sessions and no more re-enumeration: the server is about to say bye-bye to the car.
    public func beginShutdown() {
        shared.withLock { $0.stopping = true }
    }

    /// Ends the current session, unbinds from the controller (the car sees an unplug) and stops
    /// the threads; each closes its own endpoint file.
    public func stop() {
        let session = shared.withLock { state -> USBSessionStream? in
            state.stopping = true
            state.stopped = true
            defer { state.session = nil }
            return state.session
        }
        session?.linkLost(.io("the USB gadget is stopping"))
        if let identity { try? identity.unbind() }
        writerWake.signal()
        enabledWake.signal()
    }

    /// Waits (up to `timeout`) for the three threads to end after ``stop()``; true if they did.
    public func waitForThreads(timeout: Duration) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return threadsDone.wait(timeout: .now() + seconds) == .success
    }

    var isStopped: Bool { shared.withLock { $0.stopped } }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        threadsDone.enter()
        OSThread.start(name: name) { [threadsDone] in
            body()
            threadsDone.leave()
        }
    }
}
