import DashportHeadUnit
import DashportLog
import DashportServer
import Foundation
import Testing

/// `dashport-hu connect` against the real server, started in-process on 127.0.0.1 (any port) with
/// its own state directory and the embedded demo library.
@Suite(.serialized) struct RealServerTests {
    @Test func connectNegotiatesWithTheServerAndSaysByeBye() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-hu-server-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.listen = "127.0.0.1:0"
        serverConfiguration.stateDirectory = directory
        let server = try await DashportServer.start(
            configuration: serverConfiguration, logger: Logger(label: "server", level: .error, sink: CollectingSink()))

        let output = CollectedLines()
        let outcome = await ConnectProbe.run(
            address: server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile),
            identity: try TestTLS.carIdentity.get(), timeout: .seconds(30), transcript: Transcript { output.append($0) })
        await server.stop(grace: .seconds(2))

        #expect(outcome == .success(pings: 2))
        let lines = output.all
        #expect(lines.contains("version: the phone answered AAP 1.6"))
        #expect(lines.contains { $0.hasPrefix("tls: TLSv1.2 ECDHE-RSA-AES") && $0.contains("-GCM-SHA") })
        #expect(lines.contains("server certificate sha256: \(server.certificateFingerprint)"))
        for channel in ["channel 8 opened: input (6 keys)", "channel 13 opened: media playback status",
                        "channel 15 opened: media browser"] {
            #expect(lines.contains(channel))
        }
        #expect(lines.contains { $0.hasPrefix("channel 16 opened: dashport.media") })
        #expect(lines.contains("key binding requested: 85 86 87 88 126 127"))
        #expect(lines.last == "bye-bye answered; done")
    }
}
