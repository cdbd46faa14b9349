import DashportEmulator
public import DashportHTTP
import DashportLog
import DashportHeadUnit
import DashportMessages

/// The page's event streams: a snapshot when one opens, then every change as one named event.
extension WebCar {
    /// Adds an event stream: it gets the whole state at once, then every event.
    public func subscribe(_ stream: HTTPStream) {
        let id = ObjectIdentifier(stream)
        subscribers[id] = stream
        stream.whenClosed { [weak self] in Task { await self?.unsubscribe(id) } }
        for (name, data) in snapshot() { stream.write(ServerSentEvents.event(name, data: data.text)) }
    }

    func unsubscribe(_ id: ObjectIdentifier) {
        subscribers.removeValue(forKey: id)
    }

    /// Event streams open now.
    public var subscriberCount: Int { subscribers.count }

    /// Every event that describes the state now, in the order the page draws them.
    public func snapshot() -> [(String, WebJSON)] {
        var events: [(String, WebJSON)] = [("settings", settings.json), ("connection", connection.json)]
        if let hello { events.append(("hello", .hello(hello))) }
        if let tabs { events.append(("tabs", tabs)) }
        events += playerEvents()
        events.append(("recording", recorder.json))
        return events
    }

    /// Item, playback, queue, sleep timer and volume as the session last heard them.
    func playerEvents() -> [(String, WebJSON)] {
        guard let session else { return [] }
        let state = sessionState ?? MediaChannelClient()
        let now = session.client.now()
        let duration = state.mediaItem?.item?.durationMs
        return [
            ("item", .mediaItem(state.mediaItem?.item)),
            ("playback", .playback(state.playback, durationMs: duration, now: now)),
            ("queue", .queue(state.queue, index: state.playback?.state.queueIndex)),
            ("sleepTimer", .sleepTimer(state.sleepTimer, now: now)),
            ("volume", .volume(state.remotePlayback)),
        ]
    }

    func broadcast(_ name: String, _ data: WebJSON) {
        guard !subscribers.isEmpty else { return }
        let bytes = ServerSentEvents.event(name, data: data.text)
        for (id, stream) in subscribers {
            if stream.bufferedBytes > WebCar.subscriberLimit {
                logger.notice("an event stream does not read; closing it", ["peer": stream.peerDescription])
                stream.close()
                subscribers.removeValue(forKey: id)
            } else {
                stream.write(bytes)
            }
        }
    }

    /// A push or the hello, after the session's state took it in.
    func take(_ update: MediaChannelUpdate) async {
        guard let session else { return }
        sessionState = await session.state
        let state = sessionState ?? MediaChannelClient()
        let now = session.client.now()
        let duration = state.mediaItem?.item?.durationMs
        switch update {
        case .serverHello(let hello):
            self.hello = hello
            connection.state = .linked
            connection.reason = nil
            connection.attempt = 0
            broadcast("connection", connection.json)
            broadcast("hello", .hello(hello))
            await loadTabs()
        case .answer:
            break
        case .playbackState(let playback):
            broadcast("playback", .playback(state.playback, durationMs: duration, now: now))
            broadcast("queue", .queue(state.queue, index: playback.queueIndex))
        case .mediaItem(let item):
            broadcast("item", .mediaItem(item.item))
            broadcast("playback", .playback(state.playback, durationMs: duration, now: now))
        case .queue(let queue):
            broadcast("queue", .queue(queue, index: state.playback?.state.queueIndex))
        case .sessionError(let error):
            broadcast("sessionError", .sessionError(error))
        case .childrenChanged(let changed):
            broadcast("childrenChanged", .object(["parentId": .opt(changed.parentId)]))
            if changed.parentId == nil || changed.parentId == hello?.rootId { await loadTabs() }
        case .sleepTimer:
            broadcast("sleepTimer", .sleepTimer(state.sleepTimer, now: now))
        case .sleepTimerFired(let fired):
            broadcast("sleepTimerFired", .object(["atMs": .opt(fired.atMs)]))
        case .remotePlayback(let remote):
            broadcast("volume", .volume(remote))
        }
    }

    /// Asks for the root's children and sends them as the `tabs` event, cut to the car's tab cap.
    func loadTabs() async {
        guard let session, let hello else { return }
        let generation = self.generation
        let answer: MediaChannelAnswer
        do {
            answer = try await session.request(.getChildren(parentId: hello.rootId, page: nil, pageSize: nil))
        } catch {
            broadcast("problem", .object(["text": .string("cannot list the tabs: \(error)")]))
            return
        }
        guard generation == self.generation, case .browse(let result) = answer else { return }
        let cap = Int(settings.maxTabs ?? 4)
        var items: [WebJSON] = []
        var total = 0
        if case .items(let page) = result.outcome {
            total = page.items.count
            items = page.items.prefix(cap).map(WebJSON.item)
        }
        tabs = .object([
            "rootId": .string(hello.rootId), "items": .array(items), "cap": .int(Int64(cap)), "offered": .int(Int64(total)),
            "result": .browse(result),
        ])
        broadcast("tabs", tabs ?? .null)
    }
}
