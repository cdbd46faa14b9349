import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// The discovery response as a typed car description (aap-protocol.md §3.2, §3.3).
@Suite struct CarDescriptionTests {
    /// Identity comes from field 17 where set, else from the deprecated fields, field by field.
    @Test func identityPrefersHeadUnitInfo() {
        var response = AAP.ServiceDiscoveryResponse()
        response.make = "Old Make"
        response.model = "Old Model"
        response.year = "2014"
        response.headUnitSoftwareVersion = "old-sw"
        response.headunitInfo = AAP.HeadUnitInfo(make: "New Make", model: "New Model", headUnitMake: "JVC")

        let (car, problems) = CarDescription.parse(response)
        #expect(problems.isEmpty)
        #expect(
            car.identity
                == HeadUnitIdentity(
                    make: "New Make", model: "New Model", year: "2014",
                    headUnitMake: "JVC", headUnitSoftwareVersion: "old-sw"
                ))
    }

    /// Without field 17 the deprecated fields 2–10 are the identity (older head units).
    @Test func identityFallsBackToDeprecatedFields() {
        let response = AAP.ServiceDiscoveryResponse(
            make: "OpenAuto", model: "Universal", year: "2018", vehicleId: "20180301",
            driverPosition: .right, headUnitMake: "f1x", headUnitModel: "OpenAuto Autoapp",
            headUnitSoftwareBuild: "1", headUnitSoftwareVersion: "1.0"
        )
        let (car, _) = CarDescription.parse(response)
        #expect(car.identity.make == "OpenAuto")
        #expect(car.identity.vehicleId == "20180301")
        #expect(car.identity.headUnitModel == "OpenAuto Autoapp")
        #expect(car.driverPosition == .right)
        #expect(car.services.isEmpty)
    }

    /// Every service kind is recognised by the field that is present.
    @Test func serviceKindsFromTheirFields() {
        var sink = AAP.Service(id: 4)
        sink.mediaSinkService = AAP.MediaSinkService(availableType: .audioPcm, audioType: .media)
        var sensor = AAP.Service(id: 1)
        sensor.sensorSourceService = AAP.SensorSourceService(sensors: [AAP.Sensor(sensorType: .drivingStatus)])
        var input = AAP.Service(id: 8)
        input.inputSourceService = AAP.InputSourceService(keycodesSupported: [85, 87])
        var vendor = AAP.Service(id: 16)
        vendor.vendorExtensionService = AAP.VendorExtensionService(name: "dashport.media", data: [1, 2, 3])
        var radio = AAP.Service(id: 11)
        radio.radioService = AAP.RadioService()
        let bare = AAP.Service(id: 20)

        let (car, _) = CarDescription.parse(AAP.ServiceDiscoveryResponse(channels: [sink, sensor, input, vendor, radio, bare]))
        #expect(
            car.services.map(\.kind) == [
                .mediaSink(audioType: .media, codec: .audioPcm),
                .sensor(types: [.drivingStatus]),
                .input(keycodes: [85, 87]),
                .vendorExtension(name: "dashport.media", data: [1, 2, 3]),
                .other(field: 7),
                .other(field: 0),
            ])
        #expect(car.services.map(\.channel) == [4, 1, 8, 16, 11, 20])
        #expect(car.service(onChannel: 16)?.kind == .vendorExtension(name: "dashport.media", data: [1, 2, 3]))
        #expect(car.service(onChannel: 2) == nil)
    }

    /// Ids that cannot be a service channel, and repeated ids, are skipped with a reason.
    @Test func impossibleAndRepeatedChannelIdsAreSkipped() {
        var status = AAP.Service(id: 13)
        status.mediaPlaybackService = AAP.MediaPlaybackStatusService()
        var browser = AAP.Service(id: 13)
        browser.mediaBrowserService = AAP.MediaBrowserService()
        let control = AAP.Service(id: 0)
        let negative = AAP.Service(id: -1)
        let huge = AAP.Service(id: 256)

        let (car, problems) = CarDescription.parse(AAP.ServiceDiscoveryResponse(channels: [status, control, browser, negative, huge]))
        #expect(car.services == [CarService(channel: 13, kind: .mediaPlaybackStatus)])
        #expect(problems.count == 4)
    }

    /// The ping configuration is read in milliseconds.
    @Test func pingConfigurationIsTyped() {
        let ping = AAP.PingConfiguration(timeoutMs: 3000, intervalMs: 1000, highLatencyThresholdMs: 200, trackedPingCount: 5)
        let response = AAP.ServiceDiscoveryResponse(connectionConfiguration: AAP.ConnectionConfiguration(pingConfiguration: ping))
        let (car, _) = CarDescription.parse(response)
        #expect(
            car.ping
                == CarPingConfiguration(
                    timeout: .seconds(3), interval: .seconds(1), highLatencyThreshold: .milliseconds(200), trackedPingCount: 5
                ))
    }

    /// What the emulated head unit encodes parses back to the same description, through bytes.
    @Test func headUnitEncodingRoundTrips() throws {
        var car = HeadUnitConfiguration.aasdkLikeCar
        car.displayName = "Dashboard"
        car.ping = CarPingConfiguration(interval: .milliseconds(1500), trackedPingCount: 3)
        car.services += [
            CarService(channel: 3, kind: .mediaSink(audioType: nil, codec: .videoH264Bp)),
            CarService(channel: 2, kind: .sensor(types: [.location, .nightMode])),
            CarService(channel: 9, kind: .other(field: 6)),
        ]
        let bytes = AAP.ServiceDiscoveryResponse(describing: car).serializedBytes()
        let (parsed, problems) = CarDescription.parse(try AAP.ServiceDiscoveryResponse(serializedBytes: bytes))
        #expect(problems.isEmpty)
        #expect(parsed == car)
    }
}
