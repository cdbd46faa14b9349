import Foundation
import Synchronization
import Testing
import DashportControl

/// Replays every input kept in `FuzzCrashes/` through the fuzzer's own driver (`FuzzDriver/` links
/// to `tools/fuzz/FuzzControl/ControlFuzz.swift`): a broken invariant is an issue here instead of a trap.
@Suite struct FuzzReplayTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCrashes")

    @Test func everyKeptInputKeepsTheInvariants() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { !$0.hasPrefix(".") }.sorted()
        try #require(!names.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for name in names {
            let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
            let broken = FuzzReplay.violations { ControlFuzz.run(bytes) }
            #expect(broken.isEmpty, "\(name): \(broken)")
        }
    }

    @Test func theChecksFire() {
        // The driver really checks: an answer that does not survive would be reported.
        let none = FuzzReplay.violations { ControlFuzz.run(Array("status\ninvalidate \"a b\"\n".utf8)) }
        #expect(none.isEmpty)
        let some = FuzzReplay.violations { fuzzViolation("planted") }
        #expect(some == ["planted"])
    }
}

/// Collects the driver's violations instead of trapping.
enum FuzzReplay {
    static let collected = Mutex<[String]?>(nil)

    static func violations(_ body: () -> Void) -> [String] {
        collected.withLock { $0 = [] }
        body()
        return collected.withLock { state in
            defer { state = nil }
            return state ?? []
        }
    }
}

func fuzzViolation(_ message: String) {
    let kept = FuzzReplay.collected.withLock { state -> Bool in
        guard state != nil else { return false }
        state?.append(message)
        return true
    }
    if !kept { Issue.record("FuzzControl invariant: \(message)") }
}
