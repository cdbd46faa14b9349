// Sources/DashportBrowse/CatalogReader.swift - the catalog's JSON read strictly: every key known,
// every value of its kind, every error at a line and column.

/// Reads a catalog's JSON into a ``CatalogFile``. Unlike a `Decodable` pass, an unknown key
/// (`titel`) is an error (with the key it most likely meant), and a value of the wrong kind names
/// the key and what it wants (`'durationMs' wants a whole number of milliseconds`), both at the
/// line and column of the offending text.
struct CatalogReader {
    let bytes: [UInt8]
    let path: String

    /// The keys of each kind of object, the only ones accepted. `$schema` lets an editor find
    /// `Fixtures/catalog.schema.json`, and `note` (the catalog's and an item's) is a comment for
    /// whoever edits the file; both mean nothing to Dashport.
    static let documentKeys = ["$schema", "note", "format", "version", "title", "root", "items"]
    static let itemKeys = [
        "note", "id", "title", "subtitle", "artwork", "browsable", "playable", "childStyle", "group", "explicit", "completion",
        "mediaType", "artist", "album", "durationMs", "albumArtist", "genre", "trackNumber", "discNumber", "year", "live",
        "extras", "children", "error",
    ]
    static let childKeys = ["id", "group"]
    static let errorKeys = ["code", "message", "resolution"]
    static let resolutionKeys = ["label", "url"]

    /// An error at byte `offset`, for `item` (nil: the catalog as a whole).
    func refuse(_ problem: CatalogError.Problem, item: String?, at offset: Int) -> CatalogError {
        let place = JSONSyntaxLocator.locate(offset, in: bytes, reason: "")
        return CatalogError(file: path, item: item, problem: problem, line: place.line, column: place.column)
    }

    /// Reads the document, handing each item to `each` (with its index, and how many there are)
    /// in file order as it is read: the items are checked as JSON all at once (``JSONTree/outline(_:)``) but built one at
    /// a time, so no more than one item is ever a tree. What is refused is refused in the order a
    /// whole tree was judged in before: the JSON, the format, the document's keys, each item in
    /// turn, the title, the root.
    func read(each: (CatalogFile.Entry, Int, Int) throws(CatalogError) -> Void) throws(CatalogError) -> CatalogFile {
        let document: JSONNode
        let elements: [Int: [Int]]
        do {
            (document, elements) = try JSONTree.outline(bytes)
        } catch {
            throw invalidJSON(error)
        }
        guard case .object(let members) = document.value else {
            throw refuse(.unparseable("the file is \(document.kindText), not a catalog object"), item: nil, at: document.offset)
        }
        let top = Fields(reader: self, members: members, item: nil, elements: elements)
        // A file of another format is named as such before its keys are judged by this one's.
        let format = top.member("format")
        let version = top.member("version")
        let formatText: String? = if case .string(let text)? = format?.value.value { text } else { nil }
        let versionText: String? = if case .number(let text)? = version?.value.value { text } else { nil }
        guard formatText == "dashport.catalog", versionText == "1" else {
            let found =
                "format \(formatText.map { "'\($0)'" } ?? format.map { $0.value.kindText } ?? "missing"), "
                + "version \(versionText ?? version.map { $0.value.kindText } ?? "missing")"
            throw refuse(.unsupportedFormat(found), item: nil, at: (format ?? version)?.value.offset ?? document.offset)
        }
        try top.onlyKnownKeys(Self.documentKeys)
        _ = try top.string("$schema")
        _ = try top.string("note")
        let root = try top.required("root", at: document.offset)
        let items = try top.required("items", at: document.offset)
        let starts = try top.deferredList(items, key: "items", wants: "a list of items")
        for (index, start) in starts.enumerated() {
            try each(try entry(try node(at: start), index: index), index, starts.count)
        }
        return CatalogFile(
            format: formatText, version: 1, title: try top.string("title"),
            root: try childRefs(root, key: "root", parent: "root", deferred: elements),
            itemCount: starts.count)
    }

    /// The element the outline deferred at `offset`, built (checked already: a failure here is
    /// reported as the JSON's).
    func node(at offset: Int) throws(CatalogError) -> JSONNode {
        do {
            return try JSONTree.parse(bytes, at: offset)
        } catch {
            throw invalidJSON(error)
        }
    }

    /// Text that is not JSON, at the first place it goes wrong.
    private func invalidJSON(_ error: JSONTree.Failure) -> CatalogError {
        // The locator's wording is the one people have seen; the tree's covers what it does not check.
        let syntax = JSONSyntaxLocator.firstError(in: bytes)
        let place = syntax ?? JSONSyntaxLocator.locate(error.offset, in: bytes, reason: error.reason)
        return CatalogError(file: path, item: nil, problem: .invalidJSON(place.reason), line: place.line, column: place.column)
    }

