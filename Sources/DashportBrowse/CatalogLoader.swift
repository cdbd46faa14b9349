// Sources/DashportBrowse/CatalogLoader.swift - reads a catalog file and refuses it unless all of it is sound.

import CDashportLinux
import DashportFiles
import FoundationEssentials
import Glibc
// `String._nfd` (the standard library's canonical decomposition, behind this SPI) for `fold`:
// nothing public decomposes a string, and Foundation's `folding` would bring ICU.
@_spi(_Unicode) import Swift

/// Loads and validates a catalog: the first problem found is thrown, naming file, item and problem.
enum CatalogLoader {
    /// The largest catalog file read. 16 MiB is far beyond a hand-written library.
    static let maxFileBytes = 16 * 1024 * 1024
    /// The most items a catalog may have.
    static let maxItems = 100_000

    static func load(path: String) throws(CatalogError) -> Catalog {
        let catalog = try parse(read(path), path: path)
        // Loading freed as much as it keeps (the file, each item's tree, the builders' tables);
        // malloc would hold those pages for the process's life. A load is rare and off the reactor.
        _ = cdashport_release_free_memory()
        return catalog
    }

    /// The file's bytes, or why it cannot be read in words a person acts on (a directory, a missing
    /// file, no permission), never an error number. A symbolic link to the file is followed; a
    /// FIFO, socket or device is refused rather than read.
    static func read(_ path: String) throws(CatalogError) -> [UInt8] {
        func refuse(_ reason: String) -> CatalogError { CatalogError(file: path, item: nil, problem: .unreadable(reason)) }
        guard let status = Files.status(path) else { throw refuse("no such file") }
        if status.isDirectory {
            let inside = (path.hasSuffix("/") ? path : path + "/") + "catalog.json"
            let hint = Files.status(inside) != nil ? " (did you mean \(inside)?)" : ""
            throw refuse("it is a directory, not a catalog file\(hint)")
        }
        do {
            return try Files.read(path, limit: maxFileBytes, followingLinks: true)
        } catch {
            if case .tooLarge(let bytes, let limit) = error.cause {
                throw CatalogError(file: path, item: nil, problem: .tooLarge(bytes: bytes, limit: limit))
            }
            throw refuse(error.causeText)
        }
    }

    /// Reads, validates and stores a catalog in one pass over its items: each is validated and
    /// stored as it is read (the first problem kept, and thrown once reading is over, since what
    /// the reader refuses comes first), then the references are resolved, cycles looked for, and
    /// the search index built from the store.
    static func parse(_ bytes: [UInt8], path: String) throws(CatalogError) -> Catalog {
        let reader = CatalogReader(bytes: bytes, path: path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        var builder = CatalogStore.Builder()
        var problem: CatalogError?
        let file = try reader.read { entry, index, count in
            if index == 0 { builder.reserve(min(count, maxItems)) }
            // Past the limit or a problem, items are only read (a reader's refusal still comes first).
            guard problem == nil, index < maxItems else { return }
            do throws(CatalogError) {
                let (item, error) = try validate(entry, at: index, folder: folder, reader: reader)
                guard builder.add(item, error: error, children: entry.children) else {
                    throw reader.refuse(.duplicateId, item: item.id, at: entry.offset)
                }
            } catch {
                problem = error
            }
        }
        guard file.itemCount <= maxItems else {
            throw CatalogError(file: path, item: nil, problem: .tooManyItems(count: file.itemCount, limit: maxItems))
        }
        if let problem { throw problem }
        try builder.resolve(root: file.root, reader: reader)
        try builder.checkCycles(path: path)
        let store = builder.build()
        let (searchable, positions) = searchIndex(of: store)
        return Catalog(title: file.title ?? "Library", store: store, searchable: searchable, searchPositions: positions)
    }

    /// The search index over every item that is not a root entry, in file order, and the store
    /// position of each: title, artist and album folded, a shared artist or album folded and
    /// written once.
    private static func searchIndex(of store: CatalogStore) -> (CatalogSearchIndex, [UInt32]) {
        var isRootEntry = [Bool](repeating: false, count: store.count)
        for k in store.children(of: BrowseItem.rootId) { isRootEntry[store.childPosition(k)] = true }
        var builder = CatalogSearchIndex.Builder()
        var shared = [(String, CatalogSearchIndex.Builder.Field)?](repeating: nil, count: store.stringCount)
        var positions: [UInt32] = []
        positions.reserveCapacity(store.count)
        var fields: [(String, CatalogSearchIndex.Builder.Field)] = []
        for position in 0..<store.count where !isRootEntry[position] {
            let (title, artist, album) = store.searchedFields(of: position)
            fields.removeAll(keepingCapacity: true)
            let folded = fold(title)
            fields.append((folded, builder.field(folded)))
            for ref in [artist, album] where ref != 0 {
                if let written = shared[Int(ref)] {
                    fields.append(written)
                } else {
                    let folded = fold(store.string(ref))
                    let written = (folded, builder.field(folded, shared: true))
                    shared[Int(ref)] = written
                    fields.append(written)
                }
            }
            builder.add(fields)
            positions.append(UInt32(position))
        }
        return (builder.build(), positions)
    }

    /// Case- and diacritic-insensitive form for search: canonically decomposed (the standard
    /// library's NFD), without the marks of the Combining Diacritical Marks blocks (é → e, ö → o,
    /// ắ → a; Hebrew points, Arabic harakat, Indic signs and kana voicing marks are letters' parts
    /// and stay), then case-folded by upper- then lowercasing (ß → ss, ﬁ → fi, ς → σ). This is
    /// what Foundation's `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)`
    /// gives, up to canonical equivalence (which `String` comparison ignores anyway), without
    /// mapping Foundation's ICU into the server (issue 10, item 6).
    static func fold(_ text: String) -> String {
        // ASCII decomposes to itself and has no marks: folding it is lowercasing it.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? text.lowercased() : text
        }
        var kept = String.UnicodeScalarView()
        for scalar in text._nfd {
            switch scalar.value {
            case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: continue
            default: kept.append(scalar)
            }
        }
        return String(kept).uppercased().lowercased()
    }

