// The FuzzMPD driver: arbitrary bytes as what an MPD server sends, and as arguments a client sends.
import DashportMPD

/// Feeds the input to ``MPDResponseParser`` (byte 0 picks default or tight limits) and checks
/// (through `fuzzViolation`: a trap under libFuzzer, an issue in the replay test):
/// - whole, in input-derived splits and byte by byte the parser fails with the same error, or gives
///   the same events (bounds and all: splitting never lets a line, an answer or a chunk pass a cap);
/// - nothing it keeps passes a bound: buffered bytes within the line cap, binary chunks within the
///   binary cap, fields with a non-empty key and `binary` only with a chunk;
/// - every answer, written back the way MPD writes it (fields, `list_OK` at the boundaries, the
///   chunk after its `binary:` line, `OK`), parses to the same answer; an ACK written back parses
///   to the same ACK;
/// - the input's lines as command arguments either are refused (newline, NUL, too long) or encode
///   to one line that MPD's tokenizer (modelled here) reads back as the same name and arguments.
public enum MPDFuzz {
    public static func run(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        let body = Array(input.dropFirst())
        let limits =
            mode & 1 == 0
            ? MPDLimits() : MPDLimits(maxLineBytes: 64, maxResponseBytes: 512, maxBinaryBytes: Int(mode >> 1) + 1)
        let whole = parse([body[...]], limits: limits)
        let split = parse(splits(body).map { body[$0] }, limits: limits)
        let bytewise = parse(body.indices.map { body[$0...$0] }, limits: limits)
        // A failed feed returns no events (the connection closes), so only whole runs compare events.
        fuzzCheck(whole.error == split.error && whole.error == bytewise.error, "split parsing fails differently from whole parsing")
        if whole.error == nil {
            fuzzCheck(whole.events == split.events, "split parsing differs from whole parsing")
            fuzzCheck(whole.events == bytewise.events, "byte-by-byte parsing differs from whole parsing")
        }
        fuzzCheck(whole.maxBuffered <= limits.maxLineBytes + 1, "\(whole.maxBuffered) bytes buffered, over the line cap")
        for event in whole.events { check(event, limits: limits) }
        encodeArguments(body)
    }

    struct Parsed {
        var events: [MPDEvent] = []
        var error: MPDProtocolError?
        var maxBuffered = 0
    }

    static func parse(_ chunks: [ArraySlice<UInt8>], limits: MPDLimits) -> Parsed {
        var parser = MPDResponseParser(limits: limits)
        var parsed = Parsed()
        for chunk in chunks {
            do throws(MPDProtocolError) {
                parsed.events += try parser.feed(chunk)
                parsed.maxBuffered = max(parsed.maxBuffered, parser.bufferedBytes)
            } catch {
                parsed.error = error
                return parsed
            }
        }
        return parsed
    }

    static func splits(_ input: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, byte) in input.enumerated() where byte & 7 == 5 {
            ranges.append(start..<(index + 1))
            start = index + 1
        }
        if start < input.count { ranges.append(start..<input.count) }
        return ranges
    }

    static func check(_ event: MPDEvent, limits: MPDLimits) {
        switch event {
        case .greeting: break
        case .ack(let ack):
            let line = "ACK [\(ack.code)@\(ack.index)] {\(ack.command)} \(ack.message)\n"
            let again = parse([Array(("OK MPD 0.23.5\n" + line).utf8)[...]], limits: MPDLimits())
            fuzzCheck(again.events.dropFirst() == [.ack(ack)][...], "an ACK written back parses differently: \(line)")
        case .response(let response):
            fuzzCheck(response.fields.allSatisfy { !$0.key.isEmpty }, "a field with an empty key")
            fuzzCheck((response.binary != nil) == response.fields.contains { $0.key == "binary" }, "binary bytes without their field")
            if let binary = response.binary { fuzzCheck(binary.count <= limits.maxBinaryBytes, "a chunk over the binary cap") }
            fuzzCheck(response.listBoundaries == response.listBoundaries.sorted(), "list boundaries out of order")
            var bytes = Array("OK MPD 0.23.5\n".utf8)
            var boundaries = response.listBoundaries[...]
            for (index, field) in response.fields.enumerated() {
                while boundaries.first == index {
                    bytes += Array("list_OK\n".utf8)
                    boundaries = boundaries.dropFirst()
                }
                bytes += Array("\(field.key): \(field.value)\n".utf8)
                if field.key == "binary", let binary = response.binary { bytes += binary + [0x0A] }
            }
            for _ in boundaries { bytes += Array("list_OK\n".utf8) }
            bytes += Array("OK\n".utf8)
            let again = parse([bytes[...]], limits: MPDLimits(maxLineBytes: .max, maxResponseBytes: .max, maxBinaryBytes: .max))
            fuzzCheck(
                again.error == nil && again.events.dropFirst() == [.response(response)][...],
                "an answer written back parses differently (\(again.error.map { "\($0)" } ?? "other events"))")
        }
    }

    /// The input's lines as arguments of one command; a sendable one must read back the same.
    static func encodeArguments(_ body: [UInt8]) {
        let arguments = body.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(8).map {
            String(decoding: $0, as: UTF8.self)
        }
        let command = MPDCommand("find", arguments: Array(arguments))
        guard let line = try? command.encoded() else { return }
        fuzzCheck(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A }, "an encoded command is not one line")
        fuzzCheck(line.count <= MPDCommand.maxLineBytes, "an encoded command over the line cap")
        let words = tokenize(Array(line.dropLast()))
        fuzzCheck(words == ["find"] + arguments, "an encoded command reads back as other words")
    }

    /// MPD's tokenizer (`Tokenizer.cxx`), as far as a client's lines need: an unquoted word, then
    /// double-quoted strings in which `\` escapes the next byte.
    static func tokenize(_ line: [UInt8]) -> [String]? {
        var words: [String] = []
        var index = 0
        var word: [UInt8] = []
        while index < line.count, line[index] != 0x20 {
            word.append(line[index])
            index += 1
        }
        words.append(String(decoding: word, as: UTF8.self))
        while index < line.count {
            guard line[index] == 0x20, index + 1 < line.count, line[index + 1] == 0x22 else { return nil }
            index += 2
            word = []
            while true {
                guard index < line.count else { return nil }
                let byte = line[index]
                index += 1
                if byte == 0x22 { break }
                if byte == 0x5C {
                    guard index < line.count else { return nil }
                    word.append(line[index])
                    index += 1
                } else {
                    word.append(byte)
                }
            }
            words.append(String(decoding: word, as: UTF8.self))
        }
        return words
    }
}
