import DashportLog

/// Remote playback: the handler's declaration (validated, pushed, never persisted) and the volume
/// commands cars send while it stands.
extension SessionCore {
    /// The reason words for a volume command without remote playback (cars map it to "not in
    /// capabilities").
    public static let remotePlaybackNotDeclared = "remote playback is not declared; the car's own volume applies"
    /// The reason words for a volume command the device's control does not allow.
    public static let remoteVolumeNotWritable = "the remote device's volume cannot be changed this way"

    /// ``SessionBroadcaster/setRemotePlayback(_:)``: validated, stored and pushed when it changed.
    func declareRemotePlayback(_ remote: RemotePlayback?) throws(SessionStateError) {
        guard !closed else { return }
        if let remote {
            guard remote.volume.isFinite, (0...1).contains(remote.volume) else {
                throw .invalidRemotePlayback("volume \(remote.volume) is outside 0…1")
            }
            guard remote.steps >= 1 else { throw .invalidRemotePlayback("steps \(remote.steps) is below 1") }
        }
        guard remote != remotePlayback else { return }
        let wasDeclared = remotePlayback != nil
        remotePlayback = remote
        if wasDeclared != (remote != nil) {
            logger.info(
                remote == nil ? "remote playback withdrawn" : "remote playback declared",
                [
                    "control": remote?.control.rawValue ?? "-"
                ])
        }
        emit(.remotePlayback(remote))
    }

    /// Volume commands: rejected without remote playback or when the control does not allow them,
    /// else delivered (a key press on an absolute control as the level one step away).
    func routeVolume(_ command: SessionCommand) async -> CommandResult {
        guard let remote = remotePlayback else { return .rejected(reason: Self.remotePlaybackNotDeclared) }
        let session = broadcaster
        switch (command, remote.control) {
        case (_, .fixed):
            return .rejected(reason: Self.remoteVolumeNotWritable + " (its volume is fixed)")
        case (.setDeviceVolume(let volume), .absolute):
            guard volume.isFinite else { return .rejected(reason: "volume \(volume) is not a number in 0…1") }
            let clamped = min(1, max(0, volume))
            return await deliver { try await self.handler.onSetDeviceVolume(clamped, session: session) }
        case (.setDeviceVolume, .relative):
            return .rejected(reason: Self.remoteVolumeNotWritable + " (it only takes steps)")
        case (.adjustDeviceVolume(let steps), _) where steps == 0:
            return .rejected(reason: "volume steps of 0 change nothing")
        case (.adjustDeviceVolume(let steps), .absolute):
            let target = remote.stepped(by: steps)
            return await deliver { try await self.handler.onSetDeviceVolume(target, session: session) }
        case (.adjustDeviceVolume(let steps), .relative):
            return await deliver { try await self.handler.onAdjustDeviceVolume(steps, session: session) }
        case (.setDeviceMuted(let muted), _):
            return await deliver { try await self.handler.onSetDeviceMuted(muted, session: session) }
        case (.toggleDeviceMute, _):
            let muted = !remote.muted
            return await deliver { try await self.handler.onSetDeviceMuted(muted, session: session) }
        default:
            return .rejected(reason: "\(command.name) is not a volume command")
        }
    }
}
