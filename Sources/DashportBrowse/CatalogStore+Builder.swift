// Sources/DashportBrowse/CatalogStore+Builder.swift - a catalog store filled one validated item at a
// time, its child references resolved and checked for cycles at the end.

extension CatalogStore {
    /// Fills a ``CatalogStore`` as the loader validates items, in file order.
    struct Builder {
        private var store = CatalogStore()
        private var interned: [String: UInt32] = [:]
        /// Each parent's references as written, resolved once every id is known.
        private var listed: [(parent: UInt32, refs: [CatalogFile.ChildRef])] = []

        /// Room for `capacity` items, so the arrays are made once at their size.
        mutating func reserve(_ capacity: Int) {
            store.ids.reserveCapacity(capacity)
            store.titles.reserveCapacity(capacity)
            store.records.reserveCapacity(capacity)
            store.index.reserveCapacity(capacity)
        }

        var count: Int { store.ids.count }

        /// The number of `text` in the store's strings, adding it the first time.
        private mutating func intern(_ text: String?) -> UInt32 {
            guard let text else { return 0 }
            if let ref = interned[text] { return ref }
            let ref = UInt32(store.strings.count)
            store.strings.append(text)
            interned[text] = ref
            return ref
        }

        /// Adds the next item, the error opening it shows and the children it lists (resolved by
        /// ``resolve(root:reader:)``). False, adding nothing, when another item has its id.
        mutating func add(_ item: BrowseItem, error: BrowseError?, children: [CatalogFile.ChildRef]?) -> Bool {
            let position = UInt32(store.ids.count)
            guard store.index[item.id] == nil else { return false }
            store.index[item.id] = position
            var record = Record(
                subtitle: intern(item.subtitle), artwork: intern(item.artworkUri), group: intern(item.group),
                artist: intern(item.artist), album: intern(item.album), durationMs: item.durationMs ?? 0)
            if item.browsable { record.flags |= Flag.browsable }
            if item.playable { record.flags |= Flag.playable }
            if let explicit = item.explicit { record.flags |= Flag.hasExplicit | (explicit ? Flag.explicit : 0) }
            if item.durationMs != nil { record.flags |= Flag.hasDuration }
            if let style = item.childStyle, let code = BrowseItem.ChildStyle.allCases.firstIndex(of: style) {
                record.flags |= UInt32(code + 1) << Flag.childStyleShift
            }
            if let type = item.mediaType, let code = BrowseItem.MediaType.allCases.firstIndex(of: type) {
                record.flags |= UInt32(code + 1) << Flag.mediaTypeShift
            }
            if item.completion != nil || item.metadata != nil {
                record.details = UInt32(store.details.count)
                store.details.append(details(of: item))
            }
            store.ids.append(item.id)
            store.titles.append(item.title)
            store.records.append(record)
            if let error { store.errors[position] = error }
            if let children { listed.append((position, children)) }
            return true
        }

        private mutating func details(of item: BrowseItem) -> Details {
            var more = Details()
            if let completion = item.completion {
                more.flags |= Details.hasCompletion
                more.completion = completion
            }
            guard let metadata = item.metadata else { return more }
            more.flags |= Details.hasMetadata
            more.albumArtist = intern(metadata.albumArtist)
            more.genre = intern(metadata.genre)
            if let track = metadata.trackNumber { (more.trackNumber, more.flags) = (track, more.flags | Details.hasTrack) }
            if let disc = metadata.discNumber { (more.discNumber, more.flags) = (disc, more.flags | Details.hasDisc) }
            if let year = metadata.year { (more.year, more.flags) = (year, more.flags | Details.hasYear) }
            if let live = metadata.isLive { more.flags |= Details.hasLive | (live ? Details.live : 0) }
            if let extras = metadata.extras {
                store.extras.append(extras)
                more.extras = UInt32(store.extras.count)
            }
            return more
        }

        /// Resolves the root's references, then every item's in file order: the first reference
        /// to an id no item has is refused where it is written.
        mutating func resolve(root: [CatalogFile.ChildRef], reader: CatalogReader) throws(CatalogError) {
            store.rootChildren = try append(root, of: "root", reader: reader)
            let listed = self.listed
            self.listed = []
            for (parent, refs) in listed {
                let range = try append(refs, of: store.ids[Int(parent)], reader: reader)
                store.records[Int(parent)].childStart = UInt32(range.lowerBound)
                store.records[Int(parent)].childCount = UInt32(range.count)
            }
        }

        private mutating func append(
            _ refs: [CatalogFile.ChildRef], of parent: String, reader: CatalogReader
        ) throws(CatalogError) -> Range<Int> {
            let start = store.childItems.count
            for ref in refs {
                guard let position = store.index[ref.id] else {
                    throw reader.refuse(.missingChild(ref.id), item: parent, at: ref.offset)
                }
                store.childItems.append(position)
                store.childGroups.append(intern(ref.group))
            }
            return start..<store.childItems.count
        }

        /// Depth-first over the children, from each item in file order; a child still on the path
        /// is a cycle, reported with the path from it back to it.
        func checkCycles(path: String) throws(CatalogError) {
            let (onPath, done): (UInt8, UInt8) = (1, 2)
            var marks = [UInt8](repeating: 0, count: store.count)
            for start in 0..<store.count where marks[start] == 0 {
                var stack: [(position: Int, next: Int)] = [(start, 0)]
                marks[start] = onPath
                while let top = stack.last {
                    let record = store.records[top.position]
                    guard top.next < Int(record.childCount) else {
                        marks[top.position] = done
                        stack.removeLast()
                        continue
                    }
                    stack[stack.count - 1].next += 1
                    let child = Int(store.childItems[Int(record.childStart) + top.next])
                    switch marks[child] {
                    case onPath:
                        let loop = stack.map(\.position).drop(while: { $0 != child }).map { store.ids[$0] } + [store.ids[child]]
                        throw CatalogError(file: path, item: store.ids[child], problem: .cycle(Array(loop)))
                    case done:
                        continue
                    default:
                        marks[child] = onPath
                        stack.append((child, 0))
                    }
                }
            }
        }

        consuming func build() -> CatalogStore { store }
    }
}
