import DashportHeadUnit
import DashportMessages

extension BrowseShell {
    /// Runs one command and prints what it shows; `false` after `quit`. Problems the user can fix
    /// (no such row, not browsable) are printed as `!` lines, not thrown. While a command draws its
    /// screen, pushes printed with ``Transcript/printNotice(_:)`` wait and follow the screen
    /// (`wait` and `expect` let them through).
    public func execute(_ command: EmulatorCommand) async throws(BrowseShellError) -> Bool {
        switch command {
        case .wait, .expect, .help, .quit:
            return try await perform(command)
        default:
            await transcript.holdNotices()
            do {
                let result = try await perform(command)
                await transcript.releaseNotices()
                return result
            } catch {
                await transcript.releaseNotices()
                throw error
            }
        }
    }

    private func perform(_ command: EmulatorCommand) async throws(BrowseShellError) -> Bool {
        switch command {
        case .open(let reference):
            guard let item = await lookUp(reference) else { return await missingItem(reference) }
            guard item.browsable else {
                await transcript.print("! \(item.title) cannot be opened (not browsable)")
                return true
            }
            stack.append(Location(source: .children(item.id), title: item.title, childStyle: item.childStyle))
            try await show()
        case .back:
            guard stack.count > 1 else {
                await transcript.print("! already at the tabs")
                return true
            }
            stack.removeLast()
            try await show()
        case .page(let page):
            guard !stack.isEmpty else { return true }
            let shown = stack[stack.count - 1].page
            stack[stack.count - 1].page = UInt32(clamping: page - 1)
            try await show(returnTo: shown)
        case .search(let query):
            stack.append(Location(source: .search(query), title: "Search: \(query)"))
            try await show()
        case .playItem(let reference):
            guard let item = await lookUp(reference) else { return await missingItem(reference) }
            guard item.playable else {
                await transcript.print("! \(item.title) cannot be played (not playable)")
                return true
            }
            try await sendCommand(.playFromMediaId(item.id, parentId: shownParent(of: item)), label: "play \(item.title)")
        case .playFromSearch(let query):
            try await sendCommand(.playFromSearch(query: query, focus: nil), label: "play from search \"\(query)\"")
        case .artwork(let reference):
            try await artwork(reference)
        case .nowPlaying:
            let state = await session.state
            // After the link closed the position stands where it was (nothing plays any more).
            let now = await session.closedAt ?? session.client.now()
            var lines = ScreenRenderer.nowPlaying(state, now: now)
            if await session.closedAt != nil { lines.insert("(link closed; the last state heard)", at: 1) }
            let toneHz = AudioSnapshot.toneHz(of: state.mediaItem?.item)
            if let audio = await session.client.audioSnapshot(expectedToneHz: toneHz) { lines += ScreenRenderer.audio(audio) }
            await transcript.print(lines)
        case .customAction(let reference, let extras):
            let actions = await session.state.playback?.state.customActions ?? []
            var name = reference
            if let number = Int(reference) {
                guard actions.indices.contains(number - 1) else {
                    await transcript.print("! no custom action \(number) (\(actions.count) shown in np)")
                    return true
                }
                name = actions[number - 1].name
            }
            let action = DashportMedia.CustomAction(
                name: name, extras: extras.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: .stringValue($0.value)) })
            try await sendCommand(.playbackCommand(.customAction(action)), label: "action \(name)")
        case .transport(let transport):
            try await sendCommand(.playbackCommand(transport), label: ScreenRenderer.describe(transport))
        case .key(let keycode):
            do {
                try await session.pressKey(keycode)
            } catch {
                throw .session(error)
            }
            await transcript.print("key \(keycode): pressed and released")
        case .wait(let milliseconds):
            try? await session.client.clock.sleep(for: .milliseconds(milliseconds))
        case .expect(let text):
            guard await transcript.expect(text, within: options.expectTimeout) else {
                throw .expectationFailed(text: text, line: nil)
            }
        case .help:
            await transcript.print(EmulatorCommand.helpText)
        case .quit:
            return false
        }
        return true
    }

    private func sendCommand(_ kind: MediaChannelRequestKind, label: String) async throws(BrowseShellError) {
        guard case .command(let result) = try await ask(kind) else { return }
        await transcript.print(ScreenRenderer.commandResult(label, result))
    }

    private func artwork(_ reference: ItemReference) async throws(BrowseShellError) {
        let key: String
        switch reference {
        case .row:
            guard let item = resolve(reference) else {
                _ = await missing(reference)
                return
            }
            guard let artworkKey = item.artworkKey else {
                await transcript.print("! \(item.title) has no artwork")
                return
            }
            key = artworkKey
        case .id(let text):
            // An item on screen by id, or else the text is an artwork key itself.
            key = rows.first { $0.id == text }?.artworkKey ?? text
        }
        let size = options.artSize
        guard case .artwork(let result) = try await ask(.getArtwork(key: key, width: size, height: size)) else { return }
        var saved: String?
        if case .image(let image) = result.outcome, let directory = options.saveArtDirectory {
            do {
                saved = try ArtworkFiles.save(image, key: key, directory: directory)
            } catch {
                await transcript.print("! \(error)")
            }
        }
        await transcript.print(ScreenRenderer.artwork(key: key, result: result, savedAs: saved))
    }

    /// The item a reference names: a row on screen, an id on screen, or else the server's GET_ITEM
    /// answer for the id (so a list opened by id is titled with the item's title).
    func lookUp(_ reference: ItemReference) async -> DashportMedia.BrowseItem? {
        if let item = resolveOnScreen(reference) { return item }
        guard case .id(let id) = reference,
            case .browse(let result)? = try? await ask(.getItem(id: id)),
            case .items(let page) = result.outcome
        else { return nil }
        return page.items.first { $0.id == id }
    }

    private func missingItem(_ reference: ItemReference) async -> Bool {
        guard case .id(let id) = reference else { return await missing(reference) }
        await transcript.print("! no item \(id) (not on screen, and the server does not know it)")
        return true
    }

    private func missing(_ reference: ItemReference) async -> Bool {
        await transcript.print("! no row \(Self.text(reference)) on screen (\(rows.count) \(rows.count == 1 ? "row" : "rows"))")
        return true
    }
}
