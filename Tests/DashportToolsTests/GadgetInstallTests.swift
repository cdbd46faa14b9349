import Foundation
import Testing

/// `tools/usb-gadget/install`'s Raspberry Pi step (issue 21, item 2), run as the script runs it
/// (`--config-only COPY --board BOARD`, no root) on copies of the stock bookworm config.txt
/// (Fixtures/usb-gadget/: one file for every board; the firmware picks sections by board).
@Suite struct GadgetInstallTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("tools/usb-gadget/install").path
    static let stock = root.appendingPathComponent("Fixtures/usb-gadget/config-bookworm.txt").path
    static let peripheral = "dtoverlay=dwc2,dr_mode=peripheral"

    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs the script with `arguments`; waits for it to exit (it only edits a file or prints).
    static func install(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// A copy of `text` as a config.txt in a fresh directory.
    static func copy(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("config.txt").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The stock file's `[cm5] dtoverlay=dwc2,dr_mode=host` is not this board's: the peripheral
    /// overlay is added under [all], the rest of the file is untouched, and a second run changes nothing.
    @Test(arguments: ["pi4", "pi5", "pi02"])
    func theStockFileGetsThePeripheralOverlayUnderAll(board: String) throws {
        let stock = try String(contentsOfFile: Self.stock, encoding: .utf8)
        #expect(stock.contains("[cm5]\ndtoverlay=dwc2,dr_mode=host\n"), "the fixture is the stock file")
        let config = try Self.copy(stock)
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        let run = try Self.install(["--config-only", config, "--board", board])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("added \(Self.peripheral) under [all]"), "\(run.output)")
        let edited = try String(contentsOfFile: config, encoding: .utf8)
        #expect(edited.hasPrefix(stock))
        #expect(try Self.lines(config).suffix(3) == ["[all]", Self.peripheral, ""])
        #expect(edited.contains("[cm5]\ndtoverlay=dwc2,dr_mode=host\n"), "another board's section stays as it was")

        let again = try Self.install(["--config-only", config, "--board", board])
        #expect(again.status == 0)
        #expect(again.output.contains("already turns on dwc2"), "\(again.output)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == edited)
    }

    /// On a CM5 the stock host-mode overlay is its own: commented out, then peripheral added.
    /// On a CM4, `otg_mode=1` (its XHCI host) is what takes the port.
    @Test(arguments: [("cm5", "dtoverlay=dwc2,dr_mode=host"), ("cm4", "otg_mode=1")])
    func aHostModeLineOfTheBoardsOwnSectionIsCommentedOut(board: String, line: String) throws {
        let config = try Self.copy(try String(contentsOfFile: Self.stock, encoding: .utf8))
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        let run = try Self.install(["--config-only", config, "--board", board])
        #expect(run.status == 0, "\(run.output)")
        let lines = try Self.lines(config)
        #expect(!lines.contains(line))
        #expect(lines.contains { $0.hasPrefix("#\(line)  # dashport:") })
        #expect(lines.suffix(3) == ["[all]", Self.peripheral, ""])
        #expect(FileManager.default.fileExists(atPath: config + ".dashport-backup"))
    }

    /// A dwc2 overlay in peripheral or otg mode (otg: the overlay's default) that applies on the
    /// board is enough; one under another board's section is not.
    @Test func anActiveOverlayIsKeptAndAnotherBoardsIsNot() throws {
        let text = "dtparam=audio=on\n[pi4]\ndtoverlay=dwc2\n[pi02]\ndtoverlay=dwc2,dr_mode=otg\n[all]\n"
        for (board, added) in [("pi4", false), ("pi02", false), ("pi5", true)] {
            let config = try Self.copy(text)
            defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
            let run = try Self.install(["--config-only", config, "--board", board])
            #expect(run.status == 0, "\(run.output)")
            #expect(try String(contentsOfFile: config, encoding: .utf8).contains(Self.peripheral) == added, "\(board)")
        }
    }

    @Test func anUnknownBoardIsAUsageError() throws {
        let config = try Self.copy("[all]\n")
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        let run = try Self.install(["--config-only", config, "--board", "pi3"])
        #expect(run.status == 2)
        #expect(run.output.contains("unknown board \"pi3\""))
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "[all]\n")
    }

    /// `--help` prints the usage and exits, as root or not: it never builds or installs.
    @Test func helpPrintsTheUsageAndDoesNothingElse() throws {
        let run = try Self.install(["--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("--config-only FILE --board BOARD"))
        #expect(run.output.contains("--swift PATH"))
        #expect(run.output.contains("--mpd"))
        #expect(run.output.contains("BOARD is pi4"))
        #expect(!run.output.contains("building"))
    }

    /// Issue 19: `--mpd` makes the installed service serve MPD's library (its socket in /run/mpd, as
    /// tools/mpd/mpd.conf binds it); without it the service is as before.
    @Test func theMPDFlagServesMPDsSocket() throws {
        let plain = try Self.install(["--print-defaults"])
        #expect(plain.status == 0)
        #expect(plain.output.contains("DASHPORT_ARGS=\"--state-dir /var/lib/dashport\"\n"))
        let withMPD = try Self.install(["--print-defaults", "--mpd"])
        #expect(withMPD.output.contains("DASHPORT_ARGS=\"--state-dir /var/lib/dashport --mpd /run/mpd/socket\"\n"))
        // The example mpd.conf binds that socket and feeds the same state directory's audio input.
        let conf = try String(contentsOfFile: Self.root.appendingPathComponent("tools/mpd/mpd.conf").path, encoding: .utf8)
        #expect(conf.contains("bind_to_address     \"/run/mpd/socket\""))
        #expect(conf.contains("dashport audio-in --state-dir /var/lib/dashport"))
    }
}
