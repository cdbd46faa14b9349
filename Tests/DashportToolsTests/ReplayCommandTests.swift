@testable import dashport_hu
import DashportCommandLine
import DashportTransport
import Foundation
import Testing

/// `dashport-hu replay`'s command line (issue 21, item 5): a recording that cannot be read is one
/// line naming it, and `--serve` takes the recording alone.
@Suite struct ReplayCommandTests {
    @Test func aMissingRecordingIsOneLine() {
        #expect(throws: ReplayCommandError.self) { try ReplayCommand.read("/nonexistent/x.jsonl") }
        do {
            _ = try ReplayCommand.read("/nonexistent/x.jsonl")
        } catch {
            #expect(error.description == "/nonexistent/x.jsonl: no such recording")
        }
        do {
            _ = try ReplayCommand.read(FileManager.default.temporaryDirectory.path)
        } catch {
            #expect(error.description == "\(FileManager.default.temporaryDirectory.path) is a directory, not a recording")
            #expect(!error.description.contains("\n") && !error.description.contains("NSCocoaErrorDomain"))
        }
    }

    @Test func serveTakesTheRecordingAloneAndHostPortOtherwise() throws {
        #expect(try ReplayCommand.target(try Arguments(["x.jsonl", "--serve"], spec: ReplayCommand.spec)) == nil)
        let address = try ReplayCommand.target(try Arguments(["x.jsonl", "127.0.0.1:5277"], spec: ReplayCommand.spec))
        #expect(address?.description == "127.0.0.1:5277")
        for arguments in [["x.jsonl", "127.0.0.1:5277", "--serve"], ["x.jsonl"], ["x.jsonl", "h:1", "--dashport", "/bin/true"]] {
            #expect(throws: UsageError.self, "\(arguments)") {
                try ReplayCommand.target(try Arguments(arguments, spec: ReplayCommand.spec))
            }
        }
    }
}
