// Sources/DashportControl/ControlWords.swift - words of a control line, and key=value fields.

/// Splitting a request line into words, and writing answer fields, the same way on both ends.
///
/// Words are separated by spaces or tabs. A word may be quoted with `"`, inside which `\"` and
/// `\\` stand for `"` and `\` (so an id with spaces can be named). The line must be UTF-8 without
/// control characters (a trailing carriage return is dropped).
public enum ControlWords {
    /// The words of `line`.
    public static func split(_ line: some Collection<UInt8>) throws(ControlError) -> [String] {
        var bytes = Array(line)
        if bytes.last == 0x0D { bytes.removeLast() }
        guard bytes.count < ControlRequest.maxLineBytes else {
            throw ControlError("request longer than \(ControlRequest.maxLineBytes - 1) bytes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ControlError("request is not UTF-8 text") }
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escaped = false
        for character in text.unicodeScalars {
            if character.value < 0x20 && character != "\t" || character.value == 0x7F {
                throw ControlError("request contains a control character (U+\(String(character.value, radix: 16, uppercase: true)))")
            }
            if quoted {
                if escaped {
                    guard character == "\"" || character == "\\" else {
                        throw ControlError("unknown escape '\\\(character)' in a quoted word (only \\\" and \\\\)")
                    }
                    current.unicodeScalars.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.unicodeScalars.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            case "\"":
                inWord = true
                quoted = true
            default:
                inWord = true
                current.unicodeScalars.append(character)
            }
            if words.count > ControlRequest.maxArguments { throw ControlError("too many words in the request") }
        }
        guard !quoted else { throw ControlError("a quoted word is not closed") }
        if inWord { words.append(current) }
        guard words.count <= ControlRequest.maxArguments + 1 else { throw ControlError("too many words in the request") }
        return words
    }

    /// `word` as it can be written back on a line: as is when it has no space, quote, backslash or
    /// control character (and is not empty), else quoted and escaped; control characters but the
    /// tab become `?` (answers never carry line breaks). A tab stays, quoted: ``split(_:)`` takes it
    /// inside quotes, so a word with one reads back as itself (FuzzControl's find: a media id with
    /// a tab came back with `?` and named another item).
    public static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" }
        if plain { return word }
        var out = "\""
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `key=value key=value …`, each value ``quoted(_:)``.
    public static func fields(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { "\($0.key)=\(quoted($0.value))" }.joined(separator: " ")
    }

    /// A word from a request, shortened and made printable for an error message.
    public static func shown(_ word: String) -> String {
        let short = word.count > 40 ? String(word.prefix(40)) + "…" : word
        return String(short.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
