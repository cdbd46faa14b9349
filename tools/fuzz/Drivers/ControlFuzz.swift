// The FuzzControl driver: arbitrary bytes as a client's (and a server's) side of the control socket.
import DashportControl
import DashportSession
import Glibc

/// Feeds the input to the server's line reader and request parser, and to the client's answer
/// reader, and checks (through `fuzzViolation`, FuzzInvariant.swift: a trap under libFuzzer, an
/// issue in the replay test):
/// - the line reader gives the same lines and the same error whole and in input-derived splits
///   (pending cap aside), never a line of `maxLineBytes` or more; with the cap, never more than
///   `maxPendingLines` waiting, and the same first lines;
/// - every line parses to a request or a `ControlError` whose text is one line, the same both times;
/// - a request naming an id (invalidate, play-id) names it again after the id is written back with
///   `ControlWords.quoted` and parsed;
/// - the answer reader, fed the input, answers or refuses in one line; an answer of input-derived
///   lines, encoded and read back in splits, is the same answer.
public enum ControlFuzz {
    public static func run(_ input: [UInt8]) {
        let split = splits(input)
        // Framing does not depend on how the bytes arrive (the pending cap does, by design: it
        // counts lines that came faster than they were answered, so it is left out here).
        let whole = readLines([input[...]], pendingCap: .max)
        let parts = readLines(split.map { input[$0] }, pendingCap: .max)
        fuzzCheck(whole.lines == parts.lines && whole.error == parts.error, "split reading differs from whole reading")
        let capped = readLines([input[...]], pendingCap: 4)
        fuzzCheck(capped.lines.count <= 4, "more lines waiting than the cap")
        fuzzCheck(capped.lines == Array(whole.lines.prefix(capped.lines.count)), "the capped reader gave other lines")
        for line in whole.lines {
            fuzzCheck(line.count < ControlRequest.maxLineBytes, "a line of \(line.count) bytes passed the cap")
            parse(line)
        }
        readAnswer(input, split)
        roundTripAnswer(whole.lines)
    }

    /// Input-derived chunk boundaries (every byte's low bits say whether to cut after it).
    static func splits(_ input: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, byte) in input.enumerated() where byte & 7 == 3 {
            ranges.append(start..<(index + 1))
            start = index + 1
        }
        ranges.append(start..<input.count)
        return ranges
    }

    static func readLines(_ chunks: [ArraySlice<UInt8>], pendingCap: Int) -> (lines: [[UInt8]], error: ControlError?) {
        var reader = ControlLineReader(maxPendingLines: pendingCap)
        var lines: [[UInt8]] = []
        for chunk in chunks {
            do {
                try reader.append(chunk)
            } catch {
                return (lines, error)
            }
            // With the cap the reader is drained once, at the end, like a server that fell behind.
            if pendingCap == .max { while let line = reader.next() { lines.append(line) } }
            fuzzCheck(reader.partialCount < reader.maxLineBytes, "the partial line outgrew the cap")
        }
        while let line = reader.next() { lines.append(line) }
        return (lines, nil)
    }

    static func parse(_ line: [UInt8]) {
        let first = Result { () throws(ControlError) in try ControlRequest.parse(line) }
        let second = Result { () throws(ControlError) in try ControlRequest.parse(line) }
        fuzzCheck(first == second, "parsing the same line twice differs")
        switch first {
        case .failure(let error):
            fuzzCheck(!error.description.contains("\n") && !error.description.isEmpty, "an error that is not one line: \(error)")
        case .success(.invalidate(let id?)):
            let again = try? ControlRequest.parse(Array("invalidate \(ControlWords.quoted(id))".utf8))
            fuzzCheck(again == .invalidate(parentId: id), "the id '\(id)' did not survive being written back")
        case .success(.session(.playFromMediaId(let id, _))):
            let again = try? ControlRequest.parse(Array("session play-id \(ControlWords.quoted(id))".utf8))
            fuzzCheck(again == .session(.playFromMediaId(id)), "the media id '\(id)' did not survive being written back")
        case .success:
            break
        }
    }

    static func readAnswer(_ input: [UInt8], _ split: [Range<Int>]) {
        var reader = ControlResponseReader()
        for range in split {
            do {
                if try reader.append(input[range]) != nil { return }
            } catch {
                fuzzCheck(!error.description.contains("\n"), "an error that is not one line: \(error)")
                return
            }
        }
    }

    /// `text` with every line feed and carriage return a space, scalar by scalar (what an answer
    /// line must read back as). A text without either (found by `memchr`, outside the comparison
    /// hooks) is itself.
    static func oneLine(_ text: String) -> String {
        var text = text
        let plain = text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return true }
            return memchr(base, 0x0A, utf8.count) == nil && memchr(base, 0x0D, utf8.count) == nil
        }
        return plain ? text : String(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) })
    }

    static func roundTripAnswer(_ lines: [[UInt8]]) {
        let text = lines.prefix(16).map { String(decoding: $0, as: UTF8.self) }
        for response in [ControlResponse.ok(text), .error(text.first ?? "")] {
            let bytes = response.encoded
            var reader = ControlResponseReader()
            var got: ControlResponse?
            for range in splits(bytes) {
                do {
                    if let answer = try reader.append(bytes[range]) { got = answer }
                } catch {
                    // A line over the client's cap cannot come from 16 request lines.
                    fuzzViolation("an encoded answer was refused: \(error)")
                    return
                }
            }
            let expected: ControlResponse =
                switch response {
                case .ok(let lines): .ok(lines.map(oneLine))
                case .error(let text): .error(oneLine(text))
                }
            fuzzCheck(got == expected, "an answer did not survive encoding: \(response) came back as \(String(describing: got))")
        }
    }
}
