public import DashportHeadUnit
public import DashportMessages

/// Draws what a car would show, as stable text lines (no timestamps, no timing-dependent values
/// except the playback position, which is computed from an injected time). Pure functions.
public enum ScreenRenderer {
    /// A browse answer under a title: the list, the error screen or the rejection.
    /// `page` is the 0-based page asked for (shown 1-based), `childStyle` how the parent lays out children.
    public static func browse(title: String, result: DashportMedia.BrowseResult, childStyle: DashportMedia.ChildStyle?) -> [String] {
        switch result.outcome {
        case .items(let page): list(title: title, page: page, childStyle: childStyle)
        case .errorScreen(let screen): errorScreen(title: title, screen: screen)
        case .rejected(let rejection): [heading(title), "! rejected: \(rejection.reason)" + suffix(rejection.message)]
        case nil: [heading(title), "! the answer carries no outcome"]
        }
    }

    /// A list: heading, a summary line, group headers where the group changes, one row per item.
    public static func list(title: String, page: DashportMedia.ItemPage, childStyle: DashportMedia.ChildStyle?) -> [String] {
        var lines = [heading(title)]
        var summary: [String] = []
        if let childStyle { summary.append("style \(childStyle)") }
        summary.append("page \(Int(page.page ?? 0) + 1)")
        let count = page.items.count
        let noun = (page.total.map(Int.init) ?? count) == 1 ? "item" : "items"
        summary.append(page.total.map { "\(count) of \($0) \(noun)" } ?? "\(count) \(noun)")
        if page.hasMore == true { summary.append("more") }
        lines.append(summary.joined(separator: " · "))
        if page.items.isEmpty { lines.append("  (empty)") }
        var group: String?
        for (index, item) in page.items.enumerated() {
            if let itemGroup = item.group, itemGroup != group { lines.append("-- \(itemGroup) --") }
            group = item.group
            lines.append(row(index + 1, item))
        }
        return lines
    }

    /// One row: number, flags (▶ playable, › browsable, E explicit), title · subtitle, duration,
    /// completion, [id].
    public static func row(_ number: Int, _ item: DashportMedia.BrowseItem) -> String {
        let flags = (item.playable ? "▶" : " ") + (item.browsable ? "›" : " ") + (item.explicit == true ? "E" : " ")
        var text = "\(padded(number, to: 3))  \(flags)  \(item.title)" + suffix(item.subtitle, separator: " · ")
        if let duration = item.durationMs, duration > 0 { text += "  " + clock(duration) }
        if let completion = item.completion, completion.isFinite {
            text += "  \(Int((min(max(completion, 0), 1) * 100).rounded()))%"
        }
        return text + "  [\(item.id)]"
    }

    /// A BrowseError screen: code, message and the resolution button (label and url).
    public static func errorScreen(title: String, screen: DashportMedia.BrowseErrorScreen) -> [String] {
        var lines = [heading(title), "! \(screen.code): \(screen.message)"]
        if let resolution = screen.resolution {
            lines.append("  [\(resolution.label)]" + suffix(resolution.url, separator: " "))
        }
        return lines
    }

    /// The now-playing view at car time `now`: item with its metadata, position moving from the
    /// anchor (no scrubber for a live item), status, speed, repeat and shuffle, the sleep timer,
    /// the volume, the custom actions, and the queue with the current entry marked.
    public static func nowPlaying(_ state: MediaChannelClient, now: Duration) -> [String] {
        var lines = [heading("Now playing")]
        let item = state.mediaItem?.item
        if let item {
            lines.append((item.title ?? item.id) + suffix(item.subtitle, separator: " · "))
            let byline = [item.artist, item.album].compactMap { $0 }.filter { !$0.isEmpty }
            if !byline.isEmpty { lines.append(byline.joined(separator: " — ")) }
            let details = metadataDetails(item)
            if !details.isEmpty { lines.append(details.joined(separator: " · ")) }
        } else {
            lines.append("(nothing loaded)")
        }
        let playback = state.playback?.state
        var position = state.positionMs(at: now).map(clock) ?? "-:--"
        if item?.isLive == true {
            position = "live"
        } else if let duration = item?.durationMs, duration > 0 {
            position += " / " + clock(duration)
        }
        var status = playback.map { "\($0.status)" } ?? "no state yet"
        if let message = playback?.errorMessage, !message.isEmpty { status += " (\(message))" }
        let repeatMode = playback?.repeatMode.map { "\($0)" } ?? "off"
        let shuffle = playback?.shuffle == true ? "on" : "off"
        // The anchor's rate is 0 unless playing; older servers send no speed.
        let speed = playback?.speed ?? playback?.position.flatMap { $0.rate > 0 ? $0.rate : nil } ?? 1
        lines.append("\(position) · \(status) · speed \(speedText(speed)) · repeat \(repeatMode) · shuffle \(shuffle)")
        if let sleep = state.sleepTimer {
            lines.append("sleep timer: " + sleepTimer(sleep.state, remainingMs: sleep.remainingMs(at: now)))
        }
        if let remote = state.remotePlayback { lines.append("volume: " + remoteVolume(remote.remote)) }
        if let actions = playback?.customActions, !actions.isEmpty {
            lines.append(
                "actions: "
                    + actions.enumerated().map { "\($0.offset + 1) \($0.element.label ?? $0.element.name) [\($0.element.name)]" }
                    .joined(separator: ", "))
        }
        let queue = state.queue?.items ?? []
        if queue.isEmpty {
            lines.append("queue: empty")
        } else {
            lines.append("queue:")
            let current = playback?.queueIndex.map(Int.init)
            for (index, entry) in queue.enumerated() {
                let mark = index == current ? ">" : " "
                lines.append("  \(mark)\(padded(index + 1, to: 3))  \(entry.title ?? entry.id)" + suffix(entry.artist, separator: " · "))
            }
        }
        return lines
    }

