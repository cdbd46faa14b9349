import DashportMessages
import Testing

/// A ServiceDiscoveryResponse shaped like the one an aasdk head unit sends (aap-protocol.md §8 #9:
/// input on channel 8, playback status 13, media browser 15), plus a vendor extension on 16, built
/// byte by byte and decoded field by field.
@Suite struct ServiceDiscoveryTests {
    static let inputService: [UInt8] =
        Proto.field(1, bytes: [85, 87, 88, 126, 127])  // keycodes_supported, packed
        + Proto.field(2, bytes: Proto.field(1, 800) + Proto.field(2, 480) + Proto.field(3, 1))  // touchscreen

    static let mediaAudioSink: [UInt8] =
        Proto.field(1, 1) + Proto.field(2, 3)
        + Proto.field(3, bytes: Proto.field(1, 48_000) + Proto.field(2, 16) + Proto.field(3, 2))

    static let bytes: [UInt8] =
        Proto.field(1, bytes: Proto.field(1, 4) + Proto.field(3, bytes: mediaAudioSink))
        + Proto.field(1, bytes: Proto.field(1, 8) + Proto.field(4, bytes: inputService))
        + Proto.field(1, bytes: Proto.field(1, 13) + Proto.field(9, bytes: []))
        + Proto.field(1, bytes: Proto.field(1, 15) + Proto.field(11, bytes: []))
        + Proto.field(
            1,
            bytes: Proto.field(1, 16)
                + Proto.field(
                    12,
                    bytes:
                        Proto.field(1, "dashport.media") + Proto.field(2, "org.example") + Proto.field(3, bytes: [0xCA, 0xFE])))
        // A service with a field this schema leaves undeclared (bluetooth car_address) still decodes.
        + Proto.field(1, bytes: Proto.field(1, 10) + Proto.field(6, bytes: Proto.field(1, "00:11:22:33:44:55")))
        + Proto.field(2, "OpenAuto") + Proto.field(6, 0)
        + Proto.field(
            16,
            bytes: Proto.field(
                1,
                bytes: Proto.field(1, 3000) + Proto.field(2, 1000)
                    + Proto.field(3, 200) + Proto.field(4, 5)))
        + Proto.field(17, bytes: Proto.field(1, "Universal") + Proto.field(5, "f1x") + Proto.field(8, "1.0"))

    @Test func decodesFieldByField() throws {
        let response = try AAP.ServiceDiscoveryResponse(serializedBytes: Self.bytes)
        #expect(response.channels.map(\.id) == [4, 8, 13, 15, 16, 10])

        let sink = try #require(response.channels[0].mediaSinkService)
        #expect(sink.availableType == .audioPcm)
        #expect(sink.audioType == .media)
        #expect(sink.audioConfigs == [AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2)])

        let input = try #require(response.channels[1].inputSourceService)
        #expect(input.keycodesSupported == [85, 87, 88, 126, 127])
        #expect(input.touchscreen == [.init(width: 800, height: 480, type: .capacitive)])
        #expect(response.channels[1].mediaSinkService == nil)

        #expect(response.channels[2].mediaPlaybackService == AAP.MediaPlaybackStatusService())
        #expect(response.channels[3].mediaBrowserService == AAP.MediaBrowserService())
        #expect(response.channels[3].mediaPlaybackService == nil)

        let vendor = try #require(response.channels[4].vendorExtensionService)
        #expect(vendor.name == "dashport.media")
        #expect(vendor.packageWhiteList == ["org.example"])
        #expect(vendor.data == [0xCA, 0xFE])

        #expect(response.channels[5].bluetoothService == AAP.BluetoothService())

        #expect(response.make == "OpenAuto")
        #expect(response.model == nil)
        #expect(response.driverPosition == .left)
        let ping = try #require(response.connectionConfiguration?.pingConfiguration)
        #expect(ping == AAP.PingConfiguration(timeoutMs: 3000, intervalMs: 1000, highLatencyThresholdMs: 200, trackedPingCount: 5))
        #expect(response.headunitInfo == AAP.HeadUnitInfo(make: "Universal", headUnitMake: "f1x", headUnitSoftwareVersion: "1.0"))
    }

    @Test func reencodesToTheSameBytesWhenNothingIsUnknown() throws {
        // Without the bluetooth entry (its undeclared field is dropped), our encoding is byte-identical.
        let bluetooth = Proto.field(1, bytes: Proto.field(1, 10) + Proto.field(6, bytes: Proto.field(1, "00:11:22:33:44:55")))
        let known = try #require(Self.bytes.firstRange(of: bluetooth)).lowerBound
        let bytes = Array(Self.bytes[..<known]) + Array(Self.bytes[(known + bluetooth.count)...])
        let response = try AAP.ServiceDiscoveryResponse(serializedBytes: bytes)
        #expect(response.serializedBytes() == bytes)
    }
}
