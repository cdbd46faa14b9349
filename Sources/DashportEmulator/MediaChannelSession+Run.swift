import DashportDigest
import DashportHeadUnit
import DashportLink
import DashportMessages

/// The session's loop over the client's events: media channel traffic into the client state and
/// waiters, the stock AAP channels decoded, everything else passed on as notices.
extension MediaChannelSession {
    func run() async {
        for await event in client.events {
            switch event {
            case .link(.message(let channel, let messageId, let body)):
                route(channel: channel, messageId: messageId, body: body)
            case .link(let event):
                if case .channelOpened(let service) = event, service.channel == channel { channelOpen = true }
                noticeSink.yield(.link(event))
            case .closed(let reason):
                finish(reason)
            }
        }
        if disconnect == nil { finish(.closedLocally) }
    }

    private func route(channel: UInt8, messageId: UInt16, body: [UInt8]) {
        if channel == self.channel {
            takeMediaMessage(messageId, body)
        } else if channel == inputChannel, Int32(messageId) == AAP.InputMessageId.keyBindingRequest.rawValue {
            answerKeyBinding(body)
        } else if channel == playbackStatusChannel {
            takePlaybackStatus(messageId, body)
        } else {
            noticeSink.yield(.link(.message(channel: channel, messageId: messageId, body: body)))
        }
    }

    private func takeMediaMessage(_ messageId: UInt16, _ body: [UInt8]) {
        let update: MediaChannelUpdate
        do {
            update = try media.receive(messageId: messageId, body: body, now: client.now())
        } catch {
            noticeSink.yield(.problem("\(LinkConfiguration.dashportMediaServiceName): \(error)"))
            return
        }
        switch update {
        case .answer(let request, let answer):
            if let waiter = answerWaiters.removeValue(forKey: request.requestId) {
                waiter.resume(returning: .success(answer))
            } else {
                earlyAnswers[request.requestId] = answer  // its requester is still returning from the send
            }
        case .serverHello(let hello):
            let waiters = helloWaiters
            helloWaiters = [:]
            for waiter in waiters.values { waiter.resume(returning: .success(hello)) }
            noticeSink.yield(.update(update))
        default:
            noticeSink.yield(.update(update))
        }
    }

    private func answerKeyBinding(_ body: [UInt8]) {
        let keycodes = (try? AAP.KeyBindingRequest(serializedBytes: body))?.keycodes ?? []
        noticeSink.yield(.keyBindingRequested(keycodes))
        guard let inputChannel else { return }
        let response = AAP.KeyBindingResponse(status: .success).serializedBytes()
        let id = UInt16(AAP.InputMessageId.keyBindingResponse.rawValue)
        Task { [client] in
            do {
                try await client.send(channel: inputChannel, messageId: id, body: response)
            } catch {
                // Only when the link is already closing; the close notice follows.
            }
        }
    }

    private func takePlaybackStatus(_ messageId: UInt16, _ body: [UInt8]) {
        switch Int32(messageId) {
        case AAP.MediaPlaybackStatusMessageId.status.rawValue:
            if let status = try? AAP.MediaPlaybackStatus(serializedBytes: body) {
                noticeSink.yield(.aapPlaybackStatus(status))
                return
            }
        case AAP.MediaPlaybackStatusMessageId.metadata.rawValue:
            if let metadata = try? AAP.MediaPlaybackMetadata(serializedBytes: body) {
                noticeSink.yield(.aapPlaybackMetadata(metadata))
                return
            }
        default:
            break
        }
        noticeSink.yield(.problem("playback status channel: message \(Hex.id(messageId)) of \(body.count) bytes not understood"))
    }

    private func finish(_ reason: HeadUnitDisconnect) {
        guard disconnect == nil else { return }
        disconnect = reason
        closedAt = client.now()
        let answers = answerWaiters
        let hellos = helloWaiters
        answerWaiters = [:]
        helloWaiters = [:]
        for waiter in answers.values { waiter.resume(returning: .failure(.closed(reason))) }
        for waiter in hellos.values { waiter.resume(returning: .failure(.closed(reason))) }
        noticeSink.yield(.closed(reason))
        noticeSink.finish()
    }

    func expireRequest(_ requestId: UInt32, after limit: Duration) {
        guard let waiter = answerWaiters.removeValue(forKey: requestId) else { return }
        let request = media.cancel(requestId: requestId)
        let what = request.map { "answer to \(describe($0.kind)) (request \(requestId))" } ?? "answer to request \(requestId)"
        waiter.resume(returning: .failure(.timedOut(what, limit)))
    }

    func expireHello(_ id: Int, after limit: Duration) {
        helloWaiters.removeValue(forKey: id)?.resume(returning: .failure(.timedOut("SERVER_HELLO", limit)))
    }

    private func describe(_ kind: MediaChannelRequestKind) -> String {
        switch kind {
        case .getChildren(let parentId, _, _): "GET_CHILDREN \(parentId)"
        case .getItem(let id): "GET_ITEM \(id)"
        case .search(let query, _, _): "SEARCH \"\(query)\""
        case .playFromMediaId(let id, let parentId): "PLAY_FROM_MEDIA_ID \(id)" + (parentId.map { " in \($0)" } ?? "")
        case .playFromSearch(let query, _): "PLAY_FROM_SEARCH \"\(query)\""
        case .playbackCommand: "PLAYBACK_COMMAND"
        case .getArtwork(let key, _, _): "GET_ARTWORK \(key)"
        }
    }
}
