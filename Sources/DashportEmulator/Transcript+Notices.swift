import DashportHeadUnit
import DashportMessages

extension Transcript {
    /// Prints every push of `session` as the emulator's screen shows it, until the session ends;
    /// `closed` runs when the link closes, `changed` on a children-changed push (its parent id,
    /// nil for everything: an interactive shell redraws the open list). The one loop behind `dashport-hu browse`, `record`
    /// and the tests that drive a shell, so all of them render pushes the same way (a push never
    /// cuts a screen being drawn: see ``printNotice(_:)``).
    @discardableResult
    public nonisolated func printNotices(
        of session: MediaChannelSession, stock: Bool = false, closed: @escaping @Sendable () -> Void = {},
        changed: @escaping @Sendable (String?) -> Void = { _ in }
    ) -> Task<Void, Never> {
        Task {
            for await notice in session.notices {
                if let lines = ScreenRenderer.notice(notice, stock: stock) { await self.printNotice(lines) }
                if case .closed = notice { closed() }
                if case .update(.childrenChanged(let push)) = notice { changed(push.parentId) }
            }
        }
    }
}
