/// The demo's simulated remote speaker (given a `remoteVolume` control): it takes every volume and
/// mute command at once and publishes the level it took.
extension DemoPlaybackHandler {
    public func onSetDeviceVolume(_ volume: Double, session: SessionBroadcaster) async throws {
        guard var remote = await session.remotePlayback else { throw SessionHandlerError.notSupported("setDeviceVolume") }
        remote.volume = volume
        try await session.setRemotePlayback(remote)
    }

    public func onAdjustDeviceVolume(_ steps: Int, session: SessionBroadcaster) async throws {
        guard var remote = await session.remotePlayback else { throw SessionHandlerError.notSupported("adjustDeviceVolume") }
        remote.volume = remote.stepped(by: steps)
        try await session.setRemotePlayback(remote)
    }

    public func onSetDeviceMuted(_ muted: Bool, session: SessionBroadcaster) async throws {
        guard var remote = await session.remotePlayback else { throw SessionHandlerError.notSupported("setDeviceMuted") }
        remote.muted = muted
        try await session.setRemotePlayback(remote)
    }
}
