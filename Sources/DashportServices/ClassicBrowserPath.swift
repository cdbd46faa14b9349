// Sources/DashportServices/ClassicBrowserPath.swift - the opaque paths of the AAP classic media browser.

import DashportBrowse

/// What a path of the AAP classic media browser (Service field 11) denotes, and how it is spelled.
///
/// AAP addresses browser nodes by opaque path strings the phone chooses (aap-protocol.md §4.3).
/// Ours carry the browse id itself, so a path turns back into an id without any server-side state
/// (a head unit may keep paths across reconnects):
///
/// | path               | node                 | answered with                                   |
/// |--------------------|----------------------|-------------------------------------------------|
/// | `/` (or empty)     | the root             | MEDIA_ROOT_NODE: the core's tabs as sources     |
/// | `/src/<id>`        | a tab                | MEDIA_SOURCE_NODE: a page of the tab's children |
/// | `/list/<id>`       | a browsable item     | MEDIA_LIST_NODE: a page of its children         |
/// | `/single/<id>`     | a playable-only item | MEDIA_LIST_NODE: a list of that one song        |
/// | `/song/<id>`       | a playable item      | MEDIA_SONG_NODE                                 |
///
/// `<id>` is the id's UTF-8 bytes percent-encoded: every byte except `A–Z a–z 0–9 - . _ ~` becomes
/// `%XX` (upper-case hex). The encoded id never contains `/`, `%00` stands for a NUL (the C layer
/// carries strings NUL-terminated), and parsing accepts lower-case hex and raw characters too.
///
/// The root path a head unit sends first is not documented anywhere (aap-protocol.md, open
/// question 3): `""` and `"/"` are the root; a path without one of the prefixes above is
/// ``ParseError/unrecognised`` and the service answers it with an empty list node.
public enum ClassicBrowserPath: Sendable, Hashable {
    case root
    case source(id: String)
    case list(id: String)
    case single(id: String)
    case song(id: String)

    /// Which node a path asks for, known from its prefix alone (before the id is decoded).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case root, source, list, single, song

        /// The prefix of paths of this kind (`/` for the root).
        var prefix: String {
            switch self {
            case .root: "/"
            case .source: "/src/"
            case .list: "/list/"
            case .single: "/single/"
            case .song: "/song/"
            }
        }

        /// The path of this kind naming `id` (the root names no id).
        func path(id: String) -> ClassicBrowserPath {
            switch self {
            case .root: .root
            case .source: .source(id: id)
            case .list: .list(id: id)
            case .single: .single(id: id)
            case .song: .song(id: id)
            }
        }
    }

    /// Why a path did not parse.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No known prefix: the service answers it with an empty list node.
        case unrecognised
        /// A known prefix, but the id is empty, has a stray `%`, is not UTF-8, or is too long.
        case badId(Kind, reason: String)

        public var description: String {
            switch self {
            case .unrecognised: "no known prefix"
            case .badId(let kind, let reason): "a \(kind.rawValue) path whose id \(reason)"
            }
        }
    }

    /// The longest path parsed, in UTF-8 bytes. Default 4096 (ids up to about 1300 bytes of
    /// non-ASCII text); longer ones are refused as ``ParseError/badId(_:reason:)``.
    public static let defaultMaxBytes = 4096

    public var kind: Kind {
        switch self {
        case .root: .root
        case .source: .source
        case .list: .list
        case .single: .single
        case .song: .song
        }
    }

    /// The browse id the path names (``BrowseItem/rootId`` for the root).
    public var id: String {
        switch self {
        case .root: BrowseItem.rootId
        case .source(let id), .list(let id), .single(let id), .song(let id): id
        }
    }

    /// The path string sent to the head unit.
    public var string: String {
        switch self {
        case .root: "/"
        default: kind.prefix + Self.encode(id)
        }
    }

    /// Parses a path a head unit sent. `""` and `"/"` are the root.
    public init(parsing path: String, maxBytes: Int = defaultMaxBytes) throws(ParseError) {
        if path.isEmpty || path == "/" {
            self = .root
            return
        }
        guard let kind = Kind.allCases.first(where: { $0 != .root && path.hasPrefix($0.prefix) }) else {
            throw .unrecognised
        }
        guard path.utf8.count <= maxBytes else {
            throw .badId(kind, reason: "makes the path longer than \(maxBytes) bytes")
        }
        let encoded = path.utf8.dropFirst(kind.prefix.utf8.count)
        guard let id = Self.decode(encoded) else { throw .badId(kind, reason: "is not valid percent-encoded UTF-8") }
        guard !id.isEmpty else { throw .badId(kind, reason: "is empty") }
        self = kind.path(id: id)
    }

    // MARK: - Percent encoding

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// `id`'s UTF-8 bytes, unreserved ones as they are and every other one as `%XX`.
    static func encode(_ id: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(id.utf8.count)
        for byte in id.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The id spelled by `encoded`, or nil when a `%` is not followed by two hex digits or the
    /// bytes are not UTF-8.
    static func decode(_ encoded: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            index = encoded.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != encoded.endIndex, let high = hexValue(encoded[index]) else { return nil }
            index = encoded.index(after: index)
            guard index != encoded.endIndex, let low = hexValue(encoded[index]) else { return nil }
            index = encoded.index(after: index)
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
