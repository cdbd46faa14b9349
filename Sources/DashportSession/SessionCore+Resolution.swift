import DashportBrowse
import DashportLog

/// "Play this": media ids, searches and the play button on an idle session, resolved through the
/// handler's browse trio into a ``PlayRequest`` (a queue and where to start).
extension SessionCore {
    /// Play with nothing queued: the persisted session (paused, then played), else the first
    /// playable item of the first tab (later tabs if the first has none), so a car's play button
    /// always starts something.
    func playSomething() async -> CommandResult {
        let session = broadcaster
        if store != nil, restoreLocked() == .restored, !snapshot.isIdle {
            logger.info("play with nothing queued: resuming the persisted session")
            return await deliver { try await self.handler.play(session: session) }
        }
        do {
            guard let item = try await firstPlayableItem() else {
                return .rejected(reason: SessionHandlerError.nothingToPlay.description)
            }
            logger.info("play with nothing queued: starting the first playable item", ["item": item.id])
            let request = try await playRequest(for: item)
            try await handler.playFromMediaId(request, session: session)
            return .accepted
        } catch {
            return .rejected(reason: Self.reason(for: error))
        }
    }

    /// Plays `id` from the list `parentId` (the one the car showed it in), else from a parent the
    /// core finds (``findParent(of:)``).
    func playFromMediaId(_ id: String, parentId: String? = nil) async -> CommandResult {
        guard !id.isEmpty, id.utf8.count <= configuration.maxIdBytes else {
            return .rejected(reason: "the media id is empty or longer than \(configuration.maxIdBytes) bytes")
        }
        if let parentId, parentId.utf8.count > configuration.maxIdBytes {
            return .rejected(reason: "the parent id is longer than \(configuration.maxIdBytes) bytes")
        }
        do {
            guard let item = try await handler.item(id: id) else {
                return .rejected(reason: "there is no item '\(id)'")
            }
            guard item.playable else { return .rejected(reason: "'\(item.title)' is not playable") }
            let request = try await playRequest(for: item, from: parentId)
            try await handler.playFromMediaId(request, session: broadcaster)
            return .accepted
        } catch {
            return .rejected(reason: Self.reason(for: error))
        }
    }

    /// Voice "play X": the first playable search result of the focused media type (or the first
    /// playable result). An empty query means "play something" and routes as `play`.
    func playFromSearch(query: String, focus: SearchFocus?) async -> CommandResult {
        guard handler.supportsSearch else {
            return .rejected(reason: BrowseError.Code.notSupported.rawValue + ": this library cannot be searched")
        }
        guard query.utf8.count <= configuration.maxTextBytes else {
            return .rejected(reason: "the query is longer than \(configuration.maxTextBytes) bytes")
        }
        if query.allSatisfy(\.isWhitespace) { return await route(.play) }
        do {
            let results = try await handler.search(query: query, page: 0, pageSize: configuration.resolutionPageSize)
            let playable = results.prefix(configuration.resolutionPageSize).filter(\.playable)
            let focused = focus.flatMap { focus in playable.first { $0.mediaType == focus.mediaType } }
            guard let choice = focused ?? playable.first else {
                return .rejected(reason: "nothing playable was found for '\(query)'")
            }
            let request = try await playRequest(for: choice)
            try await handler.playFromSearch(query: query, focus: focus, request: request, session: broadcaster)
            return .accepted
        } catch {
            return .rejected(reason: Self.reason(for: error))
        }
    }

