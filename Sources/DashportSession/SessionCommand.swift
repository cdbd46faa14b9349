import DashportBrowse

/// What a voice "play X" is about, when the car says (Android's `EXTRA_MEDIA_FOCUS`).
public enum SearchFocus: String, Sendable, Hashable, Codable, CaseIterable {
    case artist, album, genre, playlist, song

    /// The browse media type that matches this focus best.
    var mediaType: BrowseItem.MediaType {
        switch self {
        case .artist: .artist
        case .album: .album
        case .genre: .genre
        case .playlist: .playlist
        case .song: .music
        }
    }
}

/// When a sleep timer pauses playback.
public enum SleepTimer: Sendable, Hashable, Codable {
    /// After `ms` milliseconds of clock time (not playback time). Must be finite, positive and at
    /// most ``SessionConfiguration/maxSleepTimerMs``.
    case duration(ms: Double)
    /// When the item playing at arming time ends: at its projected end (re-computed on every
    /// broadcast, so seeks, pauses and rate changes move it) or when another item starts.
    case endOfTrack
}

/// One command from a car (or from the phone itself), routed by ``SessionCore/perform(_:from:)``.
public enum SessionCommand: Sendable, Hashable {
    case play
    case pause
    /// Pause when playing or buffering, play otherwise (the one media key most cars have).
    case playPause
    case stop
    /// Seek to an absolute position; negative is refused, past the end is clamped to the duration.
    case seekTo(ms: Int64)
    /// Seek forward by ``SessionConfiguration/jumpForwardMs`` (delivered as an absolute seek).
    case jumpForward
    /// Seek back by ``SessionConfiguration/jumpBackMs`` (delivered as an absolute seek).
    case jumpBack
    case skipToNext
    case skipToPrevious
    case skipToQueueItem(Int)
    /// Playback speed; finite, above 0 and at most ``PlaybackState/maxRate``.
    case setRate(Double)
    case setRepeatMode(RepeatMode)
    case setShuffle(Bool)
    /// One of the state's ``CustomAction``s by name.
    case customAction(name: String, extras: [String: String])
    /// Play a browse item: its siblings become the queue (an item that is also browsable plays its
    /// own playable children). `parentId` is the list the car played it from, when it knows: the
    /// siblings are that list's, not those of the first parent a walk from the root finds (an item
    /// can be in several lists). Without it, or when the item is not in that list, the core looks
    /// for a parent itself.
    case playFromMediaId(String, parentId: String? = nil)
    /// Voice "play X": the best search result plays like ``playFromMediaId(_:)``. An empty query
    /// means "play something".
    case playFromSearch(query: String, focus: SearchFocus?)
    case setSleepTimer(SleepTimer)
    case cancelSleepTimer
    /// Remote playback, `absolute` control: set the device's volume (0…1, clamped).
    case setDeviceVolume(Double)
    /// Remote playback: volume steps up (positive) or down. `absolute`: delivered as a
    /// ``setDeviceVolume(_:)`` from the last published level; `relative`: as steps.
    case adjustDeviceVolume(steps: Int)
    /// Remote playback: mute or unmute the device.
    case setDeviceMuted(Bool)
    /// Remote playback: the mute key (resolved to ``setDeviceMuted(_:)`` with the opposite of now).
    case toggleDeviceMute

    /// The capability that must be declared for the command to be delivered (nil: always allowed).
    /// `playPause` is resolved to `play` or `pause` first; a sleep timer needs `pause`, which it uses.
    public var requiredCapability: SessionCapability? {
        switch self {
        case .play: .play
        case .pause: .pause
        case .playPause: nil
        case .stop: .stop
        case .seekTo: .seekTo
        case .jumpForward: .jumpForward
        case .jumpBack: .jumpBack
        case .skipToNext: .skipToNext
        case .skipToPrevious: .skipToPrevious
        case .skipToQueueItem: .skipToQueueItem
        case .setRate: .setRate
        case .setRepeatMode: .setRepeatMode
        case .setShuffle: .setShuffle
        case .customAction: .customAction
        case .playFromMediaId: .playFromMediaId
        case .playFromSearch: .playFromSearch
        case .setSleepTimer: .pause
        case .cancelSleepTimer: nil
        // Checked against the declared remote playback instead.
        case .setDeviceVolume, .adjustDeviceVolume, .setDeviceMuted, .toggleDeviceMute: nil
        }
    }

