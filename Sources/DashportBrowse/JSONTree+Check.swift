// Sources/DashportBrowse/JSONTree+Check.swift - JSON values checked as the tree checks them, without
// building them: what lets a catalog's items be read one at a time.

extension JSONTree.Parser {
    /// A list directly inside the top-level object: every element checked as ``value()`` would
    /// check it (the same errors at the same places), none built; where each one starts.
    mutating func deferredArray() throws(JSONTree.Failure) -> [Int] {
        try enter()
        var starts: [Int] = []
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
            at += 1
            depth -= 1
            return starts
        }
        repeat {
            skipSpace()
            starts.append(at)
            try skipValue()
        } while try !closes(UInt8(ascii: "]"))
        return starts
    }

    /// Checks one value as ``value()`` does, keeping nothing but the keys of the object being
    /// checked (a key twice in one object is an error here too).
    mutating func skipValue() throws(JSONTree.Failure) {
        skipSpace()
        guard at < bytes.count else { throw fail("the file ends in the middle of the JSON (truncated?)") }
        switch bytes[at] {
        case UInt8(ascii: "{"): try skipObject()
        case UInt8(ascii: "["):
            try enter()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                depth -= 1
                return
            }
            repeat { try skipValue() } while try !closes(UInt8(ascii: "]"))
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): _ = try literal("true", .null)
        case UInt8(ascii: "f"): _ = try literal("false", .null)
        case UInt8(ascii: "n"): _ = try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw fail("expected a value")
        }
    }

    private mutating func skipObject() throws(JSONTree.Failure) {
        try enter()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
            at += 1
            depth -= 1
            return
        }
        // An item has a dozen keys: a list compared in order is cheaper than hashing them.
        var keys: [String] = []
        var many = Set<String>()
        repeat {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a \"key\" in quotes") }
            let keyOffset = at
            let key = try string()
            let fresh = keys.count < 32 ? !keys.contains(key) : many.insert(key).inserted
            guard fresh else { throw fail("the key '\(key)' appears twice in this object", at: keyOffset) }
            if keys.count < 32 {
                keys.append(key)
                if keys.count == 32 { many = Set(keys) }
            }
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
            at += 1
            try skipValue()
        } while try !closes(UInt8(ascii: "}"))
    }

    /// Checks a string as ``string()`` does: the same errors, the one of bad UTF-8 only at the
    /// closing quote (as there). The bytes between escapes are checked where they lie; escapes
    /// only ever add whole scalars, so those pieces are valid exactly when the decoded string is.
    private mutating func skipString() throws(JSONTree.Failure) {
        let start = at
        at += 1
        var piece = at
        var ascii = true
        var valid = true
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                if !ascii, valid { valid = Self.isValidUTF8(bytes[piece..<(at - 1)]) }
                guard valid else { throw fail("a string that is not valid UTF-8", at: start) }
                return
            case UInt8(ascii: "\\"):
                if !ascii, valid { valid = Self.isValidUTF8(bytes[piece..<(at - 1)]) }
                ascii = true
                var decoded = scratch
                scratch = []
                defer {
                    decoded.removeAll(keepingCapacity: true)
                    scratch = decoded
                }
                try escape(into: &decoded)
                piece = at
            case 0..<0x20: throw fail("a control character inside a string", at: at - 1)
            case 0x80...: ascii = false
            default: break
            }
        }
        throw fail("the file ends inside a string", at: start)
    }

    /// Whether `bytes` are well-formed UTF-8 (what `String(validating:as:)` accepts).
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
