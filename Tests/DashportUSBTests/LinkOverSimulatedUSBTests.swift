import DashportEmulator
import DashportHeadUnit
import DashportLog
import DashportServer
import DashportTestSupport
import DashportTransport
import DashportUSB
import DashportUSBHost
import Foundation
import Testing
import DashportLink

/// The whole stack over the simulated FunctionFS endpoints: the real server drives the gadget's
/// sessions exactly as it drives TCP connections; the car is the emulator's client over
/// ``USBHostStream`` on the other ends of the simulated bulk pipes.
@Suite(.serialized) struct LinkOverSimulatedUSBTests {
    struct Setup {
        let server: DashportServer
        let endpoints: SimulatedEndpoints
        let gadget: FunctionFSGadget
        let log: CollectingSink
        let directory: String

        func stop() async {
            await server.stop(grace: .seconds(2))
            endpoints.close()
            #expect(gadget.waitForThreads(timeout: .seconds(10)))
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func serve() async throws -> Setup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-usb-\(UUID().uuidString)").path
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = directory
        configuration.handshakeTimeoutSeconds = Double(patientHandshakeDeadline.components.seconds)  // as TestServer's
        let log = CollectingSink()
        let logger = Logger(label: "server", level: .debug, sink: log)
        let server = try await DashportServer.start(configuration: configuration, logger: logger)
        let endpoints = SimulatedEndpoints()
        let gadget = FunctionFSGadget(endpoints: endpoints, identity: nil, options: .init(mode: .direct), logger: logger)
        try server.serveUSB(gadget)
        _ = endpoints.readControl(66 + 46)
        endpoints.post(.bind)
        endpoints.post(.enable)
        return Setup(server: server, endpoints: endpoints, gadget: gadget, log: log, directory: directory)
    }

    /// The car's TLS context, made once: RSA key generation is slow on a loaded machine.
    static let carContext = Result { try HeadUnitClient.makeContext() }

    static func car(_ setup: Setup) async throws -> HeadUnitClient {
        let context = try carContext.get()
        let stream = USBHostStream.open(setup.endpoints.carPipe, peer: "simulated phone")
        let configuration = HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient
        return try await HeadUnitClient.start(on: stream, configuration: configuration, context: context)
    }

    @Test func aCarLinksBrowsesFetchesACoverAndPlaysOverUSB() async throws {
        let setup = try await Self.serve()
        let client = try await Self.car(setup)
        let artDirectory = try TemporaryDirectory()
        defer { artDirectory.remove() }
        let art = artDirectory.file("covers")  // made by the shell when it saves the first cover
        let car = try EmulatedShell(
            client: client, timeout: .seconds(30), options: BrowseShellOptions(saveArtDirectory: art, expectTimeout: .seconds(30)))
        let (output, shell, notices) = (car.output, car.shell, car.notices)
        try await shell.start()
        try await shell.run(
            try EmulatorScript.parse(
                """
                open 2
                open 1
                art 1
                play 1
                expect * playback: playing
                pause
                expect * playback: paused
                quit
                """))
        await client.byeBye()
        #expect(await client.closed(within: .seconds(20)) == .link(.byeBye(answered: true)))
        notices.cancel()

        let lines = output.all
        #expect(lines.contains("== Albums =="))
        #expect(lines.contains { $0.hasPrefix("art ") && $0.contains("image/jpeg 256×256") })
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: art)) ?? []).count == 1)
        #expect(lines.contains("play First Light: accepted"))
        #expect(setup.log.contains(.info, "session starts: the car configured the accessory"))
        await setup.stop()
    }

    @Test func anUnplugMidMessageEndsOnlyThatSessionAndTheNextPlugInIsServed() async throws {
        let setup = try await Self.serve()
        try await eventually("the first session") { setup.server.connectionCount == 1 }
        // Half a VERSION_REQUEST frame (channel 0, FIRST|LAST, 40 bytes announced, 2 sent), then the
        // cable goes: SUSPEND, UNBIND. (Raw bytes, not a second car: the simulated pipe is one socket
        // pair, and a car writing at the same time would interleave with them.)
        setup.endpoints.carSends([0, 3, 0, 40, 1, 2])
        try await eventually("the gadget to read the half frame") { setup.endpoints.carBytesTaken }
        setup.endpoints.post(.suspend)
        setup.endpoints.post(.unbind)
        try await eventually("the session to end") { setup.server.connectionCount == 0 }
        #expect(setup.log.contains(.notice, "session ended: the USB bus was suspended"), "\(setup.log.records.map(\.message).suffix(12))")

        // Plugged in again: a new car on the same server links.
        let enabled = "the car configured the device: bulk endpoints enabled"
        let enablesBefore = setup.log.records.filter { $0.message.contains(enabled) }.count
        setup.endpoints.post(.bind)
        setup.endpoints.post(.enable)
        // A real host sends bulk data only once the device is configured; the simulated pipe would
        // take the car's VERSION_REQUEST before the gadget handled BIND, which drops what came before.
        // This plug-in's ENABLE, not the first session's (whose line is in the log already: waiting
        // for "contains" passed at once, and the car's VERSION_REQUEST was dropped with BIND's stash).
        try await eventually("the gadget to handle this ENABLE") {
            setup.log.records.filter { $0.message.contains(enabled) }.count > enablesBefore
        }
        let output = CollectedLines()
        let second = try await Self.car(setup)
        let outcome = await ConnectProbe.run(client: second, timeout: .seconds(120), transcript: Transcript { output.append($0) })
        #expect(outcome == .success(pings: ConnectProbe.wantedPings), "\(setup.log.records.map(\.message).suffix(12))")
        await setup.stop()
    }
}
