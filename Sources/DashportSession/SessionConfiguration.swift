/// Tunables and size caps of the session core, each with a documented default.
///
/// Out-of-range values are clamped by the initializer (never trusted later), so a configuration
/// read from a file cannot make the core misbehave.
public struct SessionConfiguration: Sendable, Hashable {
    /// How far ``SessionCommand/jumpForward`` moves. Default 15 s; at least 1 ms.
    public let jumpForwardMs: Int64
    /// How far ``SessionCommand/jumpBack`` moves. Default 15 s; at least 1 ms.
    public let jumpBackMs: Int64
    /// How often a playing session is written to disk besides on every broadcast. Default 30 s;
    /// at least 1 s.
    public let checkpointIntervalMs: Int64
    /// The longest queue a broadcast may carry, and the most entries play-from-id queues. Default 1000.
    public let maxQueueLength: Int
    /// The longest sleep timer accepted. Default 24 h.
    public let maxSleepTimerMs: Int64
    /// Page size when the core lists a parent's children to build a queue or find a parent. Default 200.
    public let resolutionPageSize: Int
    /// How many lists the core opens at most to find an item's parent or the first playable item
    /// of the first tab. Default 64.
    public let browseVisitLimit: Int
    /// How deep below a tab the core looks for the first playable item. Default 3.
    public let resumptionSearchDepth: Int
    /// Updates kept for a subscriber that does not keep up (the oldest are dropped). Default 64; at least 8.
    public let subscriberBufferLimit: Int
    /// Most extras a custom action may carry. Default 32.
    public let maxCustomActionExtras: Int
    /// Most custom actions a playback state may list. Default 16.
    public let maxCustomActions: Int
    /// Longest id (media ids, custom action names) in UTF-8 bytes. Default 1024.
    public let maxIdBytes: Int
    /// Longest other text (titles, queries, messages, extras) in UTF-8 bytes. Default 4096.
    public let maxTextBytes: Int

    public init(
        jumpForwardMs: Int64 = 15_000,
        jumpBackMs: Int64 = 15_000,
        checkpointIntervalMs: Int64 = 30_000,
        maxQueueLength: Int = 1000,
        maxSleepTimerMs: Int64 = 24 * 3_600_000,
        resolutionPageSize: Int = 200,
        browseVisitLimit: Int = 64,
        resumptionSearchDepth: Int = 3,
        subscriberBufferLimit: Int = 64,
        maxCustomActionExtras: Int = 32,
        maxCustomActions: Int = 16,
        maxIdBytes: Int = 1024,
        maxTextBytes: Int = 4096
    ) {
        self.jumpForwardMs = max(1, jumpForwardMs)
        self.jumpBackMs = max(1, jumpBackMs)
        self.checkpointIntervalMs = max(1000, checkpointIntervalMs)
        self.maxQueueLength = max(1, maxQueueLength)
        self.maxSleepTimerMs = max(1, maxSleepTimerMs)
        self.resolutionPageSize = max(1, resolutionPageSize)
        self.browseVisitLimit = max(1, browseVisitLimit)
        self.resumptionSearchDepth = max(1, resumptionSearchDepth)
        self.subscriberBufferLimit = max(8, subscriberBufferLimit)
        self.maxCustomActionExtras = max(0, maxCustomActionExtras)
        self.maxCustomActions = max(0, maxCustomActions)
        self.maxIdBytes = max(1, maxIdBytes)
        self.maxTextBytes = max(1, maxTextBytes)
    }
}
