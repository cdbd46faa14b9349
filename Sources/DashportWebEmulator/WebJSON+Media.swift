import DashportHeadUnit
import DashportMessages

/// The page's view of the Dashport media channel's messages: the JSON the API answers and the
/// events carry (every key is listed in the DocC article *WebEmulator*).
extension WebJSON {
    static func item(_ item: DashportMedia.BrowseItem) -> WebJSON {
        .object([
            "id": .string(item.id), "title": .string(item.title), "subtitle": opt(item.subtitle),
            "artworkKey": opt(item.artworkKey), "browsable": .bool(item.browsable), "playable": .bool(item.playable),
            "childStyle": name(item.childStyle), "group": opt(item.group), "explicit": opt(item.explicit),
            "completion": opt(item.completion), "mediaType": name(item.mediaType), "artist": opt(item.artist),
            "album": opt(item.album), "durationMs": opt(item.durationMs),
        ])
    }

    /// A BROWSE_RESULT: `{"outcome":"items",...}`, `{"outcome":"error",...}` or `{"outcome":"rejected",...}`.
    static func browse(_ result: DashportMedia.BrowseResult) -> WebJSON {
        switch result.outcome {
        case .items(let page):
            return .object([
                "outcome": .string("items"), "items": .array(page.items.map(item)), "page": .int(Int64(page.page ?? 0)),
                "total": opt(page.total), "hasMore": .bool(page.hasMore ?? false),
            ])
        case .errorScreen(let screen):
            return .object([
                "outcome": .string("error"), "code": name(screen.code), "message": .string(screen.message),
                "resolution": screen.resolution.map { .object(["label": .string($0.label), "url": opt($0.url)]) },
            ])
        case .rejected(let rejection):
            return .object(["outcome": .string("rejected"), "reason": name(rejection.reason), "message": opt(rejection.message)])
        case nil:
            return .object(["outcome": .string("rejected"), "reason": .string("noOutcome")])
        }
    }

    static func command(_ result: DashportMedia.CommandResult) -> WebJSON {
        .object(["accepted": .bool(result.accepted), "reason": name(result.reason), "message": opt(result.message)])
    }

    static func mediaItem(_ item: DashportMedia.MediaItem?) -> WebJSON {
        guard let item else { return .null }
        return .object([
            "id": .string(item.id), "title": opt(item.title), "artist": opt(item.artist), "album": opt(item.album),
            "artworkKey": opt(item.artworkKey), "durationMs": opt(item.durationMs), "subtitle": opt(item.subtitle),
            "isLive": opt(item.isLive),
        ])
    }

    /// The playback state with the position computed at car time `now`: the page moves it on from
    /// there at `rate` (0 unless playing) with its own clock.
    static func playback(_ snapshot: PlaybackSnapshot?, durationMs: Int64?, now: Duration) -> WebJSON {
        guard let snapshot else { return .object(["status": .string("none")]) }
        let state = snapshot.state
        let playing = state.status == .playing
        return .object([
            "status": name(state.status), "positionMs": opt(snapshot.positionMs(at: now, durationMs: durationMs)),
            "rate": .double(playing ? (state.position?.rate ?? 1) : 0), "speed": opt(state.speed),
            "durationMs": opt(durationMs), "repeatMode": name(state.repeatMode ?? .off), "shuffle": .bool(state.shuffle ?? false),
            "queueIndex": opt(state.queueIndex), "errorMessage": opt(state.errorMessage),
            "controls": .array(state.controls.map { .string("\($0)") }),
            "customActions": .array(
                state.customActions.map { .object(["name": .string($0.name), "label": .string($0.label ?? $0.name)]) }),
        ])
    }

    static func queue(_ queue: DashportMedia.QueueState?, index: UInt32?) -> WebJSON {
        let items = queue?.items ?? []
        return .object(["items": .array(items.map(mediaItem)), "index": opt(index)])
    }

    static func sleepTimer(_ snapshot: SleepTimerSnapshot?, now: Duration) -> WebJSON {
        guard let snapshot, snapshot.state.mode != nil else { return .object(["mode": .string("off")]) }
        return .object(["mode": name(snapshot.state.mode), "remainingMs": opt(snapshot.remainingMs(at: now))])
    }

    static func volume(_ state: DashportMedia.RemotePlaybackState?) -> WebJSON {
        guard let remote = state?.remote else { return .object(["remote": .bool(false)]) }
        return .object([
            "remote": .bool(true), "volume": .double(remote.volume), "muted": .bool(remote.muted), "steps": opt(remote.steps ?? 20),
            "control": name(remote.control),
        ])
    }

    static func sessionError(_ error: DashportMedia.SessionError) -> WebJSON {
        .object(["code": name(error.code), "severity": name(error.severity), "message": opt(error.message), "subject": opt(error.subject)])
    }

    static func hello(_ hello: DashportMedia.ServerHello) -> WebJSON {
        .object([
            "serverName": opt(hello.serverName), "serverVersion": opt(hello.serverVersion), "rootId": .string(hello.rootId),
            "supportsSearch": .bool(hello.supportsSearch), "maxPageSize": opt(hello.maxPageSize),
        ])
    }
}
