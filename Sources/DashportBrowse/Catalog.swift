// Sources/DashportBrowse/Catalog.swift - the JSON catalog format and what a bad catalog is refused with.

/// Why a catalog file was refused: which file, which item, what is wrong.
///
/// `item` is the item's id, or its position (`items[3]`) when it has no usable id, or `root`.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        case unreadable(String)
        case tooLarge(bytes: Int, limit: Int)
        /// JSON of the wrong shape (not an object at the top).
        case unparseable(String)
        /// Not JSON at all; the text says what is wrong at the error's line and column.
        case invalidJSON(String)
        /// Not a `dashport.catalog` of version 1.
        case unsupportedFormat(String)
        /// A key the format does not have (a typo, say `titel`), and the key it most likely meant.
        case unknownKey(String, suggestion: String?)
        /// A key whose value is of the wrong kind: which key, what it wants, what it found.
        case wrongType(key: String, wants: String, found: String)
        /// A key the format requires (`root`, `items`, a child reference's `id`).
        case missingKey(String)
        case tooManyItems(count: Int, limit: Int)
        case missingId
        case duplicateId
        case missingTitle
        case neitherBrowsableNorPlayable
        case badCompletion(Double)
        /// Lists children but is not browsable.
        case childrenOnNonBrowsable
        /// A child (or root) reference to an id no item has.
        case missingChild(String)
        /// The item contains itself; the path goes from the item back to it.
        case cycle([String])
        case badArtwork(String)
        /// An `error` whose code is not one of ``BrowseError/Code`` (nil: no code at all).
        case unknownErrorCode(String?)
        /// An `error` whose message is missing or blank.
        case emptyErrorMessage
        /// An `error` resolution whose label is missing or blank.
        case emptyResolutionLabel
        /// An `error` resolution whose url is not an `https://` URL with a host.
        case badResolutionUrl(String)
        /// Has an `error` but is not browsable: only opening an item shows its error.
        case errorOnNonBrowsable
        /// Has an `error` and lists children, which no car would ever see.
        case childrenOnErrorItem

        public var description: String {
            switch self {
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .tooLarge(let bytes, let limit): "is \(bytes) bytes, over the limit of \(limit)"
            case .unparseable(let reason): "is not a valid catalog: \(reason)"
            case .invalidJSON(let reason): "is not valid JSON: \(reason)"
            case .unsupportedFormat(let found): "is not a dashport.catalog of version 1 (found \(found))"
            case .unknownKey(let key, let suggestion):
                "has an unknown key '\(key)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
            case .wrongType(let key, let wants, let found): "has '\(key)' as \(found), but it wants \(wants)"
            case .missingKey(let key): "has no '\(key)', which is required"
            case .tooManyItems(let count, let limit): "has \(count) items, over the limit of \(limit)"
            case .missingId: "has no id"
            case .duplicateId: "uses an id another item already has"
            case .missingTitle: "has no title"
            case .neitherBrowsableNorPlayable: "is neither browsable nor playable"
            case .badCompletion(let value): "has completion \(value), outside 0…1"
            case .childrenOnNonBrowsable: "lists children but is not browsable"
            case .missingChild(let id): "refers to child '\(id)', which does not exist"
            case .cycle(let path): "contains itself: \(path.joined(separator: " → "))"
            case .badArtwork(let reason): "has bad artwork: \(reason)"
            case .unknownErrorCode(let code):
                "has an error \(code.map { "code '\($0)'" } ?? "without a code"), not one of "
                    + BrowseError.Code.allCases.map(\.rawValue).joined(separator: ", ")
            case .emptyErrorMessage: "has an error with an empty message"
            case .emptyResolutionLabel: "has an error resolution with an empty label"
            case .badResolutionUrl(let url): "has an error resolution url '\(url)' that is not a valid https URL"
            case .errorOnNonBrowsable: "has an error but is not browsable (only opening an item shows its error)"
            case .childrenOnErrorItem: "has an error and lists children (opening it shows the error, never the children)"
            }
        }
    }

    /// The catalog file's path.
    public var file: String
    public var item: String?
    public var problem: Problem
    /// Where in the file (1-based line and column, in characters), when the problem is at a place.
    public var line: Int?
    public var column: Int?

    public init(file: String, item: String?, problem: Problem, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.item = item
        self.problem = problem
        self.line = line
        self.column = column
    }

    /// `/path/catalog.json:12:7: item 'album-x' refers to child 'track-9', which does not exist`
    /// (without `:line:column` when the problem has no one place, a cycle or an unreadable file).
    public var description: String {
        var place = file
        if let line, let column { place += ":\(line):\(column)" }
        guard let item else { return "\(place): the catalog \(problem)" }
        return "\(place): item '\(item)' \(problem)"
    }
}

/// The catalog file as written: a flat list of items, children by id, each part with the byte
/// offset it starts at (for errors that say line and column). ``CatalogReader`` makes it from the
/// JSON, refusing unknown keys and values of the wrong type, and hands over each ``Entry`` as it
/// is read; ``CatalogLoader`` checks the rest and keeps only what it stores.
/// The format is documented in the DocC article "The catalog format" (`CatalogFormat.md`) and
/// described by `Fixtures/catalog.schema.json`.
struct CatalogFile {
    var format: String?
    var version: Int?
    var title: String?
    var root: [ChildRef]
    /// How many items the file has (each was handed to the loader as it was read).
    var itemCount: Int

    struct Entry {
        var offset: Int
        var id: String?
        var title: String?
        var subtitle: String?
        var artwork: String?
        var browsable: Bool?
        var playable: Bool?
        var childStyle: BrowseItem.ChildStyle?
        var group: String?
        var explicit: Bool?
        var completion: Double?
        var mediaType: BrowseItem.MediaType?
        var artist: String?
        var album: String?
        var durationMs: Int64?
        var albumArtist: String?
        var genre: String?
        var trackNumber: Int?
        var discNumber: Int?
        var year: Int?
        var live: Bool?
        var extras: [String: String]?
        var children: [ChildRef]?
        var error: ErrorEntry?
    }

    /// An item's error screen, as written; checked and turned into a ``BrowseError`` at load.
    struct ErrorEntry {
        var code: String?
        var message: String?
        var resolution: ResolutionEntry?
    }

    struct ResolutionEntry {
        var label: String?
        var url: String?
    }

    /// `"id"` or `{ "id": "…", "group": "…" }`.
    struct ChildRef {
        var offset: Int
        var id: String
        var group: String?
    }
}

/// A validated catalog, ready to serve: every item stored compactly (``CatalogStore``), every list
/// resolved to positions once, at load.
struct Catalog: Sendable {
    var title: String
    var store: CatalogStore
    /// Every item that is not a root entry, in file order, with what search looks at (folded),
    /// and the index that answers a search over them.
    var searchable: CatalogSearchIndex
    /// The store position of each item `searchable` names, by its position there.
    var searchPositions: [UInt32]
}
