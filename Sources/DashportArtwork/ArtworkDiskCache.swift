import DashportFiles
import DashportLog

/// A box a car asked for, in pixels (both sides at least 1).
struct ArtworkBox: Hashable, Sendable, CustomStringConvertible {
    var width: Int
    var height: Int
    var description: String { "\(width)x\(height)" }
}

/// Originals and thumbnails on disk, bounded by total bytes, least recently used out first.
///
/// One flat directory: `o-<key>` is an original exactly as downloaded (libvips reads it in
/// place), `v-<key>-<w>x<h>` a thumbnail for one box (see ``ThumbnailFile``), `tmp-*` a write
/// in progress. Every write is atomic (temporary file, fsync, rename). The last-use order is
/// kept in each file's modification time (set explicitly and strictly increasing, because the
/// kernel's own stamps are only as fine as a tick), so it survives a restart. At start the
/// directory is scanned: leftovers of interrupted writes are deleted, files of other names are
/// left alone; a damaged thumbnail is found (checksum) and deleted when read. Entries in use
/// (``pin(_:)``) are never evicted. One process per directory.
///
/// A write that fails (a full or failing disk) leaves what was there as it was and throws
/// ``ArtworkError/storage(_:)``; the fault is logged once when it starts, with its cause, and once
/// when a write works again (``recordWrite(failure:)``), not per cover.
struct ArtworkDiskCache {
    enum Entry: Hashable {
        case original(ArtworkKey)
        case thumbnail(ArtworkKey, ArtworkBox)

        var fileName: String {
            switch self {
            case .original(let key): "o-\(key.rawValue)"
            case .thumbnail(let key, let box): "v-\(key.rawValue)-\(box.width)x\(box.height)"
            }
        }

