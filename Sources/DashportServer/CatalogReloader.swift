import DashportThread
public import DashportBrowse
public import DashportLog

/// Reloads the server's catalog (the file changed, SIGHUP, `dashport ctl reload`), one reload at
/// a time: a catalog that fails validation is refused with the same error as at start and the
/// previous one keeps serving; one that passes replaces it, and exactly the parents whose children
/// changed are invalidated, so every connected car is pushed a children-changed for each and asks
/// again. With no car connected an invalidation only deletes cache files.
public actor CatalogReloader {
    /// Past this many changed parents one "everything changed" push replaces one push per parent
    /// (the disk cache holds at most 64 nodes, so nothing finer is lost).
    public static let invalidateAllThreshold = 64

    /// What one reload did.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The catalog is valid and no car would see a difference.
        case unchanged(items: Int)
        /// These parents were invalidated (`nil` in the list: everything).
        case changed(parents: [String?], items: Int)
        /// The file failed validation: nothing changed.
        case refused(CatalogError)

        public var description: String {
            switch self {
            case .unchanged(let items): "unchanged (\(items) items)"
            case .changed(let parents, let items):
                "\(parents.contains(nil) ? "everything" : "\(parents.count) parent(s)") invalidated (\(items) items)"
            case .refused(let error): "refused: \(error)"
            }
        }
    }

    let catalog: CatalogProvider
    let browse: BrowseCore
    let logger: Logger
    /// The last reload's outcome and why it ran, for `dashport ctl status`.
    public private(set) var last: (reason: String, outcome: Outcome)?

    public init(catalog: CatalogProvider, browse: BrowseCore, logger: Logger) {
        self.catalog = catalog
        self.browse = browse
        self.logger = logger.labelled("catalog").with("file", catalog.path)
    }

    /// Reads the catalog again and invalidates what changed. `reason` is logged ("the file
    /// changed", "SIGHUP", "dashport ctl").
    @discardableResult
    public func reload(reason: String) async -> Outcome {
        let outcome: Outcome
        do throws(CatalogError) {
            // A second's work for the largest catalog: on a thread of its own, never on the caller's
            // executor (a reactor's, when the asking task prefers one) nor on one of the pool's.
            let catalog = self.catalog
            let change = try await OSThread.run(name: "catalog-load") { () throws(CatalogError) in try catalog.load() }
            if change.changedParents.isEmpty {
                outcome = .unchanged(items: change.itemCount)
            } else if change.changedParents.count > Self.invalidateAllThreshold {
                await browse.invalidate(nil)
                outcome = .changed(parents: [nil], items: change.itemCount)
            } else {
                for parent in change.changedParents { await browse.invalidate(parent) }
                outcome = .changed(parents: change.changedParents, items: change.itemCount)
            }
        } catch {
            outcome = .refused(error)
        }
        switch outcome {
        case .refused(let error):
            logger.error("catalog reload refused, still serving the previous catalog: \(error)", ["reason": reason])
        case .unchanged:
            logger.info("catalog reloaded: \(outcome)", ["reason": reason])
        case .changed(let parents, _):
            let names = parents.prefix(8).map { $0 ?? "everything" }.joined(separator: ",")
            logger.notice(
                "catalog reloaded: \(outcome)",
                [
                    "reason": reason, "parents": names + (parents.count > 8 ? ",…" : ""),
                ])
        }
        last = (reason, outcome)
        return outcome
    }
}
