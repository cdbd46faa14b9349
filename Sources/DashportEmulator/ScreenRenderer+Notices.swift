import DashportDigest
public import DashportHeadUnit
public import DashportLink
public import DashportMessages

extension ScreenRenderer {
    /// A link event as one line (two for TLS), for `dashport-hu connect`. Ping timestamps and
    /// round-trip times are left out so the output is stable; `nil` for a channel-open request,
    /// whose outcome has its own line.
    public static func linkEvent(_ event: HeadUnitEvent) -> String? {
        switch event {
        case .channelOpenRequested: nil
        case .versionNegotiated(let version): "version: the phone answered AAP \(version)"
        case .tlsEstablished(let tls):
            "tls: \(tls.version) \(tls.cipher)\nserver certificate sha256: \(tls.peerFingerprint ?? "(none presented)")"
        case .discoveryRequested(let label, let device):
            "discovery: requested by \(device.map { "\"\($0)\"" } ?? "(no device name)")"
                + suffix(label.map { "label \"\($0)\"" }, separator: ", ")
        case .channelOpened(let service): "channel \(service.channel) opened: \(serviceName(service.kind))"
        case .channelOpenRefused(let service, let status):
            "channel \(service.channel) refused (status \(status)): \(serviceName(service.kind))"
        case .channelOpenUnanswered(let channel, let listed):
            "channel \(channel): open request left unanswered" + (listed ? "" : " (not listed)")
        case .message(let channel, let messageId, let body): "message \(Hex.id(messageId)) on channel \(channel), \(body.count) bytes"
        case .pingReceived(_, let encrypted): "ping from the phone (\(encrypted ? "encrypted" : "plain"))"
        case .pingAnswered(_, let encrypted): "the phone answered our ping (\(encrypted ? "encrypted" : "plain"))"
        case .controlMessage(let messageId, let body, let encrypted):
            "control message \(Hex.id(messageId)), \(body.count) bytes (\(encrypted ? "encrypted" : "plain"))"
        case .byeByeReceived(let reason): "the phone said bye-bye (reason \(reason))"
        case .audio(let event): "audio: " + audioEvent(event)
        }
    }

    /// A service as people name it: "input (6 keys)", "dashport.media (profile 14 bytes)".
    public static func serviceName(_ kind: CarService.Kind) -> String {
        switch kind {
        case .mediaPlaybackStatus: "media playback status"
        case .input(let keycodes): "input (\(keycodes.count) keys)"
        case .mediaBrowser: "media browser"
        case .vendorExtension(let name, let data): "\(name) (vendor extension, \(data.count) bytes of profile)"
        case .mediaSink: "media sink"
        case .sensor(let types): "sensors (\(types.count))"
        case .other(let field): "service field \(field)"
        }
    }

    /// A session notice as output lines; `nil` for notices the browse screen does not show (pings,
    /// channel opens, AAP status and metadata unless `stock` is true).
    public static func notice(_ notice: MediaSessionNotice, stock: Bool) -> [String]? {
        switch notice {
        case .update(let update): return self.update(update)
        case .problem(let text): return ["! \(text)"]
        case .closed(let reason): return ["* link closed: \(reason)"]
        case .keyBindingRequested(let keycodes):
            return stock ? ["key binding requested: \(keycodes.map(String.init).joined(separator: " "))"] : nil
        case .aapPlaybackStatus(let status): return stock ? [aapStatus(status)] : nil
        case .aapPlaybackMetadata(let metadata): return stock ? [aapMetadata(metadata)] : nil
        case .link(.audio(.violation(let text))): return ["! audio: \(text)"]
        case .link(let event): return stock ? linkEvent(event).map { $0.split(separator: "\n").map(String.init) } : nil
        }
    }

    /// A push or the hello as one line.
    public static func update(_ update: MediaChannelUpdate) -> [String]? {
        switch update {
        case .serverHello(let hello):
            var parts = ["\(hello.serverName ?? "server") \(hello.serverVersion ?? "")".trimmingWhitespace]
            parts.append("root \(hello.rootId)")
            parts.append("search \(hello.supportsSearch ? "yes" : "no")")
            if let limit = hello.maxInFlightRequests { parts.append("\(limit) requests in flight") }
            if let limit = hello.maxPageSize { parts.append("pages up to \(limit)") }
            return ["\(LinkConfiguration.dashportMediaServiceName) hello: " + parts.joined(separator: ", ")]
        case .answer:
            return nil
        case .playbackState(let state):
            return ["* playback: \(state.status)" + (state.queueIndex.map { ", queue entry \($0 + 1)" } ?? "")]
        case .mediaItem(let state):
            return ["* item: " + (state.item.map { ($0.title ?? $0.id) + suffix($0.artist, separator: " · ") } ?? "(none)")]
        case .queue(let queue):
            return ["* queue: \(queue.items.count) \(queue.items.count == 1 ? "entry" : "entries")"]
        case .sessionError(let error) where error.code == .browseRootRejected || error.code == .browseDepthExceeded:
            // A car rule applied to this car's lists, not a fault: the demo library breaks both on
            // purpose (a fifth tab, a playable-only root entry) so every car sees the rule work.
            return [
                "* the server dropped an entry for this car's screen" + suffix(error.message, separator: ": ")
                    + suffix(error.subject.map { "[\($0)]" }, separator: " "),
                "  (a car rule, not a fault: the demo library has a fifth tab and a playable root entry on purpose)",
            ]
        case .sessionError(let error):
            return [
                "* session error: \(error.code) (\(error.severity))" + suffix(error.message)
                    + suffix(error.subject.map { "[\($0)]" }, separator: " ")
            ]
        case .childrenChanged(let changed):
            return ["* children changed: " + (changed.parentId ?? "everything")]
        case .sleepTimer(let state):
            return ["* sleep timer: " + sleepTimer(state, remainingMs: state.remainingMs)]
        case .sleepTimerFired:
            return ["* sleep timer: fired, playback paused"]
        case .remotePlayback(let state):
            return ["* volume: " + remoteVolume(state.remote)]
        }
    }

    /// A sleep timer as words: "off", "in 4:59", "at end of track", "at end of track (in 1:02)".
    public static func sleepTimer(_ state: DashportMedia.SleepTimerState, remainingMs: Int64?) -> String {
        switch state.mode {
        case nil: "off"
        case .endOfTrack?: "at end of track" + (remainingMs.map { " (in \(clock($0)))" } ?? "")
        default: remainingMs.map { "in \(clock($0))" } ?? "armed"
        }
    }

    /// Remote playback as words: "local (the car's own volume)", "remote 50% (absolute, 20 steps)".
    public static func remoteVolume(_ remote: DashportMedia.RemotePlayback?) -> String {
        guard let remote else { return "local (the car's own volume)" }
        let percent = Int((min(max(remote.volume, 0), 1) * 100).rounded())
        let control = remote.control == .absolute ? "absolute" : remote.control == .relative ? "relative" : "fixed"
        return "remote \(percent)%" + (remote.muted ? " muted" : "") + " (\(control), \(remote.steps ?? 20) steps)"
    }

    /// MEDIA_PLAYBACK_STATUS as one line.
    public static func aapStatus(_ status: AAP.MediaPlaybackStatus) -> String {
        var parts = [status.state.map { "\($0)" } ?? "no state"]
        if let seconds = status.playbackSeconds { parts.append("\(seconds) s") }
        if let source = status.mediaSource { parts.append("from \"\(source)\"") }
        parts.append("shuffle \(status.shuffle == true ? "on" : "off")")
        parts.append("repeat \(status.repeatOne == true ? "one" : status.repeat == true ? "all" : "off")")
        return "aap playback status: " + parts.joined(separator: ", ")
    }

    /// MEDIA_PLAYBACK_METADATA as one line; album art by size only.
    public static func aapMetadata(_ metadata: AAP.MediaPlaybackMetadata) -> String {
        var text = "aap metadata: " + (metadata.song.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)")
        text += suffix(metadata.artist, separator: " · ") + suffix(metadata.album, separator: " · ")
        if let seconds = metadata.durationSeconds { text += ", \(clock(Int64(seconds) * 1000))" }
        if let art = metadata.albumArt { text += ", album art \(art.count) bytes" }
        return text
    }
}
