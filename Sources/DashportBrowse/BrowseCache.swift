// Sources/DashportBrowse/BrowseCache.swift - the bounded on-disk snapshot of browsed nodes.

import DashportFiles
public import DashportLog
import FoundationEssentials
import Glibc

/// The browse nodes cars saw last, kept on disk so a car that connects while the provider is slow
/// or not up yet gets its tabs at once.
///
/// One file per node (`CacheFileFormat`: magic, version, length, CRC-32, JSON body), each
/// written atomically. Bounded by node count and by bytes on disk; the least recently used node
/// goes first. Reads touch memory only, so the recency order across a restart is the write order.
/// Everything is loaded into memory by ``load()`` (at most `maxBytes` of files). A truncated,
/// corrupt, foreign or other-version file is deleted and reported `browseCacheDiscarded`; a
/// leftover temporary file from a crash is deleted. Evictions are not fsynced: a node that comes
/// back after a power cut is still a valid node, and the bounds are applied again at load.
///
/// A write that fails (a full disk: `ENOSPC`, `EIO`, `EFBIG`; an unusable directory) leaves the
/// node's previous file as it was (the write is atomic) and keeps the new node in memory, so it
/// is still served; the fault is reported once, with its cause, when it starts
/// (`browseCacheWriteFailed`), not per node. The first write that works again ends it
/// (`browseCacheWritesResumed`) and writes the nodes kept only in memory meanwhile.
public actor BrowseCache {
    public nonisolated let directory: String
    /// The most nodes kept (at least 1). Default 64.
    public nonisolated let maxNodes: Int
    /// The most bytes of cache files on disk. Default 2 MiB.
    public nonisolated let maxBytes: Int

    private struct Entry {
        var node: CachedNode
        var fileName: String
        var bytes: Int
        var lastUse: UInt64
        /// False while the node is only in memory: its write failed (the file, if any, is older).
        var persisted = true
    }

    private let logger: Logger
    private var entries: [String: Entry] = [:]
    /// File name → parent id, to notice two ids sharing a file name.
    private var owners: [String: String] = [:]
    private var totalBytes = 0
    private var clock: UInt64 = 0
    private var loaded = false
    /// Whether writes are failing now (a full disk), so the fault is reported once.
    private var health = WriteHealth()

    public init(directory: String, maxNodes: Int = 64, maxBytes: Int = 2 * 1024 * 1024, logger: Logger = .silent) {
        self.directory = directory
        self.maxNodes = max(1, maxNodes)
        self.maxBytes = max(0, maxBytes)
        self.logger = logger.labelled("browse.cache")
    }

    /// How many nodes are cached.
    public var nodeCount: Int {
        load()
        return entries.count
    }

    /// How many bytes the cache files take on disk.
    public var byteCount: Int {
        load()
        return totalBytes
    }

    /// The cached parent ids, most recently used first.
    public var parentIds: [String] {
        load()
        return entries.sorted { $0.value.lastUse > $1.value.lastUse }.map(\.key)
    }

    /// Reads the directory (once; later calls return no reports). Never fails: what cannot be read
    /// is discarded and reported, and the cache starts empty if the directory is unusable.
    @discardableResult
    public func load() -> [BrowseReport] {
        guard !loaded else { return [] }
        loaded = true
        var reports: [BrowseReport] = []
        let files: [String]
        do {
            if try Files.makeDirectory(directory) { logger.notice("created the cache directory", ["directory": directory]) }
            files = try Files.list(directory)
        } catch {
            _ = health.failed(error)  // the writes that follow fail for the same reason: one report
            return [failure("cannot use the cache directory \(directory): \(error)", nil)]
        }
        var found: [(entry: Entry, generation: UInt64)] = []
        for name in files {
            let path = directory + "/" + name
            if Files.isTemporary(name) {
                logger.notice("deleting a temporary file left by a crash", ["file": name])
                if let report = delete(path, name) { reports.append(report) }
                continue
            }
            guard name.hasSuffix("." + CacheFileFormat.fileExtension) else { continue }
            switch read(path, name) {
            case .success(let (node, generation, size)):
                found.append((Entry(node: node, fileName: name, bytes: size, lastUse: 0), generation))
            case .failure(let problem):
                reports.append(
                    BrowseReport(
                        code: BrowseReportCode.cacheDiscarded,
                        message: "cache file \(path) discarded: \(problem)", itemId: name))
                logger.warning("cache file discarded", ["file": path, "problem": problem.description])
                if let report = delete(path, name) { reports.append(report) }
            }
        }
        for (entry, generation) in found.sorted(by: { $0.generation < $1.generation }) {
            clock = max(clock, generation)
            insert(Entry(node: entry.node, fileName: entry.fileName, bytes: entry.bytes, lastUse: generation))
        }
        reports += evict(keeping: nil)
        logger.info("cache loaded", ["nodes": "\(entries.count)", "bytes": "\(totalBytes)"])
        return reports
    }

    /// The cached children of `parentId`, and marks the node as just used.
    public func children(of parentId: String) -> [BrowseItem]? {
        load()
        guard entries[parentId] != nil else { return nil }
        clock += 1
        entries[parentId]?.lastUse = clock
        return entries[parentId]?.node.children
    }

    /// Caches `children` for `parentId` (an atomic write of one file), then evicts the least
    /// recently used nodes until both bounds hold. Returns what went wrong, if anything.
    @discardableResult
    public func store(_ children: [BrowseItem], for parentId: String) -> [BrowseReport] {
        load()
        let node = CachedNode(parentId: parentId, children: children)
        let name = CacheFileFormat.fileName(for: parentId)
        clock += 1
        let bytes: [UInt8]
        do {
            bytes = try CacheFileFormat.encode(node, generation: clock)
        } catch {
            return [failure("cannot encode node '\(parentId)': \(error)", parentId)]
        }
        guard bytes.count <= maxBytes else {
            var reports = remove(parentId)
            reports.append(
                BrowseReport(
                    code: BrowseReportCode.cacheNodeTooLarge,
                    message: "node '\(parentId)' is \(bytes.count) bytes, over the cache bound of \(maxBytes): not cached",
                    itemId: parentId))
            return reports
        }
        var reports: [BrowseReport] = []
        let written = write(bytes, name, parentId, &reports)
        if let owner = owners[name] { drop(owner) }  // replaced (same id, or a hash clash)
        insert(Entry(node: node, fileName: name, bytes: bytes.count, lastUse: clock, persisted: written))
        if written, !reports.isEmpty { reports += writePending() }  // writes work again
        return reports + evict(keeping: parentId)
    }

    /// Writes one node's file atomically and keeps ``health``: true when it is on disk. The first
    /// failure of a fault and the first success after one add a report; failures in between are
    /// only debug lines.
    private func write(_ bytes: [UInt8], _ name: String, _ parentId: String, _ reports: inout [BrowseReport]) -> Bool {
        do {
            try Files.writeAtomically(bytes, to: directory + "/" + name)
        } catch {
            if health.failed(error) {
                reports.append(
                    failure(
                        "browse cache writes fail in \(directory) (\(error.causeText)), first for node '\(parentId)': nodes are kept in memory and their previous files left as they were until writes work again",
                        parentId))
            } else {
                logger.debug("cache write failed again", ["parent": parentId, "cause": error.causeText])
            }
            return false
        }
        if let failed = health.succeeded() {
            let pending = entries.values.filter { !$0.persisted }.count
            reports.append(
                BrowseReport(
                    code: BrowseReportCode.cacheWritesResumed,
                    message: "browse cache writes work again after \(failed) failed; writing the \(pending) nodes kept in memory",
                    itemId: parentId))
        }
        return true
    }

    /// Writes the nodes kept only in memory during a write fault, most recently used first; stops
    /// at the first that fails (the fault is back, and reported again).
    private func writePending() -> [BrowseReport] {
        var reports: [BrowseReport] = []
        let pending = entries.values.filter { !$0.persisted }.sorted { $0.lastUse > $1.lastUse }
        for entry in pending {
            guard let bytes = try? CacheFileFormat.encode(entry.node, generation: entry.lastUse) else { continue }
            guard write(bytes, entry.fileName, entry.node.parentId, &reports) else { break }
            entries[entry.node.parentId]?.persisted = true
        }
        return reports
    }

    /// Evicts one node.
    @discardableResult
    public func remove(_ parentId: String) -> [BrowseReport] {
        load()
        guard let entry = entries[parentId] else { return [] }
        drop(parentId)
        return delete(directory + "/" + entry.fileName, parentId).map { [$0] } ?? []
    }

    /// Evicts every node.
    @discardableResult
    public func removeAll() -> [BrowseReport] {
        load()
        return entries.keys.sorted().flatMap { remove($0) }
    }

    /// Every cached node, without touching the recency order.
    func allNodes() -> [CachedNode] {
        load()
        return entries.values.map(\.node)
    }

    /// The first cached item with this id, without touching the recency order.
    func item(id: String) -> BrowseItem? {
        load()
        for entry in entries.values {
            if let item = entry.node.children.first(where: { $0.id == id }) { return item }
        }
        return nil
    }

    // MARK: - Bookkeeping

    private func insert(_ entry: Entry) {
        entries[entry.node.parentId] = entry
        owners[entry.fileName] = entry.node.parentId
        totalBytes += entry.bytes
    }

    private func drop(_ parentId: String) {
        guard let entry = entries.removeValue(forKey: parentId) else { return }
        owners[entry.fileName] = nil
        totalBytes -= entry.bytes
    }

    /// Removes the least recently used nodes (never `kept`) until both bounds hold.
    private func evict(keeping kept: String?) -> [BrowseReport] {
        var reports: [BrowseReport] = []
        while entries.count > maxNodes || totalBytes > maxBytes {
            guard let victim = entries.filter({ $0.key != kept }).min(by: { $0.value.lastUse < $1.value.lastUse }) else {
                break
            }
            logger.debug("evicting node", ["parent": victim.key, "bytes": "\(victim.value.bytes)"])
            reports += remove(victim.key)
        }
        return reports
    }

    private func read(_ path: String, _ name: String) -> Result<(CachedNode, UInt64, Int), CacheFormatError> {
        let data: [UInt8]
        do {
            data = try Files.read(path, limit: maxBytes)
        } catch {
            if case .tooLarge(let size, _) = error.cause { return .failure(.oversized(size)) }
            return .failure(.unreadable)
        }
        do {
            let (node, generation) = try CacheFileFormat.decode(data)
            guard CacheFileFormat.fileName(for: node.parentId) == name else {
                return .failure(.misplaced(parentId: node.parentId))
            }
            return .success((node, generation, data.count))
        } catch {
            return .failure(error)
        }
    }

    private func delete(_ path: String, _ itemId: String?) -> BrowseReport? {
        do {
            try Files.remove(path)
            return nil
        } catch {
            return failure("cannot delete \(path): \(error)", itemId)
        }
    }

    /// A `browseCacheWriteFailed` report. Not logged here: whoever takes the reports (the browse
    /// core) logs each once, so one fault is one line.
    private func failure(_ message: String, _ itemId: String?) -> BrowseReport {
        BrowseReport(code: BrowseReportCode.cacheWriteFailed, message: message, itemId: itemId)
    }
}
