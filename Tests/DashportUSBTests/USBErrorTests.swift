import DashportServer
import DashportUSB
import Foundation
import DashportTestSupport
import Testing
import DashportLog

/// The mistakes a person makes setting up USB get an error that says what to do.
@Suite struct USBErrorTests {
    @Test func noFunctionFSMountSaysHowToMountIt() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path
        #expect(throws: USBGadgetError.notMounted(directory: directory)) { try FunctionFSDirectory(directory: directory).openControl() }
        #expect(USBGadgetError.notMounted(directory: directory).description.contains("mount -t functionfs"))
    }

    @Test func permissionErrorsSayToRunAsRoot() {
        #expect(USBGadgetError.permission(path: "/dev/ffs-dashport/ep0").description.contains("run the server as root"))
    }

    @Test func noGadgetAndNoControllerAreReportedWithTheFix() throws {
        let rootDirectory = try TemporaryDirectory()
        defer { rootDirectory.remove() }
        let root = rootDirectory.path
        #expect(throws: USBGadgetError.noGadget(directory: root + "/missing")) {
            try GadgetIdentity.resolve(directory: root + "/missing", controller: nil, udcClassDirectory: root + "/udc")
        }
        try FileManager.default.createDirectory(atPath: root + "/gadget", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/gadget/idProduct", contents: Data("0x4ee1\n".utf8))
        do {
            _ = try GadgetIdentity.resolve(directory: root + "/gadget", controller: nil, udcClassDirectory: root + "/udc")
            Issue.record("resolved a gadget without a controller")
        } catch {
            #expect(error.description.contains("dtoverlay=dwc2,dr_mode=peripheral"))
        }
        for name in ["a.usb", "b.usb"] {
            try FileManager.default.createDirectory(atPath: root + "/udc/" + name, withIntermediateDirectories: true)
        }
        do {
            _ = try GadgetIdentity.resolve(directory: root + "/gadget", controller: nil, udcClassDirectory: root + "/udc")
            Issue.record("picked one of two controllers")
        } catch {
            #expect(error.description.contains("--usb-udc"))
        }
        let chosen = try GadgetIdentity.resolve(directory: root + "/gadget", controller: "b.usb", udcClassDirectory: root + "/udc")
        #expect(chosen.controller == "b.usb")
        #expect(throws: USBGadgetError.self) {
            try GadgetIdentity.resolve(directory: root + "/gadget", controller: "c.usb", udcClassDirectory: root + "/udc")
        }
    }

    @Test func theUSBOptionsParseInAnyOrderAndSwitchModeNeedsConfigfs() throws {
        let config = try ConfigurationParser.parse(arguments: [
            "--usb-mode", "direct", "--usb-udc", "dummy_udc.0", "--usb-gadget", "/dev/ffs-dashport",
        ])
        var expected = USBGadgetConfiguration(functionFSDirectory: "/dev/ffs-dashport")
        expected.mode = .direct
        expected.controller = "dummy_udc.0"
        #expect(config.usbGadget == expected)
        try config.validate()

        let switching = try ConfigurationParser.parse(arguments: ["--usb-gadget", "/dev/ffs-dashport"])
        #expect(throws: ConfigurationError.self) { try switching.validate() }
        #expect(throws: ConfigurationError.self) {
            try ConfigurationParser.parse(arguments: ["--usb-configfs", "/sys/kernel/config/usb_gadget/x", "--usb-mode", "direct"])
                .validate()
        }
        #expect(throws: ConfigurationError.self) {
            try ConfigurationParser.parse(arguments: ["--usb-gadget", "/d", "--usb-mode", "sideways"])
        }
        #expect(try ConfigurationParser.parse(arguments: []).usbGadget == nil)
    }

    @Test func aServerWhoseGadgetCannotStartRefusesToStartAndSaysWhy() async throws {
        let stateDirectory = try TemporaryDirectory()
        defer { stateDirectory.remove() }
        let state = stateDirectory.path
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = state
        var usb = USBGadgetConfiguration(functionFSDirectory: state + "/no-ffs")
        usb.mode = .direct
        configuration.usbGadget = usb
        do {
            let server = try await DashportServer.start(configuration: configuration, logger: .silent)
            await server.stop()
            Issue.record("started without FunctionFS")
        } catch {
            #expect("\(error)".contains("no FunctionFS at \(state)/no-ffs"))
        }
    }
}