    private func entry(_ node: JSONNode, index: Int) throws(CatalogError) -> CatalogFile.Entry {
        guard case .object(let members) = node.value else {
            throw refuse(.wrongType(key: "items[\(index)]", wants: "an item object", found: node.kindText), item: nil, at: node.offset)
        }
        // Named by its id when it has one that is a string, else by its place.
        var name = "items[\(index)]"
        if let id = members.first(where: { $0.key == "id" }), case .string(let text) = id.value.value, !text.isEmpty { name = text }
        let fields = Fields(reader: self, members: members, item: name)
        try fields.onlyKnownKeys(Self.itemKeys)
        var entry = CatalogFile.Entry(offset: node.offset)
        _ = try fields.string("note")
        entry.id = try fields.string("id")
        entry.title = try fields.string("title")
        entry.subtitle = try fields.string("subtitle")
        entry.artwork = try fields.string("artwork")
        entry.browsable = try fields.bool("browsable")
        entry.playable = try fields.bool("playable")
        entry.childStyle = try fields.choice("childStyle", BrowseItem.ChildStyle.self)
        entry.group = try fields.string("group")
        entry.explicit = try fields.bool("explicit")
        entry.completion = try fields.fraction("completion")
        entry.mediaType = try fields.choice("mediaType", BrowseItem.MediaType.self)
        entry.artist = try fields.string("artist")
        entry.album = try fields.string("album")
        entry.durationMs = try fields.integer("durationMs", Int64.self, wants: "a whole number of milliseconds")
        entry.albumArtist = try fields.string("albumArtist")
        entry.genre = try fields.string("genre")
        entry.trackNumber = try fields.integer("trackNumber", Int.self, wants: "a whole number")
        entry.discNumber = try fields.integer("discNumber", Int.self, wants: "a whole number")
        entry.year = try fields.integer("year", Int.self, wants: "a whole number")
        entry.live = try fields.bool("live")
        entry.extras = try fields.strings("extras")
        if let children = fields.member("children") { entry.children = try childRefs(children, key: "children", parent: name) }
        if let error = fields.member("error") { entry.error = try errorEntry(error.value, item: name) }
        return entry
    }

    /// The references of a `children` list (or of the `root`, whose elements the outline deferred:
    /// `deferred` holds them).
    private func childRefs(
        _ member: JSONNode.Member, key: String, parent: String, deferred: [Int: [Int]]? = nil
    ) throws(CatalogError) -> [CatalogFile.ChildRef] {
        let wants = "a list of ids (or { \"id\": …, \"group\": … })"
        let fields = Fields(reader: self, members: [], item: parent, elements: deferred ?? [:])
        var refs: [CatalogFile.ChildRef] = []
        let nodes: [JSONNode]
        if deferred != nil {
            var built: [JSONNode] = []
            for start in try fields.deferredList(member, key: key, wants: wants) { built.append(try node(at: start)) }
            nodes = built
        } else {
            nodes = try fields.list(member, key: key, wants: wants)
        }
        for node in nodes {
            switch node.value {
            case .string(let id):
                refs.append(CatalogFile.ChildRef(offset: node.offset, id: id))
            case .object(let members):
                let ref = Fields(reader: self, members: members, item: parent)
                try ref.onlyKnownKeys(Self.childKeys)
                guard let id = try ref.string("id") else { throw refuse(.missingKey("id"), item: parent, at: node.offset) }
                refs.append(CatalogFile.ChildRef(offset: node.offset, id: id, group: try ref.string("group")))
            default:
                throw refuse(.wrongType(key: key, wants: wants, found: "a list holding \(node.kindText)"), item: parent, at: node.offset)
            }
        }
        return refs
    }

    private func errorEntry(_ node: JSONNode, item: String) throws(CatalogError) -> CatalogFile.ErrorEntry {
        let fields = try Fields(reader: self, object: node, key: "error", wants: "an object with code, message, resolution", item: item)
        try fields.onlyKnownKeys(Self.errorKeys)
        var entry = CatalogFile.ErrorEntry(code: try fields.string("code"), message: try fields.string("message"))
        if let resolution = fields.member("resolution") {
            let button = try Fields(
                reader: self, object: resolution.value, key: "resolution", wants: "an object with label and url", item: item)
            try button.onlyKnownKeys(Self.resolutionKeys)
            entry.resolution = CatalogFile.ResolutionEntry(label: try button.string("label"), url: try button.string("url"))
        }
        return entry
    }
}
