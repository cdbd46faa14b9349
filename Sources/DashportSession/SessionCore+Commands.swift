import DashportBrowse
import DashportLog

extension SessionCore {
    /// Routes one command (fan-in). A command whose capability is not declared in the playback
    /// state, or whose argument is out of range, is rejected and never reaches the handler; jumps
    /// become absolute seeks; play with nothing queued resumes the persisted session or starts the
    /// first playable item of the first tab. The handler's own refusals come back as `rejected`.
    public func perform(_ command: SessionCommand, from source: CommandSource) async -> CommandResult {
        guard !closed else { return .rejected(reason: "the session is closed") }
        let result = await exclusively { await self.route(command) }
        switch result {
        case .accepted:
            logger.debug("command accepted", ["command": command.name, "source": source.description])
        case .rejected(let reason):
            logger.notice("command rejected: \(reason)", ["command": command.name, "source": source.description])
        }
        return result
    }

    /// Routing proper; runs inside the gate.
    func route(_ command: SessionCommand) async -> CommandResult {
        let command = resolveToggle(command)
        if let capability = command.requiredCapability, !playbackState.capabilities.contains(capability) {
            return .rejected(reason: "\(capability.rawValue) is not in the declared capabilities")
        }
        let session = broadcaster
        switch command {
        case .play:
            if snapshot.isIdle { return await playSomething() }
            return await deliver { try await self.handler.play(session: session) }
        case .pause, .playPause:  // `playPause` was resolved above; it never gets here.
            return await deliver { try await self.handler.pause(session: session) }
        case .stop:
            return await deliver { try await self.handler.stop(session: session) }
        case .seekTo(let ms):
            guard ms >= 0 else { return .rejected(reason: "seek position \(ms) ms is negative") }
            return await seek(to: ms)
        case .jumpForward:
            let (target, overflow) = projectedPositionMs(at: clock.now).addingReportingOverflow(configuration.jumpForwardMs)
            return await seek(to: overflow ? .max : target)
        case .jumpBack:
            return await seek(to: max(0, projectedPositionMs(at: clock.now) - configuration.jumpBackMs))
        case .skipToNext:
            return await deliver { try await self.handler.skipToNext(session: session) }
        case .skipToPrevious:
            return await deliver { try await self.handler.skipToPrevious(session: session) }
        case .skipToQueueItem(let index):
            guard QueueNavigator(count: queue.items.count).skip(to: index) != nil else {
                // Positions in words are 1-based, as cars show them.
                return .rejected(reason: "queue position \(index &+ 1) is outside a queue of \(queue.items.count)")
            }
            return await deliver { try await self.handler.skipToQueueItem(index, session: session) }
        case .setRate(let rate):
            guard rate.isFinite, rate > 0, rate <= PlaybackState.maxRate else {
                return .rejected(reason: "rate \(rate) is not a finite number above 0 and at most \(PlaybackState.maxRate)")
            }
            return await deliver { try await self.handler.setRate(rate, session: session) }
        case .setRepeatMode(let mode):
            return await deliver { try await self.handler.onSetRepeatMode(mode, session: session) }
        case .setShuffle(let enabled):
            return await deliver { try await self.handler.onSetShuffle(enabled, session: session) }
        case .customAction(let name, let extras):
            if let refusal = checkCustomAction(name, extras: extras) { return .rejected(reason: refusal) }
            return await deliver { try await self.handler.customAction(name, extras: extras, session: session) }
        case .playFromMediaId(let id, let parentId):
            return await playFromMediaId(id, parentId: parentId)
        case .playFromSearch(let query, let focus):
            return await playFromSearch(query: query, focus: focus)
        case .setSleepTimer(let timer):
            return armSleepTimer(timer)
        case .cancelSleepTimer:
            cancelSleepTimer()
            return .accepted
        case .setDeviceVolume, .adjustDeviceVolume, .setDeviceMuted, .toggleDeviceMute:
            return await routeVolume(command)
        }
    }

    /// `playPause` becomes `pause` while playing or buffering, `play` otherwise.
    private func resolveToggle(_ command: SessionCommand) -> SessionCommand {
        guard command == .playPause else { return command }
        switch playbackState.status {
        case .playing, .buffering: return .pause
        case .paused, .stopped, .error: return .play
        }
    }