        init?(fileName: String) {
            let parts = fileName.split(separator: "-", omittingEmptySubsequences: false)
            let key = parts.count > 1 ? ArtworkKey(rawValue: String(parts[1])) : ArtworkKey(rawValue: "")
            guard key.isWellFormed else { return nil }
            if parts.count == 2 && parts[0] == "o" {
                self = .original(key)
                return
            }
            let sides = parts.count == 3 && parts[0] == "v" ? parts[2].split(separator: "x") : []
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]), width > 0, height > 0 else { return nil }
            self = .thumbnail(key, ArtworkBox(width: width, height: height))
            guard self.fileName == fileName else { return nil }  // one spelling per entry ("+1", "01" refused)
        }
    }

    private struct Record {
        var size: Int
        var lastUse: UInt64
    }

    let directory: String
    let maxBytes: Int
    private let logger: Logger
    private(set) var totalBytes = 0
    private var records: [Entry: Record] = [:]
    private var useCounter: UInt64 = 0
    /// The newest modification time given to a file; the next one is later.
    private var lastStamp: Int64 = 0
    private var pins: [Entry: Int] = [:]
    /// Whether writes are failing now, so a full disk is logged once.
    private var health = WriteHealth()

    /// Opens (creating if needed) the cache in `directory` and indexes what an earlier run left.
    init(directory: String, maxBytes: Int, logger: Logger) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.maxBytes = max(0, maxBytes)
        self.logger = logger
        do {
            if try Files.makeDirectory(self.directory) {
                logger.notice("created the artwork cache directory", ["directory": self.directory])
            }
            var found: [(Entry, Files.Status)] = []
            for name in try Files.list(self.directory) {
                let path = self.directory + "/" + name
                if Files.isTemporary(name) {
                    try? Files.remove(path)  // an interrupted write
                } else if let entry = Entry(fileName: name), let info = Files.status(path), info.isRegularFile {
                    found.append((entry, info))
                }
            }
            for (entry, info) in found.sorted(by: { $0.1.modified < $1.1.modified }) {
                lastStamp = max(lastStamp, info.modified)
                useCounter += 1
                records[entry] = Record(size: info.size, lastUse: useCounter)
                totalBytes += info.size
            }
            logger.info("artwork cache opened", ["directory": self.directory, "entries": "\(records.count)", "bytes": "\(totalBytes)"])
            evictToFit()
        } catch {
            logger.error("artwork cache unavailable: \(error)", ["directory": self.directory])
            _ = health.failed(error)  // every write into it fails for the same reason: this one line says so
        }
    }

    func path(of entry: Entry) -> String { directory + "/" + entry.fileName }

    func contains(_ entry: Entry) -> Bool { records[entry] != nil }

    /// Where a new original may be written before ``adoptOriginal(_:for:)``.
    func temporaryPath() -> String {
        Files.temporaryPath(in: directory)
    }

    /// The path of a cached original, marked as just used.
    mutating func original(_ key: ArtworkKey) -> String? {
        let entry = Entry.original(key)
        guard records[entry] != nil else { return nil }
        markUsed(entry)
        return path(of: entry)
    }

    /// A cached thumbnail, marked as just used. A damaged file is deleted and reported as a miss.
    mutating func thumbnail(_ key: ArtworkKey, _ box: ArtworkBox) -> ArtworkImage? {
        let entry = Entry.thumbnail(key, box)
        guard let record = records[entry] else { return nil }
        do throws(ArtworkError) {
            let bytes: [UInt8]
            do { bytes = try Files.read(path(of: entry), limit: max(record.size, 1)) } catch { throw ArtworkError(error) }
            let image = try ThumbnailFile.decode(bytes)
            markUsed(entry)
            return image
        } catch {
            logger.warning("discarding damaged artwork cache entry: \(error)", ["entry": entry.fileName])
            discard(entry)
            return nil
        }
    }

    /// Moves a finished download at `temporary` into the cache as the original of `key`.
    mutating func adoptOriginal(_ temporary: String, for key: ArtworkKey) throws(ArtworkError) -> String {
        let entry = Entry.original(key)
        do { try Files.commit(temporary, to: path(of: entry)) } catch { throw failedWrite(error) }
        recordWrite(failure: nil)
        account(entry, size: Files.status(path(of: entry))?.size ?? 0)
        return path(of: entry)
    }

    /// Takes in the original of `key` that ``Files/commit(_:to:)`` moved into place (nil failure),
    /// or records why it could not (then throws ``ArtworkError/storage(_:)``).
    mutating func adoptCommitted(_ key: ArtworkKey, failure: FileError?) throws(ArtworkError) -> String {
        let entry = Entry.original(key)
        if let failure { throw failedWrite(failure) }
        recordWrite(failure: nil)
        account(entry, size: Files.status(path(of: entry))?.size ?? 0)
        return path(of: entry)
    }

    /// Stores a thumbnail atomically.
    mutating func storeThumbnail(_ image: ArtworkImage, key: ArtworkKey, box: ArtworkBox) throws(ArtworkError) {
        let file = thumbnailFile(image, key: key, box: box)
        var failure: FileError?
        do { try Files.writeAtomically(file.bytes, to: file.path) } catch { failure = error }
        try adoptThumbnail(key: key, box: box, size: file.bytes.count, failure: failure)
    }

    /// What ``storeThumbnail(_:key:box:)`` writes, and where: for a write off the caller's thread,
    /// then ``adoptThumbnail(key:box:size:failure:)``.
    func thumbnailFile(_ image: ArtworkImage, key: ArtworkKey, box: ArtworkBox) -> (path: String, bytes: [UInt8]) {
        (path(of: .thumbnail(key, box)), ThumbnailFile.encode(image))
    }

    /// Takes in a thumbnail written to its path atomically (nil failure), or records why it
    /// could not be (then throws ``ArtworkError/storage(_:)``).
    mutating func adoptThumbnail(key: ArtworkKey, box: ArtworkBox, size: Int, failure: FileError?) throws(ArtworkError) {
        if let failure { throw failedWrite(failure) }
        recordWrite(failure: nil)
        account(.thumbnail(key, box), size: size)
    }

    /// Keeps the write health: the first failure of a fault is logged with its cause, the ones
    /// after it only at debug, and the first success after it says how many failed.
    mutating func recordWrite(failure: ArtworkError?) {
        if let failure {
            if health.failed(failure) {
                logger.warning(
                    "artwork cache writes fail: \(failure); covers are served without being cached until writes work again",
                    ["directory": directory])
            } else {
                logger.debug("artwork cache write failed again: \(failure)")
            }
        } else if let failed = health.succeeded() {
            logger.info("artwork cache writes work again", ["directory": directory, "failed": "\(failed)"])
        }
    }

    private mutating func failedWrite(_ error: FileError) -> ArtworkError {
        let failure = ArtworkError.storage(error.causeText)
        recordWrite(failure: failure)
        return failure
    }

    /// Deletes an entry (a damaged or undecodable one).
    mutating func discard(_ entry: Entry) {
        guard let record = records.removeValue(forKey: entry) else { return }
        totalBytes -= record.size
        try? Files.remove(path(of: entry))  // gone from the index either way; a leftover is only space
    }

    /// Keeps `entry` from being evicted until a matching ``unpin(_:)``.
    mutating func pin(_ entry: Entry) { pins[entry, default: 0] += 1 }

    mutating func unpin(_ entry: Entry) {
        let count = (pins[entry] ?? 1) - 1
        pins[entry] = count > 0 ? count : nil
        evictToFit()
    }

    private mutating func account(_ entry: Entry, size: Int) {
        if let old = records[entry] { totalBytes -= old.size }
        useCounter += 1
        records[entry] = Record(size: size, lastUse: useCounter)
        totalBytes += size
        stamp(entry)
        evictToFit()
    }

    private mutating func markUsed(_ entry: Entry) {
        useCounter += 1
        records[entry]?.lastUse = useCounter
        stamp(entry)
    }

    private mutating func stamp(_ entry: Entry) {
        lastStamp = max(CacheFileTimes.now(), lastStamp + 1)
        CacheFileTimes.setModified(path(of: entry), nanoseconds: lastStamp)
    }

    /// Evicts least recently used, unpinned entries until the total fits the bound.
    private mutating func evictToFit() {
        while totalBytes > maxBytes {
            let victim = records.filter { pins[$0.key] == nil }.min { $0.value.lastUse < $1.value.lastUse }
            guard let victim else { return }  // everything left is in use; evicted once unpinned
            logger.debug("evicting artwork cache entry", ["entry": victim.key.fileName, "bytes": "\(victim.value.size)"])
            discard(victim.key)
        }
    }
}
