import DashportClock
import DashportHeadUnit
import DashportLink
import DashportTransport
import DashportLog

/// The client's loop: transport events and timer ticks go through one ordered queue into the
/// link; its actions become writes, events and the close.
extension HeadUnitClient {
    /// Starts the transport, sends VERSION_REQUEST and runs the loop until the stream closes.
    func begin() {
        let sink = inputSink
        stream.start { event in sink.yield(.transport(event)) }
        perform(link.start(now: now()))
        // The loop holds the client until the connection is over.
        Task { await self.pump() }
    }

    /// Inputs handled in a row before the loop yields its thread.
    static let inputsPerTurn = 8

    private func pump() async {
        var handledInARow = 0
        for await input in inputs {
            // A stream that always has input waiting (audio DATA faster than a slow machine takes
            // it) never suspends the loop: with one core, the pool's only thread would then never
            // print a notice or run the script. Give the other tasks a turn after a run of inputs.
            handledInARow += 1
            if handledInARow >= Self.inputsPerTurn {
                handledInARow = 0
                await Task.yield()
            }
            switch input {
            case .transport(.received(let bytes)):
                perform(link.receive(bytes, now: now()))
            case .transport(.closed(let error)):
                finish(error)
                return
            case .tick:
                timerDeadline = nil
                perform(link.tick(now: now()))
            }
        }
    }

    /// Carries out the link's actions in order, then re-arms the timer for its next deadline.
    func perform(_ actions: [HeadUnitAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                stream.write(bytes)
            case .event(let event):
                eventSink.yield(.link(event))
            case .close(let reason):
                if pendingDisconnect == nil { pendingDisconnect = .link(reason) }
                stream.close()  // flushes what the link queued before closing (a BYEBYE_RESPONSE)
            }
        }
        rearmTimer()
    }

    private func rearmTimer() {
        let next = disconnect == nil ? link.nextDeadline : nil
        guard next != timerDeadline else { return }
        timer?.cancel()
        timer = nil
        timerDeadline = next
        guard let next else { return }
        let sink = inputSink
        // Rounded up to the clock's millisecond, so the `now` read on waking is never before it.
        let deadline = ClockInstant(sinceOrigin: next + .nanoseconds(999_999))
        let clock = clock
        timer = Task {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return  // re-armed or finished
            }
            sink.yield(.tick)
        }
    }

    /// The transport is closed: report why, once, and wake everyone waiting.
    private func finish(_ error: TransportError?) {
        guard disconnect == nil else { return }
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        let outcome = pendingDisconnect ?? error.map(HeadUnitDisconnect.transport) ?? .peerClosed
        disconnect = outcome
        logger.info("disconnected", ["reason": outcome.description])
        eventSink.yield(.closed(outcome))
        eventSink.finish()
        inputSink.finish()
        let waiters = closeWaiters
        closeWaiters = [:]
        for waiter in waiters.values { waiter.resume(returning: outcome) }
    }

    func resumeCloseWaiter(_ id: Int, with outcome: HeadUnitDisconnect?) {
        closeWaiters.removeValue(forKey: id)?.resume(returning: outcome)
    }
}
