import Dispatch
import DashportThread
import FoundationEssentials
import Glibc
import DashportTransport
import DashportLog
import Synchronization
import DashportClock

/// The ep0 thread: the event stream, the AOA answers, link up and down, the switch.
extension FunctionFSGadget {
    func controlLoop(_ ep0: Int32) {
        defer { close(ep0) }
        while !isStopped {
            var poller = pollfd(fd: ep0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 250)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            if ready < 0 {
                logger.error("ep0: poll failed: \(String(cString: strerror(errno))); the USB gadget stops serving")
                return
            }
            // One event per read: ep0 returns whole 12-byte records, and a simulated stream may
            // carry a data stage right behind a SETUP.
            guard let record = FileIO.readExactly(ep0, count: FunctionFSEvent.size) else {
                if !isStopped { logger.error("ep0 closed or failed (\(String(cString: strerror(errno)))): the USB gadget stops serving") }
                return
            }
            for event in FunctionFSEvent.decode(record) {
                handle(event, ep0: ep0)
            }
        }
    }

    func handle(_ event: FunctionFSEvent, ep0: Int32) {
        logger.debug("ep0 event \(event)")
        if event == .bind {
            // A new connection to the bus: bytes read since the last one went down (a car's half
            // message still in the pipe when the cable went) are the old car's, never the next one's.
            shared.withLock { $0.stash = [] }
        }
        var actions = shared.withLock { $0.control.handle(event) }
        logNotes()
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .write(let bytes):
                let result = FileIO.write(ep0, bytes)
                if result < 0 { logger.warning("ep0: answering the car failed: \(FileIO.describe(result))") }
            case .readString(let index, let length):
                guard let bytes = FileIO.readExactly(ep0, count: length) else {
                    logger.warning("ep0: the car's string \(index) did not arrive")
                    continue
                }
                shared.withLock { $0.control.stringReceived(index: index, bytes: bytes) }
                logNotes()
            case .acknowledge:
                var none: [UInt8] = [0]
                _ = FileIO.read(ep0, into: &none, count: 0)
            case .stall(let isIn):
                if isIn {
                    var none: [UInt8] = [0]
                    _ = FileIO.read(ep0, into: &none, count: 0)
                } else {
                    _ = FileIO.write(ep0, [])
                }
            case .linkUp:
                linkUp()
            case .linkDown(let loss):
                linkDown(loss)
            case .switchToAccessory:
                switchToAccessory()
            }
        }
    }

    private func logNotes() {
        for note in shared.withLock({ $0.control.takeNotes() }) {
            logger.info(note)
        }
    }

    /// ENABLE: in the accessory identity a session starts now, with what the car already sent;
    /// as the phone we wait for START (and say so if it does not come).
    func linkUp() {
        let packet = identity?.bulkMaxPacket() ?? 512
        let (accessory, generation) = shared.withLock { state -> (Bool, Int) in
            state.linkEnabled = true
            state.afterLocalClose = false
            state.maxPacket = packet
            state.enableGeneration += 1
            return (state.accessoryIdentity, state.enableGeneration)
        }
        enabledWake.signal()
        if accessory {
            startSession(reason: "the car configured the accessory")
        } else {
            let timeout = options.startTimeout
            _ = clock.schedule(at: clock.now.advanced(by: timeout)) { [self] in
                let waiting = shared.withLock { state in
                    state.enableGeneration == generation && state.linkEnabled && !state.accessoryIdentity
                        && state.session == nil && !state.stopped
                }
                if waiting {
                    logger.warning(
                        "the car enumerated Dashport as a phone (18d1:4ee1) but has not started Android Open Accessory "
                            + "(no request 53 within \(timeout)); if this car expects an accessory straight away, serve with --usb-mode direct"
                    )
                }
            }
        }
    }

    /// DISABLE, UNBIND, SUSPEND: the session ends; in switch mode the next car meets the phone again.
    func linkDown(_ loss: USBLinkLoss) {
        let (session, revert) = shared.withLock { state -> (USBSessionStream?, Bool) in
            state.linkEnabled = false
            state.stash = []
            let session = state.session
            state.session = nil
            // A second ENABLE (the car configured us again) keeps the accessory identity it saw.
            let revert =
                options.mode == .switch && state.accessoryIdentity && !state.control.switching && !state.stopped
                && loss != .reconfigured
            if revert { state.accessoryIdentity = false }
            return (session, revert)
        }
        if let session {
            logger.notice("session ended: \(loss)", ["peer": session.peerDescription])
            session.linkLost(.io("USB link lost: \(loss)"))
        }
        if revert, let identity {
            do {
                try identity.setProduct(AccessoryProtocol.phoneProduct)
                logger.info("next enumeration as the phone 18d1:4ee1, waiting for the car's AOA switch")
            } catch {
                logger.warning("could not restore the phone identity: \(error)")
            }
        }
    }

    /// AOA START: re-enumerate as 18d1:2d00, off the ep0 thread (the unbind produces ep0 events).
    func switchToAccessory() {
        guard let identity else {
            logger.error(
                "the car sent START but the gadget cannot re-enumerate: no configfs gadget directory was given "
                    + "(--usb-configfs DIR), or use --usb-mode direct with a gadget set up as 18d1:2d00")
            shared.withLock { $0.control.switchFailed() }
            return
        }
        shared.withLock { $0.accessoryIdentity = true }
        OSThread.start(name: "usb-accessory") { [self] in
            // Let the status stage of request 53 complete before the car sees us go.
            OSThread.sleep(for: .milliseconds(50))
            do {
                try identity.reenumerate(as: AccessoryProtocol.accessoryProduct)
                logger.notice("re-enumerated as the accessory 18d1:2d00 on \(identity.controller)")
            } catch {
                logger.error("switching to the accessory identity failed: \(error)")
                shared.withLock { state in
                    state.control.switchFailed()
                    state.accessoryIdentity = false
                }
            }
        }
    }

    /// The server ended the session: no new one until the car configures us again; with configfs,
    /// re-enumerate so the car notices (as a phone leaving accessory mode does).
    func sessionEndedLocally(_ ended: USBSessionStream) {
        let reenumerate = shared.withLock { state -> Bool in
            guard state.session === ended else { return false }
            state.session = nil
            state.afterLocalClose = true
            state.stash = []
            let again = state.linkEnabled && !state.stopping
            if again, options.mode == .switch {
                state.accessoryIdentity = false
            }
            return again
        }
        guard reenumerate, let identity else { return }
        let product = options.mode == .switch ? AccessoryProtocol.phoneProduct : AccessoryProtocol.accessoryProduct
        logger.info("session ended by the server; re-enumerating so the car sees the phone leave")
        OSThread.start(name: "usb-reenumerate") { [self] in
            do {
                try identity.reenumerate(as: product)
            } catch {
                logger.warning("re-enumerating after the session ended failed: \(error)")
            }
        }
    }
}
