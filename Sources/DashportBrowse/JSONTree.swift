// Sources/DashportBrowse/JSONTree.swift - a JSON text as values that know where they start.

/// A JSON value and the byte offset it starts at, so a catalog error can say line and column
/// (Foundation's decoder knows only a coding path). Objects keep their members in file order,
/// each key with its own offset.
package struct JSONNode: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        case object([Member])
        case array([JSONNode])
        case string(String)
        /// The number as written (`-1.5e3`): the reader converts it to what the field wants.
        case number(String)
        case bool(Bool)
        case null
    }

    package struct Member: Sendable, Equatable {
        package var key: String
        package var keyOffset: Int
        package var value: JSONNode

        package init(key: String, keyOffset: Int, value: JSONNode) {
            self.key = key
            self.keyOffset = keyOffset
            self.value = value
        }
    }

    package var offset: Int
    package var value: Value

    package init(offset: Int, value: Value) {
        self.offset = offset
        self.value = value
    }

    /// What the value is, in words: `a string`, `a number`, `an object`.
    package var kindText: String {
        switch value {
        case .object: "an object"
        case .array: "a list"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true/false"
        case .null: "null"
        }
    }
}

/// Parses a whole JSON text (RFC 8259) into a ``JSONNode``. Bounded: nesting deeper than
/// ``JSONSyntaxLocator/maxDepth`` is refused, the input is read once, and nothing is kept but the
/// values (the caller caps the input's size). Strings must be valid UTF-8 and their `\u` escapes
/// whole surrogate pairs; a key that appears twice in one object is an error.
package enum JSONTree {
    package struct Failure: Error, Equatable {
        package var offset: Int
        package var reason: String
    }

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONNode {
        var parser = Parser(bytes: bytes)
        let node = try parser.value()
        parser.skipSpace()
        guard parser.at == bytes.count else { throw Failure(offset: parser.at, reason: "unexpected text after the end of the document") }
        return node
    }

    /// A whole JSON text checked as ``parse(_:)`` checks it (the same errors at the same places),
    /// with the lists that are values of the top-level object's members left unbuilt: such a list
    /// is an empty `.array` in `document`, and `elements[its offset]` holds where each of its
    /// elements starts, for ``parse(_:at:)`` to build one at a time. A catalog's 100,000 items are
    /// then never a tree at once (issue 22, item 4).
    package static func outline(_ bytes: [UInt8]) throws(Failure) -> (document: JSONNode, elements: [Int: [Int]]) {
        var parser = Parser(bytes: bytes)
        parser.deferring = true
        let node = try parser.value()
        parser.skipSpace()
        guard parser.at == bytes.count else { throw Failure(offset: parser.at, reason: "unexpected text after the end of the document") }
        return (node, parser.deferred)
    }

    /// The value starting at byte `offset` of a text ``outline(_:)`` accepted (an element it
    /// deferred), built.
    package static func parse(_ bytes: [UInt8], at offset: Int) throws(Failure) -> JSONNode {
        var parser = Parser(bytes: bytes)
        parser.at = offset
        parser.checked = true
        return try parser.value()
    }

    struct Parser {
        let bytes: [UInt8]
        var at = 0
        var depth = 0
        /// Whether the lists directly inside the top-level object are checked, not built.
        var deferring = false
        /// Where each deferred list's elements start, by the list's offset.
        var deferred: [Int: [Int]] = [:]
        /// Whether the text was checked by ``JSONTree/outline(_:)`` already (keys are then not compared again).
        var checked = false
        /// Escapes of strings checked without being built are decoded here, then dropped.
        var scratch: [UInt8] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ reason: String, at offset: Int? = nil) -> Failure { Failure(offset: offset ?? at, reason: reason) }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        }

        mutating func value() throws(Failure) -> JSONNode {
            skipSpace()
            guard at < bytes.count else { throw fail("the file ends in the middle of the JSON (truncated?)") }
            let start = at
            switch bytes[at] {
            case UInt8(ascii: "{"): return JSONNode(offset: start, value: .object(try object()))
            case UInt8(ascii: "[") where deferring && depth == 1:
                deferred[start] = try deferredArray()
                return JSONNode(offset: start, value: .array([]))
            case UInt8(ascii: "["): return JSONNode(offset: start, value: .array(try array()))
            case UInt8(ascii: "\""): return JSONNode(offset: start, value: .string(try string()))
            case UInt8(ascii: "t"): return JSONNode(offset: start, value: try literal("true", .bool(true)))
            case UInt8(ascii: "f"): return JSONNode(offset: start, value: try literal("false", .bool(false)))
            case UInt8(ascii: "n"): return JSONNode(offset: start, value: try literal("null", .null))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(offset: start, value: .number(try number()))
            default: throw fail("expected a value")
            }
        }

        mutating func enter() throws(Failure) {
            depth += 1
            guard depth <= JSONSyntaxLocator.maxDepth else { throw fail("nested deeper than \(JSONSyntaxLocator.maxDepth) levels") }
            at += 1
            skipSpace()
        }

        /// After a member or element: `true` at the closing bracket (consumed), `false` after a comma.
        mutating func closes(_ close: UInt8) throws(Failure) -> Bool {
            skipSpace()
            guard at < bytes.count else { throw fail("the file ends in the middle of the JSON (truncated?)") }
            if bytes[at] == close {
                at += 1
                depth -= 1
                return true
            }
            guard bytes[at] == UInt8(ascii: ",") else { throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
            at += 1
            return false
        }

        private mutating func object() throws(Failure) -> [JSONNode.Member] {
            try enter()
            var members: [JSONNode.Member] = []
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                depth -= 1
                return members
            }
            var keys = Set<String>()
            repeat {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a \"key\" in quotes") }
                let keyOffset = at
                let key = try string()
                // An element the outline deferred had its keys checked there.
                guard checked || keys.insert(key).inserted else {
                    throw fail("the key '\(key)' appears twice in this object", at: keyOffset)
                }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                at += 1
                members.append(JSONNode.Member(key: key, keyOffset: keyOffset, value: try value()))
            } while try !closes(UInt8(ascii: "}"))
            return members
        }

        private mutating func array() throws(Failure) -> [JSONNode] {
            try enter()
            var elements: [JSONNode] = []
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                depth -= 1
                return elements
            }
            repeat { elements.append(try value()) } while try !closes(UInt8(ascii: "]"))
            return elements
        }

        mutating func string() throws(Failure) -> String {
            let start = at
            at += 1
            // Most strings have no escape: made from the bytes where they lie, with no copy first.
            var end = at
            var ascii = true
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
                ascii = ascii && bytes[end] < 0x80
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let piece = bytes[at..<end]
                guard let text = ascii ? String(decoding: piece, as: UTF8.self) : String(validating: piece, as: UTF8.self) else {
                    throw fail("a string that is not valid UTF-8", at: start)
                }
                at = end + 1
                return text
            }
            var utf8: [UInt8] = []
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        throw fail("a string that is not valid UTF-8", at: start)
                    }
                    return text
                case UInt8(ascii: "\\"):
                    try escape(into: &utf8)
                case 0..<0x20: throw fail("a control character inside a string", at: at - 1)
                default: utf8.append(byte)
                }
            }
            throw fail("the file ends inside a string", at: start)
        }

        mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
            guard at < bytes.count else { throw fail("the file ends inside a string") }
            let byte = bytes[at]
            at += 1
            let simple: UInt8? =
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                default: nil
                }
            if let simple {
                utf8.append(simple)
                return
            }
            guard byte == UInt8(ascii: "u") else { throw fail("unknown escape", at: at - 2) }
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw fail("a \\u escape of half a surrogate pair")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw fail("a \\u escape of half a surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("a \\u escape of half a surrogate pair") }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        }

        private mutating func hex4() throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard at < bytes.count, let digit = Character(Unicode.Scalar(bytes[at])).hexDigitValue else {
                    throw fail("expected 4 hex digits after \\u")
                }
                value = value << 4 | UInt32(digit)
                at += 1
            }
            return value
        }

        mutating func literal(_ word: String, _ value: JSONNode.Value) throws(Failure) -> JSONNode.Value {
            let start = at
            for expected in word.utf8 {
                guard at < bytes.count, bytes[at] == expected else { throw fail("expected '\(word)'", at: start) }
                at += 1
            }
            return value
        }

        mutating func number() throws(Failure) -> String {
            let start = at
            try skipNumber()
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        mutating func skipNumber() throws(Failure) {
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() else { throw fail("expected a digit") }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits() else { throw fail("expected a digit after '.'") }
            }
            if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() else { throw fail("expected a digit in the exponent") }
            }
        }

        private mutating func digits() -> Bool {
            let start = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            return at > start
        }
    }
}
