import DashportHeadUnit

/// What the interactive shell reads: typed lines, the end of its input, or the end of the link.
public enum ShellInput: Sendable, Hashable {
    case line(String)
    case endOfInput
    /// The link closed (the phone's bye-bye, a dropped connection): the shell stops at once.
    case linkClosed
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

    private func linkEnded() async throws(BrowseShellError) {
        let reason = await session.disconnectReason ?? .peerClosed
        guard reason.isOrderly else { throw .session(.closed(reason)) }
    }
}