    /// The metadata beyond title, artist and album: album artist, genre, disc/track, year, live, extras.
    static func metadataDetails(_ item: DashportMedia.MediaItem) -> [String] {
        var details: [String] = []
        if let albumArtist = item.albumArtist, !albumArtist.isEmpty { details.append("album by \(albumArtist)") }
        if let genre = item.genre, !genre.isEmpty { details.append(genre) }
        switch (item.discNumber, item.trackNumber) {
        case (let disc?, let track?): details.append("disc \(disc) track \(track)")
        case (nil, let track?): details.append("track \(track)")
        case (let disc?, nil): details.append("disc \(disc)")
        case (nil, nil): break
        }
        if let year = item.year { details.append(String(year)) }
        if item.isLive == true { details.append("LIVE") }
        details += item.extras.map { "\($0.key): \($0.value)" }
        return details
    }

    /// 1×, 1.5×, 0.75×.
    static func speedText(_ speed: Double) -> String {
        guard speed.isFinite else { return "?" }
        let rounded = (speed * 100).rounded() / 100
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + "×"
    }

    /// A command's outcome: `label: accepted`, or rejected with the reason and message.
    public static func commandResult(_ label: String, _ result: DashportMedia.CommandResult) -> String {
        if result.accepted { return "\(label): accepted" }
        let reason = result.reason.map { "\($0)" } ?? "no reason given"
        return "\(label): rejected (\(reason))" + suffix(result.message, separator: ": ")
    }

    /// What a transport command does, in words, for its result line.
    public static func describe(_ command: DashportMedia.PlaybackCommand.Command) -> String {
        switch command {
        case .play: "play"
        case .pause: "pause"
        case .stop: "stop"
        case .seekToMs(let ms): "seek to \(clock(ms))"
        case .skipToNext: "next"
        case .skipToPrevious: "previous"
        case .skipToQueueItem(let index): "skip to queue entry \(Int(index) + 1)"
        case .setRate(let rate): "rate \(rate)"
        case .setRepeatMode(let mode): "repeat \(mode)"
        case .setShuffle(let on): "shuffle \(on ? "on" : "off")"
        case .jumpForward(let jump): "jump forward" + (jump.ms.map { " \($0) ms" } ?? "")
        case .jumpBack(let jump): "jump back" + (jump.ms.map { " \($0) ms" } ?? "")
        case .customAction(let action): "custom action \(action.name)"
        case .setSleepTimer(let timer):
            switch timer.until {
            case .durationMs(let ms): "sleep in \(clock(ms))"
            case .endOfTrack: "sleep at end of track"
            case nil: "sleep (no time)"
            }
        case .cancelSleepTimer: "cancel sleep timer"
        case .setDeviceVolume(let volume): "volume \(Int((volume * 100).rounded()))%"
        case .adjustDeviceVolume(let steps): "volume " + (steps > 0 ? "up" : "down") + (abs(steps) == 1 ? "" : " \(abs(steps)) steps")
        case .setDeviceMuted(let muted): muted ? "mute" : "unmute"
        }
    }

    /// An artwork answer: MIME type, size and byte count (and where it was saved), or the error.
    public static func artwork(key: String, result: DashportMedia.ArtworkResult, savedAs path: String?) -> String {
        switch result.outcome {
        case .image(let image):
            "art \(key): \(image.mimeType) \(image.width)×\(image.height), \(image.data.count) bytes" + suffix(path, separator: " → ")
        case .error(let error):
            "art \(key): error \(error.code)" + suffix(error.message)
        case nil:
            "art \(key): the answer carries no outcome"
        }
    }

    /// `m:ss`, or `h:mm:ss` from an hour; negative times read as 0.
    public static func clock(_ milliseconds: Int64) -> String {
        let total = max(0, milliseconds) / 1000
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        let ss = seconds < 10 ? "0\(seconds)" : "\(seconds)"
        guard hours > 0 else { return "\(minutes):\(ss)" }
        return "\(hours):" + (minutes < 10 ? "0\(minutes)" : "\(minutes)") + ":\(ss)"
    }

    static func heading(_ title: String) -> String { "== \(title) ==" }

    static func padded(_ number: Int, to width: Int) -> String {
        let text = String(number)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// " — text" (or another separator) when text is present and not empty.
    static func suffix(_ text: String?, separator: String = " — ") -> String {
        guard let text, !text.isEmpty else { return "" }
        return separator + text
    }
}
