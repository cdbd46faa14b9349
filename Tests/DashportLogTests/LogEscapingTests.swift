import Foundation
import Testing
import DashportLog

/// Log injection (issue 11 item 6): whatever a peer puts in a message or a metadata value, a
/// formatted record is one line that cannot forge another, drive a terminal or add a `key=value`.
@Suite struct LogEscapingTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    func line(_ message: String, _ metadata: [(String, String)] = []) -> String {
        LogRecord(level: .info, label: "car", message: message, metadata: metadata).formatted(timestamp: Self.at)
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{202E}" }
    }

    @Test func aForgedLineInTheMessageStaysOnOneLine() {
        let query = "jazz\n2026-12-01T00:00:00.000Z error   car: server key stolen\r\u{1B}[2J\u{9B}31m\u{2028}\u{202E}"
        let text = line("search: \(query)")
        #expect(!Self.hasControl(text))
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 1)
        #expect(
            text.hasSuffix(#"search: jazz\n2026-12-01T00:00:00.000Z error   car: server key stolen\r\u{1b}[2J\u{9b}31m\u{2028}\u{202e}"#))
    }

    @Test func aValueCannotAddAKeyOrCloseItsQuotes() {
        let text = line("head unit discovered", [("make", #"Acme" peer=10.0.0.9 model="X"#), ("model", "A\\nB"), ("year", "")])
        #expect(text.hasSuffix(#" make="Acme\" peer=10.0.0.9 model=\"X" model="A\\nB" year="""#))
        #expect(!Self.hasControl(line("x", [("model", "Z\n\u{1B}[0m\t")])))
        #expect(line("x", [("model", "Z\n\u{1B}[0m\t")]).hasSuffix(#" model="Z\n\u{1b}[0m\t""#))
    }

    @Test func plainTextIsUnchanged() {
        #expect(
            line("channel opened", [("peer", "127.0.0.1:40112"), ("channel", "13")]).hasSuffix(
                "info    car: channel opened peer=127.0.0.1:40112 channel=13"))
        #expect(line("caf\u{E9} \u{1F697}", [("title", "Kind of Blue")]).hasSuffix(#"car: café 🚗 title="Kind of Blue""#))
        #expect(LogRecord.escaped("tab\tand newline\n") == #"tab\tand newline\n"#)
        #expect(LogRecord.escaped("no controls: \\n stays") == "no controls: \\n stays")
    }
}
