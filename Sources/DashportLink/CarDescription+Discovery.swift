public import DashportMessages

extension CarDescription {
    /// The typed view of a SERVICE_DISCOVERY_RESPONSE, plus a line for every entry it skipped.
    ///
    /// Entries are skipped, never fatal, when their id cannot be a service channel (0 is the
    /// control channel; ids must fit the 8-bit channel byte) or repeats an earlier entry's id.
    /// Identity strings come from field 17 (`HeadUnitInfo`) where set, else from fields 2–10.
    public static func parse(_ response: AAP.ServiceDiscoveryResponse) -> (CarDescription, problems: [String]) {
        var problems: [String] = []
        var services: [CarService] = []
        var seen: Set<UInt8> = []
        for (index, entry) in response.channels.enumerated() {
            guard let channel = UInt8(exactly: entry.id), channel != 0 else {
                problems.append("service #\(index) has id \(entry.id), which is not a service channel (1...255)")
                continue
            }
            guard seen.insert(channel).inserted else {
                problems.append("service #\(index) repeats channel \(channel); the first entry wins")
                continue
            }
            services.append(CarService(channel: channel, kind: CarService.Kind(entry)))
        }
        let description = CarDescription(
            identity: HeadUnitIdentity(response),
            driverPosition: response.driverPosition.map(DriverPosition.init),
            displayName: response.displayName,
            ping: response.connectionConfiguration?.pingConfiguration.map(CarPingConfiguration.init),
            services: services
        )
        return (description, problems)
    }
}

extension CarService.Kind {
    /// The kind named by whichever of `Service` fields 2–14 is present (the first, if several are).
    init(_ service: AAP.Service) {
        if let sensors = service.sensorSourceService {
            self = .sensor(types: sensors.sensors.map(\.sensorType))
        } else if let sink = service.mediaSinkService {
            self = .mediaSink(audioType: sink.audioType, codec: sink.availableType, audioConfigs: sink.audioConfigs)
        } else if let input = service.inputSourceService {
            self = .input(keycodes: input.keycodesSupported)
        } else if service.mediaPlaybackService != nil {
            self = .mediaPlaybackStatus
        } else if service.mediaBrowserService != nil {
            self = .mediaBrowser
        } else if let vendor = service.vendorExtensionService {
            self = .vendorExtension(name: vendor.name, data: vendor.data ?? [])
        } else {
            self = .other(field: Self.otherField(service))
        }
    }

    private static func otherField(_ service: AAP.Service) -> Int {
        if service.mediaSourceService != nil { return 5 }
        if service.bluetoothService != nil { return 6 }
        if service.radioService != nil { return 7 }
        if service.navigationStatusService != nil { return 8 }
        if service.phoneStatusService != nil { return 10 }
        if service.genericNotificationService != nil { return 13 }
        if service.wifiProjectionService != nil { return 14 }
        return 0
    }
}

extension HeadUnitIdentity {
    /// Field 17 first, field by field; the deprecated top-level fields fill the gaps.
    init(_ response: AAP.ServiceDiscoveryResponse) {
        let info = response.headunitInfo
        self.init(
            make: info?.make ?? response.make,
            model: info?.model ?? response.model,
            year: info?.year ?? response.year,
            vehicleId: info?.vehicleId ?? response.vehicleId,
            headUnitMake: info?.headUnitMake ?? response.headUnitMake,
            headUnitModel: info?.headUnitModel ?? response.headUnitModel,
            headUnitSoftwareBuild: info?.headUnitSoftwareBuild ?? response.headUnitSoftwareBuild,
            headUnitSoftwareVersion: info?.headUnitSoftwareVersion ?? response.headUnitSoftwareVersion
        )
    }
}

extension DriverPosition {
    init(_ position: AAP.DriverPosition) {
        switch position {
        case .left: self = .left
        case .right: self = .right
        case .center: self = .center
        default: self = .unknown
        }
    }
}

extension CarPingConfiguration {
    init(_ ping: AAP.PingConfiguration) {
        self.init(
            timeout: ping.timeoutMs.map { .milliseconds($0) },
            interval: ping.intervalMs.map { .milliseconds($0) },
            highLatencyThreshold: ping.highLatencyThresholdMs.map { .milliseconds($0) },
            trackedPingCount: ping.trackedPingCount.map { Int($0) }
        )
    }
}
