import DashportThread
import Dispatch
import FoundationEssentials
import Glibc
import DashportTransport
import DashportLog
import Synchronization

/// The bulk threads and the session each byte belongs to.
extension FunctionFSGadget {
    /// Starts a session (ending a previous one), handing it what the car sent before it existed.
    @discardableResult
    func startSession(reason: String) -> USBSessionStream? {
        let created = shared.withLock { state -> (USBSessionStream, USBSessionStream?, [UInt8], (@Sendable (USBSessionStream) -> Void)?)? in
            guard !state.stopping else { return nil }
            state.sessionsStarted += 1
            let stream = USBSessionStream(
                peerDescription: "usb:\(identity?.controller ?? endpoints.name)#\(state.sessionsStarted)",
                writerWake: writerWake, onLocalEnd: { [weak self] in self?.sessionEndedByServer() })
            let previous = state.session
            state.session = stream
            let stash = state.stash
            state.stash = []
            return (stream, previous, stash, state.onSession)
        }
        guard let (stream, previous, stash, onSession) = created else { return nil }
        previous?.linkLost(.io("USB link lost: \(USBLinkLoss.reconfigured)"))
        logger.info("session starts: \(reason)", ["peer": stream.peerDescription])
        onSession?(stream)
        if !stash.isEmpty { stream.deliver(stash) }
        return stream
    }

    /// A session ended from the server's side; it is the current one only if nothing replaced it.
    func sessionEndedByServer() {
        let current = shared.withLock { $0.session }
        if let current, current.isFinished { sessionEndedLocally(current) }
    }

    /// Bulk OUT: reads into 16 KiB buffers; 0-byte reads (zero-length packets) are ignored.
    func readLoop(_ fd: Int32) {
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: AccessoryProtocol.maxTransfer)
        var zeroReads = 0
        var reportedError: Int?
        while !isStopped {
            let got = FileIO.read(fd, into: &buffer, count: buffer.count)
            if got == 0 {
                zeroReads += 1
                if zeroReads > 64 { OSThread.sleep(for: .milliseconds(10)) }  // a simulated pipe at end of file
                continue
            }
            zeroReads = 0
            if got < 0 {
                if -got == Int(EAGAIN) {  // endpoints disabled: no car configured us yet
                    _ = enabledWake.wait(timeout: .now() + 0.25)
                } else if -got == Int(ESHUTDOWN) || -got == Int(ECONNRESET) || -got == Int(EINTR) {
                    continue  // the transfer was cut by a disable; ep0 reports the loss
                } else {
                    if reportedError != got {
                        logger.warning("bulk OUT read failed: \(FileIO.describe(got))")
                        reportedError = got
                    }
                    OSThread.sleep(for: .milliseconds(100))
                }
                continue
            }
            reportedError = nil
            route(Array(buffer[..<got]))
        }
    }

    private func route(_ bytes: [UInt8]) {
        enum Route {
            case deliver(USBSessionStream)
            case start, stash, drop
        }
        let route = shared.withLock { state -> Route in
            if let session = state.session { return .deliver(session) }
            if state.stopping { return .drop }
            if !state.linkEnabled {
                guard state.stash.count + bytes.count <= options.stashLimit else { return .drop }
                state.stash += bytes
                return .stash
            }
            if state.afterLocalClose { return .drop }
            state.stash += bytes
            return .start
        }
        switch route {
        case .deliver(let session): session.deliver(bytes)
        case .start: startSession(reason: "the car spoke on the bulk pipe")
        case .stash: logger.debug("kept \(bytes.count) bytes from the car until it configures the device")
        case .drop: logger.debug("dropped \(bytes.count) bytes from the car: no session to take them")
        }
    }

    /// Bulk IN: sends the current session's bytes in transfers of at most 16 KiB, each followed by
    /// a zero-length packet when it is a whole number of max-size packets shorter than 16 KiB.
    func writeLoop(_ fd: Int32) {
        defer { close(fd) }
        while true {
            _ = writerWake.wait(timeout: .now() + 0.25)
            if isStopped { return }
            while let (session, maxPacket) = shared.withLock({ state in state.session.map { ($0, state.maxPacket) } }),
                let chunk = session.takeChunk(limit: AccessoryProtocol.maxTransfer)
            {
                var result = FileIO.write(fd, chunk)
                if result == 0, AccessoryProtocol.needsZeroLengthPacket(length: chunk.count, maxPacket: maxPacket) {
                    result = FileIO.write(fd, [])
                }
                if result < 0 {
                    let reason =
                        -result == Int(EAGAIN)
                        ? "the car is not connected (USB endpoints disabled)" : "USB write failed: \(FileIO.describe(result))"
                    logger.warning("\(reason); \(chunk.count) bytes for the car lost", ["peer": session.peerDescription])
                    session.linkLost(.io(reason))
                    shared.withLock { state in
                        if state.session === session { state.session = nil }
                    }
                    continue
                }
                session.chunkSent()
            }
        }
    }
}