    /// Delivers an absolute seek, clamped to the item's duration.
    private func seek(to ms: Int64) async -> CommandResult {
        var target = max(0, ms)
        if let duration = mediaItem.item?.durationMs { target = min(target, duration) }
        let session = broadcaster
        return await deliver { try await self.handler.seekTo(target, session: session) }
    }

    private func checkCustomAction(_ name: String, extras: [String: String]) -> String? {
        guard playbackState.customActions.contains(where: { $0.name == name }) else {
            return "custom action '\(name.prefix(64))' is not one of the declared custom actions"
        }
        guard extras.count <= configuration.maxCustomActionExtras else {
            return "\(extras.count) extras, more than \(configuration.maxCustomActionExtras)"
        }
        let limit = configuration.maxTextBytes
        if extras.contains(where: { $0.key.utf8.count > limit || $0.value.utf8.count > limit }) {
            return "an extra is longer than \(limit) bytes"
        }
        return nil
    }

    /// Runs a handler call and turns what it throws into a rejection.
    func deliver(_ call: () async throws -> Void) async -> CommandResult {
        do {
            try await call()
            return .accepted
        } catch {
            return .rejected(reason: Self.reason(for: error))
        }
    }

    /// Words for a thrown error: handler, state and browse errors say their own.
    static func reason(for error: any Error) -> String {
        switch error {
        case let error as SessionHandlerError: error.description
        case let error as SessionStateError: "the player made an invalid change: \(error)"
        case let error as BrowseError: error.message
        case let error as SessionError: error.message
        default: "the player failed: \(error)"
        }
    }
}

// MARK: - Serialization

/// Marks the task (and the tasks it starts) that holds a core's gate, so a handler's broadcast from
/// inside a command is applied at once instead of waiting for the command it is part of.
struct GateToken: Sendable, Hashable {
    var core: ObjectIdentifier
    var serial: UInt64

    @TaskLocal static var current: GateToken?
}

extension SessionCore {
    /// Whether the calling task is the one running the current command.
    var isInsideGate: Bool {
        gateHeld && GateToken.current == GateToken(core: ObjectIdentifier(self), serial: gateSerial)
    }

    /// Runs `body` with the gate held: commands, timer actions and outside broadcasts each run
    /// alone, in arrival order. Re-entering from inside the gate runs `body` at once. Before the gate
    /// is released, a sleep timer that fell due during `body` fires (pause, then report).
    func exclusively<T: Sendable>(_ body: () async -> T) async -> T {
        if isInsideGate { return await body() }
        await acquireGate()
        gateSerial &+= 1
        let token = GateToken(core: ObjectIdentifier(self), serial: gateSerial)
        let result = await GateToken.$current.withValue(token) {
            let value = await body()
            while sleepTimerDue && !closed {
                await fireSleepTimer()
            }
            return value
        }
        releaseGate()
        return result
    }

    /// ``SessionBroadcaster/exclusive(_:)``: a handler's timer work, run like a command.
    func runExclusive(_ body: @escaping @Sendable (SessionBroadcaster) async throws -> Void) async throws {
        guard !closed else { return }
        let broadcaster = self.broadcaster
        let failure: (any Error)? = await exclusively {
            do {
                try await body(broadcaster)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    private func acquireGate() async {
        guard gateHeld else {
            gateHeld = true
            return
        }
        // Resumed by `releaseGate`, which hands the gate over without clearing `gateHeld`.
        await withCheckedContinuation { gateWaiters.append($0) }
    }

    private func releaseGate() {
        gateSerial &+= 1  // tasks the last holder started no longer count as inside
        if gateWaiters.isEmpty {
            gateHeld = false
        } else {
            gateWaiters.removeFirst().resume()
        }
    }
}

extension SessionCore {
    /// Runs `body` like a command, from outside any command: for a handler whose player changes on
    /// its own (MPD driven by another client), so the change is broadcast in turn with the cars'
    /// commands. Errors from `body` are rethrown.
    public func exclusive(_ body: @escaping @Sendable (SessionBroadcaster) async throws -> Void) async throws {
        try await runExclusive(body)
    }
}
