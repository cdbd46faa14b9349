// Sources/DashportBrowse/CatalogReader+Fields.swift - one JSON object's keys, each read as the kind
// of value it must be.

extension CatalogReader {
    /// The members of one object of the catalog, and the item errors in it are reported for.
    struct Fields {
        let reader: CatalogReader
        let members: [JSONNode.Member]
        let item: String?
        /// The elements ``JSONTree/outline(_:)`` left unbuilt (the document's lists), by list offset.
        let elements: [Int: [Int]]

        init(reader: CatalogReader, members: [JSONNode.Member], item: String?, elements: [Int: [Int]] = [:]) {
            self.reader = reader
            self.members = members
            self.item = item
            self.elements = elements
        }

        /// The members of `node`, which must be an object (the value of `key`).
        init(reader: CatalogReader, object node: JSONNode, key: String, wants: String, item: String?) throws(CatalogError) {
            guard case .object(let members) = node.value else {
                throw reader.refuse(.wrongType(key: key, wants: wants, found: node.kindText), item: item, at: node.offset)
            }
            self.init(reader: reader, members: members, item: item)
        }

        func member(_ key: String) -> JSONNode.Member? { members.first { $0.key == key } }

        /// Refuses the first key not in `known`, suggesting the known key it most likely meant.
        func onlyKnownKeys(_ known: [String]) throws(CatalogError) {
            for member in members where !known.contains(member.key) {
                let suggestion = CatalogReader.closest(to: member.key, among: known)
                throw reader.refuse(.unknownKey(member.key, suggestion: suggestion), item: item, at: member.keyOffset)
            }
        }

        func required(_ key: String, at offset: Int) throws(CatalogError) -> JSONNode.Member {
            guard let found = member(key) else { throw reader.refuse(.missingKey(key), item: item, at: offset) }
            return found
        }

        private func wrong(_ member: JSONNode.Member, wants: String) -> CatalogError {
            var found = member.value.kindText
            if case .string(let text) = member.value.value { found += " (\"\(text.prefix(40))\")" }
            if case .number(let text) = member.value.value { found += " (\(text.prefix(40)))" }
            return reader.refuse(.wrongType(key: member.key, wants: wants, found: found), item: item, at: member.value.offset)
        }

        /// The value of `key`, nil when absent or `null` (as the format says: a missing key).
        private func present(_ key: String) -> JSONNode.Member? {
            guard let found = member(key) else { return nil }
            if case .null = found.value.value { return nil }
            return found
        }

        func string(_ key: String) throws(CatalogError) -> String? {
            guard let found = present(key) else { return nil }
            guard case .string(let text) = found.value.value else { throw wrong(found, wants: "a string") }
            return text
        }

        func bool(_ key: String) throws(CatalogError) -> Bool? {
            guard let found = present(key) else { return nil }
            guard case .bool(let flag) = found.value.value else { throw wrong(found, wants: "true or false") }
            return flag
        }

        /// A number between 0 and 1 (the loader checks the range, naming the value).
        func fraction(_ key: String) throws(CatalogError) -> Double? {
            guard let found = present(key) else { return nil }
            guard case .number(let text) = found.value.value, let value = Double(text), value.isFinite else {
                throw wrong(found, wants: "a number from 0 to 1")
            }
            return value
        }

        func integer<Integer: FixedWidthInteger>(_ key: String, _: Integer.Type, wants: String) throws(CatalogError) -> Integer? {
            guard let found = present(key) else { return nil }
            guard case .number(let text) = found.value.value, let value = Integer(text) else { throw wrong(found, wants: wants) }
            return value
        }

        /// One of an enumeration's raw values.
        func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, _: Choice.Type) throws(CatalogError) -> Choice?
        where Choice.RawValue == String {
            guard let found = present(key) else { return nil }
            let wants = "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            guard case .string(let text) = found.value.value, let value = Choice(rawValue: text) else { throw wrong(found, wants: wants) }
            return value
        }

        /// An object whose every value is a string (`extras`).
        func strings(_ key: String) throws(CatalogError) -> [String: String]? {
            guard let found = present(key) else { return nil }
            let wants = "an object of strings ({ \"name\": \"value\" })"
            guard case .object(let members) = found.value.value else { throw wrong(found, wants: wants) }
            var values: [String: String] = [:]
            for member in members {
                guard case .string(let text) = member.value.value else {
                    throw reader.refuse(
                        .wrongType(key: "\(key).\(member.key)", wants: "a string", found: member.value.kindText), item: item,
                        at: member.value.offset)
                }
                values[member.key] = text
            }
            return values
        }

        /// The elements of `member`, which must be a list.
        func list(_ member: JSONNode.Member, key: String, wants: String) throws(CatalogError) -> [JSONNode] {
            guard case .array(let elements) = member.value.value else { throw wrong(member, wants: wants) }
            return elements
        }

        /// Where each element of `member` starts, which must be a list the outline deferred.
        func deferredList(_ member: JSONNode.Member, key: String, wants: String) throws(CatalogError) -> [Int] {
            guard case .array = member.value.value else { throw wrong(member, wants: wants) }
            return elements[member.value.offset] ?? []
        }
    }

    /// The known key `key` most likely meant: the same but for case, or at most two edits away
    /// (and fewer than half its letters). Nil when none is that close.
    static func closest(to key: String, among known: [String]) -> String? {
        if let same = known.first(where: { $0.lowercased() == key.lowercased() }) { return same }
        let typed = Array(key.lowercased().prefix(64))
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= 2, distance * 2 < max(typed.count, 1), distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.key
    }

    /// Levenshtein distance, one row at a time.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
