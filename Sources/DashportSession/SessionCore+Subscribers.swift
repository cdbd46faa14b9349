extension SessionCore {
    /// One subscriber: a stream (``subscribe()``), or a handler called inside the session
    /// (``subscribe(started:_:)``).
    enum Subscriber {
        case stream(AsyncStream<SessionUpdate>.Continuation)
        case handler(@Sendable (SessionUpdate) -> Bool)
    }

    /// Subscribes a handler instead of a stream: the same updates, in the same order, starting
    /// with the same replay of the current state as ``subscribe()``, but handed to `deliver`
    /// inside the session as they happen, so the subscriber needs no task of its own to wait on a
    /// stream (a connected car's services post them into its bounded mailbox). `deliver` must
    /// not block; it returns false once it wants no more, and is then dropped. `started`, if
    /// given, is called first with the snapshot the replay describes. Returns the id for
    /// ``unsubscribe(_:)``. After ``close()`` nothing is delivered.
    public func subscribe(
        started: (@Sendable (SessionSnapshot) -> Void)? = nil, _ deliver: @escaping @Sendable (SessionUpdate) -> Bool
    ) -> UInt64 {
        let id = nextSubscriberId
        nextSubscriberId += 1
        guard !closed else { return id }
        started?(snapshot)
        var replay: [SessionUpdate] = [.queue(queue), .mediaItem(mediaItem), .playbackState(playbackState)]
        if let status = sleepTimerStatus { replay.append(.sleepTimer(status)) }
        if let remotePlayback { replay.append(.remotePlayback(remotePlayback)) }
        for update in replay where !deliver(update) { return id }
        subscribers[id] = .handler(deliver)
        return id
    }

    /// Ends a subscription (stream or handler); unknown ids are ignored.
    public func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// How many streams and handlers are subscribed (a test seam).
    public var subscriberCount: Int { subscribers.count }

    /// How many of them are handlers (a test seam).
    var handlerSubscriberCount: Int {
        subscribers.values.count { if case .handler = $0 { true } else { false } }
    }

    func emit(_ update: SessionUpdate) {
        var gone: [UInt64] = []
        for (id, subscriber) in subscribers {
            switch subscriber {
            case .stream(let continuation): continuation.yield(update)
            case .handler(let deliver): if !deliver(update) { gone.append(id) }
            }
        }
        for id in gone { subscribers[id] = nil }
    }
}