    /// The item an entry describes, and the error opening it shows (if it carries one).
    private static func validate(
        _ entry: CatalogFile.Entry, at index: Int, folder: String, reader: CatalogReader
    ) throws(CatalogError) -> (BrowseItem, BrowseError?) {
        guard let id = entry.id, !id.isEmpty else {
            throw reader.refuse(.missingId, item: "items[\(index)]", at: entry.offset)
        }
        func refuse(_ problem: CatalogError.Problem) -> CatalogError { reader.refuse(problem, item: id, at: entry.offset) }
        guard id != BrowseItem.rootId else { throw refuse(.duplicateId) }
        guard let title = entry.title, !title.allSatisfy(\.isWhitespace) else { throw refuse(.missingTitle) }
        let browsable = entry.browsable ?? false
        let playable = entry.playable ?? false
        guard browsable || playable else { throw refuse(.neitherBrowsableNorPlayable) }
        if let completion = entry.completion, !(0...1).contains(completion) { throw refuse(.badCompletion(completion)) }
        if entry.children != nil, !browsable { throw refuse(.childrenOnNonBrowsable) }
        var screen: BrowseError?
        if let error = entry.error {
            guard browsable else { throw refuse(.errorOnNonBrowsable) }
            guard entry.children == nil else { throw refuse(.childrenOnErrorItem) }
            screen = try errorScreen(error, item: id, refuse: refuse)
        }
        var artworkUri: String?
        if let artwork = entry.artwork {
            do throws(ArtworkProblem) {
                artworkUri = try resolveArtwork(artwork, folder: folder)
            } catch {
                throw refuse(.badArtwork(error.reason))
            }
        }
        let item = BrowseItem(
            id: id, title: title, subtitle: entry.subtitle, artworkUri: artworkUri,
            browsable: browsable, playable: playable, childStyle: entry.childStyle, group: entry.group,
            explicit: entry.explicit, completion: entry.completion, mediaType: entry.mediaType,
            artist: entry.artist, album: entry.album, durationMs: entry.durationMs, metadata: metadata(of: entry))
        return (item, screen)
    }

    /// The extra playback metadata an entry carries, or nil when it carries none.
    private static func metadata(of entry: CatalogFile.Entry) -> BrowseItem.Metadata? {
        let metadata = BrowseItem.Metadata(
            albumArtist: entry.albumArtist, genre: entry.genre, trackNumber: entry.trackNumber,
            discNumber: entry.discNumber, year: entry.year, isLive: entry.live, extras: entry.extras)
        return metadata == BrowseItem.Metadata() ? nil : metadata
    }

    /// An item's `error` as the ``BrowseError`` opening it throws: a known code, a message that is
    /// not blank, and a resolution (if any) with a label and an optional `https://` url.
    private static func errorScreen(
        _ entry: CatalogFile.ErrorEntry, item id: String, refuse: (CatalogError.Problem) -> CatalogError
    ) throws(CatalogError) -> BrowseError {
        guard let name = entry.code, let code = BrowseError.Code(rawValue: name) else {
            throw refuse(.unknownErrorCode(entry.code))
        }
        guard let message = entry.message, !message.allSatisfy(\.isWhitespace) else { throw refuse(.emptyErrorMessage) }
        var resolution: BrowseError.Resolution?
        if let button = entry.resolution {
            guard let label = button.label, !label.allSatisfy(\.isWhitespace) else { throw refuse(.emptyResolutionLabel) }
            if let url = button.url, !isHTTPS(url) { throw refuse(.badResolutionUrl(url)) }
            resolution = BrowseError.Resolution(label: label, url: button.url)
        }
        return BrowseError(code: code, message: message, resolution: resolution)
    }

    /// Whether `text` is an `https://` URL with a host.
    private static func isHTTPS(_ text: String) -> Bool {
        guard text.hasPrefix("https://"), let url = URL(string: text), let host = url.host else { return false }
        return !host.isEmpty
    }

    private struct ArtworkProblem: Error {
        var reason: String
    }

    /// `https://…` as is; `file://…` and relative paths as a `file://` URL of an existing file
    /// (relative ones must stay inside the catalog's folder).
    private static func resolveArtwork(_ artwork: String, folder: String) throws(ArtworkProblem) -> String {
        if artwork.hasPrefix("https://") {
            guard isHTTPS(artwork) else { throw ArtworkProblem(reason: "'\(artwork)' is not a valid https URL") }
            return artwork
        }
        let file: String
        if artwork.hasPrefix("file://") {
            guard let url = URL(string: artwork), url.isFileURL else {
                throw ArtworkProblem(reason: "'\(artwork)' is not a valid file URL")
            }
            file = url.standardizedFileURL.path
        } else if artwork.contains("://") || artwork.hasPrefix("/") || artwork.isEmpty {
            throw ArtworkProblem(reason: "'\(artwork)' is not https://, file:// or a path relative to the catalog")
        } else {
            file = URL(fileURLWithPath: folder + "/" + artwork).standardizedFileURL.path
            guard file.hasPrefix(folder + "/") else {
                throw ArtworkProblem(reason: "'\(artwork)' leaves the catalog's folder")
            }
        }
        guard let status = Files.status(file), !status.isDirectory else {
            throw ArtworkProblem(reason: "'\(artwork)' does not exist (looked for \(file))")
        }
        return URL(fileURLWithPath: file).absoluteString
    }
}
