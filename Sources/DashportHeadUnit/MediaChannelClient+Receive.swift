import DashportMessages

extension MediaChannelClient {
    /// Takes one message the server sent on the channel: an answer is matched to its request by
    /// id (and leaves ``inFlight``), a push replaces the latest state of its kind.
    ///
    /// - Throws: ``MediaChannelClientError`` for a body that does not decode, an answer nobody
    ///   asked for (or of the wrong kind), or an id the server never sends. State is unchanged then.
    public mutating func receive(messageId: UInt16, body: [UInt8], now: Duration) throws(MediaChannelClientError) -> MediaChannelUpdate {
        switch Int32(messageId) {
        case DashportMedia.MessageId.serverHello.rawValue:
            let hello = try decode(DashportMedia.ServerHello.self, messageId, body)
            serverHello = hello
            return .serverHello(hello)
        case DashportMedia.MessageId.browseResult.rawValue:
            let result = try decode(DashportMedia.BrowseResult.self, messageId, body)
            return .answer(try correlate(result.requestId, messageId), .browse(result))
        case DashportMedia.MessageId.commandResult.rawValue:
            let result = try decode(DashportMedia.CommandResult.self, messageId, body)
            return .answer(try correlate(result.requestId, messageId), .command(result))
        case DashportMedia.MessageId.artworkResult.rawValue:
            let result = try decode(DashportMedia.ArtworkResult.self, messageId, body)
            return .answer(try correlate(result.requestId, messageId), .artwork(result))
        case DashportMedia.MessageId.playbackState.rawValue:
            let state = try decode(DashportMedia.PlaybackState.self, messageId, body)
            playback = PlaybackSnapshot(state: state, receivedAt: now)
            return .playbackState(state)
        case DashportMedia.MessageId.mediaItemState.rawValue:
            let item = try decode(DashportMedia.MediaItemState.self, messageId, body)
            mediaItem = item
            return .mediaItem(item)
        case DashportMedia.MessageId.queueState.rawValue:
            let queue = try decode(DashportMedia.QueueState.self, messageId, body)
            self.queue = queue
            return .queue(queue)
        case DashportMedia.MessageId.sessionError.rawValue:
            let error = try decode(DashportMedia.SessionError.self, messageId, body)
            lastSessionError = error
            return .sessionError(error)
        case DashportMedia.MessageId.childrenChanged.rawValue:
            let changed = try decode(DashportMedia.ChildrenChanged.self, messageId, body)
            lastChildrenChanged = changed
            return .childrenChanged(changed)
        case DashportMedia.MessageId.sleepTimerState.rawValue:
            let state = try decode(DashportMedia.SleepTimerState.self, messageId, body)
            sleepTimer = SleepTimerSnapshot(state: state, receivedAt: now)
            return .sleepTimer(state)
        case DashportMedia.MessageId.sleepTimerFired.rawValue:
            return .sleepTimerFired(try decode(DashportMedia.SleepTimerFired.self, messageId, body))
        case DashportMedia.MessageId.remotePlaybackState.rawValue:
            let state = try decode(DashportMedia.RemotePlaybackState.self, messageId, body)
            remotePlayback = state
            return .remotePlayback(state)
        default:
            throw .unexpectedMessage(messageId: messageId)
        }
    }

    /// The position of the current item at car time `now` in ms, from the latest playback state's
    /// anchor, capped at the current item's duration; `nil` without a state or an anchor.
    public func positionMs(at now: Duration) -> Int64? {
        playback?.positionMs(at: now, durationMs: mediaItem?.item?.durationMs)
    }

    /// Removes and returns the request `requestId` answers, if `messageId` is the kind it expects.
    private mutating func correlate(_ requestId: UInt32, _ messageId: UInt16) throws(MediaChannelClientError) -> MediaChannelRequest {
        guard let request = inFlight[requestId] else {
            throw .unknownRequestId(messageId: messageId, requestId: requestId)
        }
        let expected = Self.wireID(request.kind.answerMessageId)
        guard expected == messageId else {
            throw .mismatchedAnswer(requestId: requestId, expected: expected, got: messageId)
        }
        inFlight[requestId] = nil
        return request
    }

    private func decode<M: WireMessage>(_ type: M.Type, _ messageId: UInt16, _ body: [UInt8]) throws(MediaChannelClientError) -> M {
        do {
            return try M(serializedBytes: body)
        } catch {
            throw .undecodable(messageId: messageId, error)
        }
    }
}
