import DashportHeadUnit
import DashportMessages

/// Settings of a ``BrowseShell``.
public struct BrowseShellOptions: Sendable, Hashable {
    /// GET_CHILDREN / SEARCH page size; `nil` lets the server choose.
    public var pageSize: UInt32?
    /// The box asked for in GET_ARTWORK (square); `nil` lets the server use the profile's size.
    public var artSize: UInt32?
    /// Where covers are saved (`--save-art`); `nil` saves nothing.
    public var saveArtDirectory: String?
    /// How long `expect` waits for its text.
    public var expectTimeout: Duration

    public init(pageSize: UInt32? = nil, artSize: UInt32? = nil, saveArtDirectory: String? = nil, expectTimeout: Duration = .seconds(5)) {
        self.pageSize = pageSize
        self.artSize = artSize
        self.saveArtDirectory = saveArtDirectory
        self.expectTimeout = expectTimeout
    }
}

/// Why a shell command or script stopped.
public enum BrowseShellError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A request got no answer, or the link closed.
    case session(MediaSessionError)
    /// An `expect` line did not see its text in time.
    case expectationFailed(text: String, line: Int?)

    public var description: String {
        switch self {
        case .session(let error): "\(error)"
        case .expectationFailed(let text, let line):
            (line.map { "line \($0): " } ?? "") + "expected \"\(text)\" in the output, but it did not show up"
        }
    }
}

/// The text-mode car screen of `dashport-hu browse`: lists the tabs, then runs commands (typed or
/// scripted) against a ``MediaChannelSession``, printing each screen to a ``Transcript``.
public actor BrowseShell {
    /// One list the user is looking at: a node's children or a search, and the page shown.
    struct Location: Sendable {
        enum Source: Sendable {
            case children(String)
            case search(String)
        }
        var source: Source
        var title: String
        var childStyle: DashportMedia.ChildStyle?
        var page: UInt32 = 0
        /// How many pages the list has, once an answer has told (the last page, or a full page and the total).
        var pageCount: Int?
    }

    public nonisolated let session: MediaChannelSession
    public nonisolated let transcript: Transcript
    public nonisolated let options: BrowseShellOptions
    /// Navigation, the tabs first; the last entry is on screen.
    var stack: [Location] = []
    /// The rows on screen, for `open <n>`, `play <n>`, `art <n>`.
    var rows: [DashportMedia.BrowseItem] = []

    public init(session: MediaChannelSession, transcript: Transcript, options: BrowseShellOptions = BrowseShellOptions()) {
        self.session = session
        self.transcript = transcript
        self.options = options
    }

    /// Waits for the server's hello, prints it and shows the tabs (the root's children).
    public func start() async throws(BrowseShellError) {
        let hello: DashportMedia.ServerHello
        do {
            hello = try await session.hello()
        } catch {
            throw .session(error)
        }
        stack = [Location(source: .children(hello.rootId), title: "Tabs")]
        try await show()
    }

    /// Runs a script's steps in order; the first failure (no answer, closed link, unmet `expect`)
    /// stops it. Returns normally at its end or at `quit`.
    public func run(_ script: EmulatorScript) async throws(BrowseShellError) {
        for step in script.steps {
            await transcript.print(["> " + step.text], searchable: false)
            do {
                guard try await execute(step.command) else { return }
            } catch .expectationFailed(let text, nil) {
                throw .expectationFailed(text: text, line: step.line)
            }
        }
    }

    /// Shows the current location: one request, the screen it answers with, rows remembered.
    /// `returnTo` is the page shown before a `page` command: an empty page past the end is not
    /// drawn ("there is no page 5"), and that page stays on screen.
    func show(returnTo: UInt32? = nil) async throws(BrowseShellError) {
        guard let location = stack.last else { return }
        let kind: MediaChannelRequestKind =
            switch location.source {
            case .children(let parent): .getChildren(parentId: parent, page: location.page, pageSize: options.pageSize)
            case .search(let query): .search(query: query, page: location.page, pageSize: options.pageSize)
            }
        guard case .browse(let result) = try await ask(kind) else { return }
        if case .items(let page) = result.outcome {
            if let count = Self.pageCount(page, asked: location.page) { stack[stack.count - 1].pageCount = count }
            if page.items.isEmpty, location.page > 0, let returnTo {
                stack[stack.count - 1].page = returnTo
                let count = stack[stack.count - 1].pageCount
                let pages = count.map { " (\(location.title) has \($0) \($0 == 1 ? "page" : "pages")" } ?? " (\(location.title)"
                let items = page.total.map { ", \($0) \($0 == 1 ? "item" : "items"))" } ?? ")"
                await transcript.print("! there is no page \(location.page + 1)" + pages + items)
                return
            }
            rows = page.items
        } else {
            rows = []
        }
        await transcript.print(ScreenRenderer.browse(title: location.title, result: result, childStyle: location.childStyle))
    }

    /// The list's page count, when `page` (the answer for 0-based page `asked`) tells it: the last
    /// page (no more after it), or a full page with the total (every page as long as this one).
    static func pageCount(_ page: DashportMedia.ItemPage, asked: UInt32) -> Int? {
        guard !page.items.isEmpty else { return nil }
        guard page.hasMore == true else { return Int(asked) + 1 }
        guard let total = page.total else { return nil }
        return (Int(total) + page.items.count - 1) / page.items.count
    }

    /// Sends a request and waits for its answer.
    func ask(_ kind: MediaChannelRequestKind) async throws(BrowseShellError) -> MediaChannelAnswer {
        do {
            return try await session.request(kind)
        } catch {
            throw .session(error)
        }
    }

    /// The row or item a reference names on screen: a row by number, or a row by id.
    func resolveOnScreen(_ reference: ItemReference) -> DashportMedia.BrowseItem? {
        switch reference {
        case .row(let number):
            return rows.indices.contains(number - 1) ? rows[number - 1] : nil
        case .id(let id):
            return rows.first { $0.id == id }
        }
    }

    /// The list on screen when `item` is one of its rows: the parent a play request carries, so
    /// the server queues the list the user is looking at. Nil for a search (its rows have no one
    /// parent) and for an item named by id that is not on screen.
    func shownParent(of item: DashportMedia.BrowseItem) -> String? {
        guard case .children(let parentId)? = stack.last?.source, rows.contains(where: { $0.id == item.id }) else { return nil }
        return parentId
    }

    /// A row on screen (for `art`, which also takes bare artwork keys).
    func resolve(_ reference: ItemReference) -> DashportMedia.BrowseItem? { resolveOnScreen(reference) }

    /// A reference as typed: `3`, `id:albums`.
    static func text(_ reference: ItemReference) -> String {
        switch reference {
        case .row(let number): "\(number)"
        case .id(let id): "id:\(id)"
        }
    }
}
