// Sources/DashportBrowse/Catalog.swift - the JSON catalog format and what a bad catalog is refused with.

/// Why a catalog file was refused: which file, which item, what is wrong.
///
/// `item` is the item's id, or its position (`items[3]`) when it has no usable id, or `root`.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        case unreadable(String)
        case tooLarge(bytes: Int, limit: Int)
        /// Not JSON, or JSON of the wrong shape; the text says where.
        case unparseable(String)
        /// Not a `dashport.catalog` of version 1.
        case unsupportedFormat(String)
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
            case .unsupportedFormat(let found): "is not a dashport.catalog of version 1 (found \(found))"
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

    public init(file: String, item: String?, problem: Problem) {
        self.file = file
        self.item = item
        self.problem = problem
    }

    /// `/path/catalog.json: item 'album-x' refers to child 'track-9', which does not exist`
    public var description: String {
        guard let item else { return "\(file): the catalog \(problem)" }
        return "\(file): item '\(item)' \(problem)"
    }
}

/// The catalog file as JSON: a flat list of items, children by id.
///
/// ```json
/// { "format": "dashport.catalog", "version": 1, "title": "Demo library",
///   "root": ["tab-recent", "tab-albums"],
///   "items": [
///     { "id": "tab-albums", "title": "Albums", "browsable": true, "childStyle": "grid",
///       "children": ["album-x", { "id": "album-y", "group": "New" }] },
///     { "id": "album-x", "title": "X", "artwork": "covers/x.jpg", "browsable": true, "playable": true,
///       "children": ["x-1"] },
///     { "id": "x-1", "title": "One", "artist": "A", "durationMs": 200000, "playable": true } ] }
/// ```
///
/// `artwork` is a path relative to the catalog file (it must stay inside the catalog's folder and
/// exist), a `file://` URL of an existing file, or an `https://` URL. A child reference may set the
/// `group` (section header) the child has in that list. A playable item may also carry
/// `albumArtist`, `genre`, `trackNumber`, `discNumber`, `year`, `live` (a stream: no scrubber) and
/// `extras` (an object of strings). Unknown keys are ignored.
///
/// One extra has a meaning: `toneHz`, a decimal frequency (say `"440"` or `"293.66"`), is the pitch
/// the embedded demo player streams for the track (a sine, 200…2000 Hz; the demo library gives every
/// music track its own, at least 60 Hz from every other, so a test can tell which one a car heard).
/// A track without one plays a default tone derived from its id (see `DemoTonePlayer`).
///
/// A browsable item without children may carry an `error`: opening it shows that screen instead
/// of a list (a locked show, a region-blocked album), so a demo can put every error screen in
/// front of a car:
///
/// ```json
/// { "id": "locked-x", "title": "X", "browsable": true,
///   "error": { "code": "premiumAccountRequired", "message": "X is for Premium listeners.",
///              "resolution": { "label": "Upgrade", "url": "https://example.com/premium" } } }
/// ```
///
/// `code` is a ``BrowseError/Code``; `message` must not be blank; `resolution` is optional, and
/// when present needs a label and may have an `https://` url.
struct CatalogFile: Decodable {
    var format: String?
    var version: Int?
    var title: String?
    var root: [ChildRef]
    var items: [Entry]

    struct Entry: Decodable {
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
    struct ErrorEntry: Decodable {
        var code: String?
        var message: String?
        var resolution: ResolutionEntry?
    }

    struct ResolutionEntry: Decodable {
        var label: String?
        var url: String?
    }

    /// `"id"` or `{ "id": "…", "group": "…" }`.
    struct ChildRef: Decodable {
        var id: String
        var group: String?

        private enum Keys: String, CodingKey { case id, group }

        init(from decoder: any Decoder) throws {
            if let id = try? decoder.singleValueContainer().decode(String.self) {
                self.id = id
                self.group = nil
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            self.id = try container.decode(String.self, forKey: .id)
            self.group = try container.decodeIfPresent(String.self, forKey: .group)
        }
    }
}

/// A validated catalog, ready to serve: every list resolved to items once, at load.
struct Catalog: Sendable {
    var title: String
    var items: [String: BrowseItem]
    /// Parent id (the root included) → its children, groups applied.
    var children: [String: [BrowseItem]]
    /// Item id → the error opening it throws (items that carry an `error`).
    var errors: [String: BrowseError]
    /// Every item that is not a root entry, in file order, with what search looks at (folded),
    /// and the index that answers a search over them.
    var searchable: CatalogSearchIndex
}
