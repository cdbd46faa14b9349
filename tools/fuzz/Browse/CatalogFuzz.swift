// The fuzz driver of the catalog's JSON reading (JSONTree, CatalogReader, CatalogLoader): run by
// tools/fuzz/FuzzBrowse and replayed by Tests/DashportBrowseTests/FuzzReplayTests.swift.

import DashportBrowse
import DashportFuzzSupport

public enum CatalogFuzz {
    /// One input: the bytes as a catalog file. Invariants: no crash; the tree parser refuses every
    /// text the syntax locator refuses, and accepts every text it accepts but for the tree's own
    /// checks (a repeated key, invalid UTF-8, half a surrogate pair); a parsed tree written out
    /// and parsed again is the same tree; a refused catalog names a line and column inside the file.
    public static func run(_ bytes: [UInt8]) {
        let syntax = JSONSyntaxLocator.firstError(in: bytes)
        var tree: JSONNode?
        do {
            tree = try JSONTree.parse(bytes)
            fuzzCheck(syntax == nil, "the tree parsed a text the locator refuses: \(syntax.map { "\($0)" } ?? "")")
        } catch {
            let ownCheck = ["appears twice", "not valid UTF-8", "surrogate pair"].contains { error.reason.contains($0) }
            fuzzCheck(syntax != nil || ownCheck, "the tree refused a text the locator accepts: \(error.reason) at \(error.offset)")
            fuzzCheck(error.offset <= bytes.count, "a tree error past the end: \(error.offset) of \(bytes.count)")
        }
        if let tree {
            let written = Array(write(tree).utf8)
            do {
                fuzzCheck(strip(try JSONTree.parse(written)) == strip(tree), "a written tree parses to another tree")
            } catch {
                fuzzViolation("a written tree does not parse: \(error.reason)")
            }
        }
        do {
            _ = try CatalogCheck.check(bytes: bytes, path: "/nonexistent/fuzz/catalog.json")
        } catch {
            let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
            if let line = error.line {
                fuzzCheck((1...lines).contains(line), "error line \(line) outside the file's \(lines) lines: \(error)")
                fuzzCheck((error.column ?? 0) >= 1, "error without a column: \(error)")
            }
            fuzzCheck(!error.description.isEmpty, "an empty error")
        }
    }

    /// The tree without offsets (writing it out moves every value).
    private static func strip(_ node: JSONNode) -> JSONNode {
        let value: JSONNode.Value =
            switch node.value {
            case .object(let members): .object(members.map { JSONNode.Member(key: $0.key, keyOffset: 0, value: strip($0.value)) })
            case .array(let elements): .array(elements.map(strip))
            default: node.value
            }
        return JSONNode(offset: 0, value: value)
    }

    /// The tree as compact JSON, every string escaped.
    private static func write(_ node: JSONNode) -> String {
        switch node.value {
        case .object(let members): "{" + members.map { quote($0.key) + ":" + write($0.value) }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(write).joined(separator: ",") + "]"
        case .string(let text): quote(text)
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
