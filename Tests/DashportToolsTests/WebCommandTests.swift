@testable import dashport_hu
import DashportCommandLine
import Testing

/// `dashport-hu web`: its table, and the loopback rule before anything connects.
@Suite struct WebCommandTests {
    @Test func itsTableListsTheWebOptions() {
        let help = WebCommand.spec.help
        for option in ["--listen ADDR", "--allow-remote", "--open", "--record-dir DIR", "--page-size N", "--usb", "--legacy"] {
            #expect(help.contains("  \(option)"), "\(option)")
        }
    }

    @Test func anotherAddressThanLoopbackIsRefusedUnlessAllowed() async {
        // Refused before the car connects (nothing listens on port 1).
        #expect(await WebCommand.run(["127.0.0.1:1", "--listen", "0.0.0.0:0"]) == 1)
        #expect(await WebCommand.run(["127.0.0.1:1", "--listen", "[::]:0"]) == 1)
    }

    @Test func usageMistakesAreStatus2() async {
        #expect(await WebCommand.run(["127.0.0.1:1", "--listen", "nowhere"]) == 2)
        #expect(await WebCommand.run(["--listen", "127.0.0.1:0"]) == 2)
        #expect(await WebCommand.run(["127.0.0.1:1", "--page-size", "0"]) == 2)
        #expect(await WebCommand.run(["127.0.0.1:1", "--frobnicate"]) == 2)
    }
}