    /// The queue for a playable item. A queue holds tracks, never containers: a playable container
    /// (an album, a playlist) plays its own playable leaves (its playable containers skipped), and
    /// is refused when it has none; a leaf plays with its sibling leaves (containers among the
    /// siblings skipped) from it, else alone.
    ///
    /// The siblings are those in `parentId`, the list the car played the leaf from, when the leaf is
    /// one of them; otherwise (no parent given, an empty or unknown id, a list the leaf is not in, a
    /// list that fails to load) those of the parent ``findParent(of:)`` finds.
    func playRequest(for item: BrowseItem, from parentId: String? = nil) async throws -> PlayRequest {
        if item.browsable {
            let children = try await listChildren(of: item.id).filter(\.isPlayableLeaf).map(MediaItem.init)
            guard !children.isEmpty else {
                throw SessionHandlerError.invalidArgument("'\(item.title)' has no tracks to play")
            }
            return PlayRequest(mediaId: item.id, queue: QueueState(items: children, title: item.title), startIndex: 0)
        }
        if let parentId, !parentId.isEmpty,
            let request = try? await siblingRequest(for: item, in: parentId)
        {
            return request
        }
        if let parentId = await findParent(of: item.id), let request = try await siblingRequest(for: item, in: parentId) {
            return request
        }
        return PlayRequest(mediaId: item.id, queue: QueueState(items: [MediaItem(item)]), startIndex: 0)
    }

    /// `item` with its sibling leaves in `parentId`, titled by the parent (the root has no title);
    /// nil when `item` is not among them.
    private func siblingRequest(for item: BrowseItem, in parentId: String) async throws -> PlayRequest? {
        let siblings = try await listChildren(of: parentId).filter(\.isPlayableLeaf).map(MediaItem.init)
        guard let index = siblings.firstIndex(where: { $0.id == item.id }) else { return nil }
        var title: String?
        if parentId != BrowseItem.rootId { title = try? await handler.item(id: parentId)?.title }
        return PlayRequest(mediaId: item.id, queue: QueueState(items: siblings, title: title), startIndex: index)
    }

    /// The list `id` appears in: the handler's answer, else a breadth-first walk from the root that
    /// opens at most ``SessionConfiguration/browseVisitLimit`` lists (a failing list is skipped).
    func findParent(of id: String) async -> String? {
        if let known = try? await handler.parentId(of: id) { return known }
        var pending = [BrowseItem.rootId]
        var opened: Set<String> = []
        while !pending.isEmpty, opened.count < configuration.browseVisitLimit {
            let parent = pending.removeFirst()
            guard opened.insert(parent).inserted, let children = try? await listChildren(of: parent) else { continue }
            if children.contains(where: { $0.id == id }) { return parent }
            pending += children.filter(\.browsable).map(\.id)
        }
        return nil
    }

    /// The first playable item found depth-first under the root's browsable children (the tabs).
    func firstPlayableItem() async throws -> BrowseItem? {
        let tabs = try await listChildren(of: BrowseItem.rootId).filter(\.browsable)
        var budget = configuration.browseVisitLimit
        for tab in tabs {
            if let found = await firstPlayable(under: tab.id, depth: 1, budget: &budget) { return found }
        }
        return nil
    }

    private func firstPlayable(under parentId: String, depth: Int, budget: inout Int) async -> BrowseItem? {
        guard budget > 0 else { return nil }
        budget -= 1
        guard let children = try? await listChildren(of: parentId) else { return nil }
        for child in children {
            if child.playable { return child }
            if child.browsable, depth < configuration.resumptionSearchDepth,
                let found = await firstPlayable(under: child.id, depth: depth + 1, budget: &budget)
            {
                return found
            }
        }
        return nil
    }

    /// A parent's children, page by page, at most ``SessionConfiguration/maxQueueLength`` of them.
    func listChildren(of parentId: String) async throws -> [BrowseItem] {
        let pageSize = configuration.resolutionPageSize
        var items: [BrowseItem] = []
        var page = 0
        while items.count < configuration.maxQueueLength {
            let children = try await handler.children(of: parentId, page: page, pageSize: pageSize)
            items += children.prefix(pageSize)
            if children.count < pageSize { break }
            page += 1
        }
        return Array(items.prefix(configuration.maxQueueLength))
    }
}
