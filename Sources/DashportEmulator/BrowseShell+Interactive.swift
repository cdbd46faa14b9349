import DashportHeadUnit

/// What the interactive shell reads: typed lines, the end of its input, or the end of the link.
public enum ShellInput: Sendable, Hashable {
    case line(String)
    case endOfInput
    /// The link closed (the phone's bye-bye, a dropped connection): the shell stops at once.
    case linkClosed
    /// The server pushed children-changed for this parent (nil: everything): the open list is
    /// drawn again when it is that parent's, as a car's screen would refresh.
    case childrenChanged(String?)
}

extension BrowseShell {
    /// Runs typed commands until `quit`, the end of input or the end of the link. Mistakes and
    /// unanswered requests are printed as `!` lines and the session goes on. After the phone's
    /// bye-bye (or our own close) it returns normally; any other end of the link is thrown.
    /// `prompt` is called before each line is read (a terminal shows one; pipes and tests do not).
    public func interact(_ input: AsyncStream<ShellInput>, prompt: (@Sendable () -> Void)? = nil) async throws(BrowseShellError) {
        prompt?()
        for await event in input {
            let line: String
            switch event {
            case .line(let text): line = text
            case .endOfInput: return
            case .linkClosed: return try await linkEnded()
            case .childrenChanged(let parent):
                do {
                    try await redraw(ifShowing: parent)
                } catch .session(.closed) {
                    return try await linkEnded()
                } catch {
                    await transcript.print("! \(error)")
                }
                prompt?()
                continue
            }
            let command: EmulatorCommand
            do {
                guard let parsed = try EmulatorCommand.parse(line) else {
                    prompt?()
                    continue
                }
                command = parsed
            } catch {
                await transcript.print("! \(error)")
                prompt?()
                continue
            }
            do {
                guard try await execute(command) else { return }
            } catch .session(.closed) {
                return try await linkEnded()
            } catch {
                await transcript.print("! \(error)")
            }
            prompt?()
        }
    }

    /// Draws the open list again (same page) when `parent` is its parent, or nil (everything).
    /// A search is left alone: no push names it.
    func redraw(ifShowing parent: String?) async throws(BrowseShellError) {
        guard case .children(let shown)? = stack.last?.source, parent == nil || parent == shown else { return }
        await transcript.holdNotices()
        do {
            try await show()
        } catch {
            await transcript.releaseNotices()
            throw error
        }
        await transcript.releaseNotices()
    }

    private func linkEnded() async throws(BrowseShellError) {
        let reason = await session.disconnectReason ?? .peerClosed
        guard reason.isOrderly else { throw .session(.closed(reason)) }
    }
}
