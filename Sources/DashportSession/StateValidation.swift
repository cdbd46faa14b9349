/// Why a broadcast was refused. A refused broadcast changes nothing on any channel.
public enum SessionStateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The position anchor's value is below 0.
    case negativePosition(Int64)
    /// The buffered position is below 0.
    case negativeBufferedPosition(Int64)
    /// The rate is NaN, infinite, negative or above ``PlaybackState/maxRate``.
    case invalidRate(Double)
    /// The queue index does not point into the queue (`count` entries).
    case queueIndexOutOfRange(index: Int, count: Int)
    /// A control is shown whose capability is not declared.
    case controlWithoutCapability(SessionCapability)
    /// Custom actions are listed without the `customAction` capability.
    case customActionsWithoutCapability
    /// A custom action has an empty name, or a name used twice.
    case invalidCustomAction(name: String)
    /// More custom actions than the limit.
    case tooManyCustomActions(count: Int, limit: Int)
    /// A media item (the current one when `index` is nil, else queue entry `index`) has an empty id.
    case emptyItemId(index: Int?)
    /// A media item's duration is below 0.
    case negativeDuration(id: String, durationMs: Int64)
    /// The queue is longer than the configured limit.
    case queueTooLong(count: Int, limit: Int)
    /// A text field is longer than its limit (in UTF-8 bytes).
    case textTooLong(field: String, bytes: Int, limit: Int)
    /// A media item carries more extras than ``SessionConfiguration/maxCustomActionExtras``.
    case tooManyExtras(id: String, count: Int)
    /// A remote playback declaration is out of range (volume outside 0…1, no steps).
    case invalidRemotePlayback(String)

    public var description: String {
        switch self {
        case .negativePosition(let ms): "position \(ms) ms is negative"
        case .negativeBufferedPosition(let ms): "buffered position \(ms) ms is negative"
        case .invalidRate(let rate): "rate \(rate) is not a finite number in 0…\(PlaybackState.maxRate)"
        case .queueIndexOutOfRange(let index, let count): "queue index \(index) is outside a queue of \(count)"
        case .controlWithoutCapability(let capability): "control \(capability.rawValue) is shown but not declared as a capability"
        case .customActionsWithoutCapability: "custom actions are listed without the customAction capability"
        case .invalidCustomAction(let name): "custom action name '\(name)' is empty or used twice"
        case .tooManyCustomActions(let count, let limit): "\(count) custom actions, more than \(limit)"
        case .emptyItemId(let index): index.map { "queue entry \($0 + 1) has an empty id" } ?? "the media item has an empty id"
        case .negativeDuration(let id, let ms): "item '\(id)' has a negative duration (\(ms) ms)"
        case .queueTooLong(let count, let limit): "queue of \(count) items is longer than \(limit)"
        case .textTooLong(let field, let bytes, let limit): "\(field) is \(bytes) bytes, more than \(limit)"
        case .tooManyExtras(let id, let count): "item '\(id)' has \(count) extras, more than allowed"
        case .invalidRemotePlayback(let why): "remote playback: \(why)"
        }
    }
}

/// The checks every broadcast passes before it changes anything.
///
/// Pure functions of the candidate channels and the configuration's caps; the first failure is
/// thrown, so a handler sees one clear reason at a time.
struct StateValidator {
    let configuration: SessionConfiguration

    /// Checks the three channels as they would be after a broadcast.
    func validate(_ snapshot: SessionSnapshot) throws(SessionStateError) {
        try validate(queue: snapshot.queue)
        try validate(state: snapshot.playbackState, queueCount: snapshot.queue.items.count)
        if let item = snapshot.mediaItem.item {
            try validate(item: item, index: nil)
        }
    }

    func validate(queue: QueueState) throws(SessionStateError) {
        guard queue.items.count <= configuration.maxQueueLength else {
            throw .queueTooLong(count: queue.items.count, limit: configuration.maxQueueLength)
        }
        try text(queue.title, "queue title")
        for (index, item) in queue.items.enumerated() {
            try validate(item: item, index: index)
        }
    }

    func validate(item: MediaItem, index: Int?) throws(SessionStateError) {
        guard !item.id.isEmpty else { throw .emptyItemId(index: index) }
        try text(item.id, "media id", limit: configuration.maxIdBytes)
        if let duration = item.durationMs, duration < 0 {
            throw .negativeDuration(id: item.id, durationMs: duration)
        }
        try text(item.title, "title")
        try text(item.subtitle, "subtitle")
        try text(item.artist, "artist")
        try text(item.album, "album")
        try text(item.artworkUri, "artwork URI")
        try text(item.albumArtist, "album artist")
        try text(item.genre, "genre")
        if let extras = item.extras {
            guard extras.count <= configuration.maxCustomActionExtras else { throw .tooManyExtras(id: item.id, count: extras.count) }
            for (key, value) in extras {
                try text(key, "extra key", limit: configuration.maxIdBytes)
                try text(value, "extra value")
            }
        }
    }

    func validate(state: PlaybackState, queueCount: Int) throws(SessionStateError) {
        guard state.position.valueMs >= 0 else { throw .negativePosition(state.position.valueMs) }
        let rate = state.position.rate
        guard rate.isFinite, rate >= 0, rate <= PlaybackState.maxRate else { throw .invalidRate(rate) }
        if let buffered = state.bufferedPositionMs, buffered < 0 { throw .negativeBufferedPosition(buffered) }
        if let index = state.queueIndex, !(0..<queueCount).contains(index) {
            throw .queueIndexOutOfRange(index: index, count: queueCount)
        }
        for control in state.controls.sorted() where !state.capabilities.contains(control) {
            throw .controlWithoutCapability(control)
        }
        try validate(customActions: state.customActions, declared: state.capabilities.contains(.customAction))
        try text(state.errorMessage, "error message")
    }

    private func validate(customActions: [CustomAction], declared: Bool) throws(SessionStateError) {
        guard !customActions.isEmpty else { return }
        guard declared else { throw .customActionsWithoutCapability }
        guard customActions.count <= configuration.maxCustomActions else {
            throw .tooManyCustomActions(count: customActions.count, limit: configuration.maxCustomActions)
        }
        var names: Set<String> = []
        for action in customActions {
            guard !action.name.isEmpty, names.insert(action.name).inserted else {
                throw .invalidCustomAction(name: action.name)
            }
            try text(action.name, "custom action name", limit: configuration.maxIdBytes)
            try text(action.label, "custom action label")
            try text(action.iconUri, "custom action icon URI")
        }
    }

    private func text(_ value: String?, _ field: String, limit: Int? = nil) throws(SessionStateError) {
        guard let value else { return }
        let limit = limit ?? configuration.maxTextBytes
        let bytes = value.utf8.count
        guard bytes <= limit else { throw .textTooLong(field: field, bytes: bytes, limit: limit) }
    }
}