    /// A short name for logs (no user data).
    public var name: String {
        switch self {
        case .play: "play"
        case .pause: "pause"
        case .playPause: "playPause"
        case .stop: "stop"
        case .seekTo: "seekTo"
        case .jumpForward: "jumpForward"
        case .jumpBack: "jumpBack"
        case .skipToNext: "skipToNext"
        case .skipToPrevious: "skipToPrevious"
        case .skipToQueueItem: "skipToQueueItem"
        case .setRate: "setRate"
        case .setRepeatMode: "setRepeatMode"
        case .setShuffle: "setShuffle"
        case .customAction: "customAction"
        case .playFromMediaId: "playFromMediaId"
        case .playFromSearch: "playFromSearch"
        case .setSleepTimer: "setSleepTimer"
        case .cancelSleepTimer: "cancelSleepTimer"
        case .setDeviceVolume: "setDeviceVolume"
        case .adjustDeviceVolume: "adjustDeviceVolume"
        case .setDeviceMuted: "setDeviceMuted"
        case .toggleDeviceMute: "toggleDeviceMute"
        }
    }
}

/// Who sent a command (for logs and per-car diagnostics).
public enum CommandSource: Sendable, Hashable, CustomStringConvertible {
    /// A car speaking the Dashport media channel.
    case dashportCar(id: String)
    /// A media key on an AAP car's input channel.
    case aapKey(car: String)
    /// An AAP car's MEDIA_PLAYBACK_INPUT message.
    case aapPlaybackInput(car: String)
    /// An AAP car's audio focus: it took focus away (a call, its own radio) or gave it back.
    case aapAudioFocus(car: String)
    /// The phone itself: the sleep timer, tools, tests.
    case local

    public var description: String {
        switch self {
        case .dashportCar(let id): "dashport:\(id)"
        case .aapKey(let car): "aap-key:\(car)"
        case .aapPlaybackInput(let car): "aap-input:\(car)"
        case .aapAudioFocus(let car): "aap-focus:\(car)"
        case .local: "local"
        }
    }
}

/// The answer to a command.
public enum CommandResult: Sendable, Hashable {
    case accepted
    /// Not delivered, or the handler refused it; `reason` says why in words a log or a car can show.
    case rejected(reason: String)
}

/// How stock AAP cars express commands: media keys on the input channel, and MEDIA_PLAYBACK_INPUT.
extension SessionCommand {
    /// The media keys to ask for in KEY_BINDING_REQUEST (Android KEYCODE_* values): play/pause 85,
    /// stop 86, next 87, previous 88, rewind 89, fast forward 90, play 126, pause 127.
    public static let aapMediaKeyCodes: [Int32] = [85, 86, 87, 88, 89, 90, 126, 127]

    /// The volume keys (Android KEYCODE_VOLUME_UP 24, VOLUME_DOWN 25, VOLUME_MUTE 164), asked for
    /// only while remote playback is declared and only when the car lists them: bound to the phone
    /// they no longer reach the car's own amplifier.
    public static let aapVolumeKeyCodes: [Int32] = [24, 25, 164]

    /// The command for an Android key code from an AAP KeyEvent, or nil for keys that are not
    /// media keys. Call it for key-down events only (a press is a down and an up).
    ///
    /// 85 play/pause toggle, 86 stop, 87 next, 88 previous, 126 play, 127 pause (aap-protocol.md
    /// §4.5); 89 rewind and 90 fast forward become jump back / jump forward; 24 volume up, 25
    /// volume down and 164 mute drive a declared remote playback.
    public static func fromAAPKeyCode(_ keyCode: Int32) -> SessionCommand? {
        switch keyCode {
        case 85: .playPause
        case 86: .stop
        case 87: .skipToNext
        case 88: .skipToPrevious
        case 89: .jumpBack
        case 90: .jumpForward
        case 126: .play
        case 127: .pause
        case 24: .adjustDeviceVolume(steps: 1)
        case 25: .adjustDeviceVolume(steps: -1)
        case 164: .toggleDeviceMute
        default: nil
        }
    }

    /// The command for a MEDIA_PLAYBACK_INPUT (0x8002) action, or nil when it has none.
    ///
    /// The message's field 1 carries the instrument-cluster action values (UNKNOWN 0, UP 1, DOWN 2,
    /// LEFT 3, RIGHT 4, ENTER 5, BACK 6, CALL 7; aap-protocol.md §4.4, medium confidence). A cluster's
    /// left/right step through the queue and enter toggles play/pause; the others have no playback
    /// meaning.
    public static func fromAAPPlaybackInput(_ action: Int32) -> SessionCommand? {
        switch action {
        case 3: .skipToPrevious
        case 4: .skipToNext
        case 5: .playPause
        default: nil
        }
    }
}
