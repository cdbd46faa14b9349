import DashportFuzzSupport
import Foundation
import Synchronization
public import Testing

/// Runs the shared fuzz drivers (tools/fuzz: DashportFuzzDrivers, DashportFuzzLinkDrivers) in a test: a broken invariant becomes an
/// issue naming the replayed input, or is collected to check that the checks fire.
public enum FuzzReplay {
    /// Runs `body` (a driver on the input called `name`), recording each violation as an issue.
    public static func run(_ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () -> Void) {
        FuzzInvariant.$handler.withValue({ Issue.record("\(name): \($0)", sourceLocation: sourceLocation) }) { body() }
    }

    /// The inputs kept in the `FuzzCrashes/` folder next to the calling test file (inputs that once
    /// crashed a fuzz target, and hand-made `seed-*` ones), sorted by name; hidden files and notes
    /// (`*.md`) are not inputs.
    public static func keptInputs(filePath: String = #filePath) throws -> [(name: String, bytes: [UInt8])] {
        let directory = keptInputsDirectory(filePath)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
            .sorted()
        return try names.map { ($0, try keptInput($0, filePath: filePath)) }
    }

    /// One kept input by name, from the `FuzzCrashes/` folder next to the calling test file.
    public static func keptInput(_ name: String, filePath: String = #filePath) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: keptInputsDirectory(filePath) + "/" + name)))
    }

    private static func keptInputsDirectory(_ filePath: String) -> String {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("FuzzCrashes").path
    }

    /// Runs `body` and returns the violations the driver reported during it.
    public static func violations(during body: () -> Void) -> [String] {
        let collected = Mutex<[String]>([])
        FuzzInvariant.$handler.withValue({ message in collected.withLock { $0.append(message) } }) { body() }
        return collected.withLock { $0 }
    }
}
