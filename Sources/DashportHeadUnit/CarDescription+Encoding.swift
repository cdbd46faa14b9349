public import DashportLink
public import DashportMessages

extension AAP.ServiceDiscoveryResponse {
    /// The discovery response a head unit described by `car` sends: its services with their
    /// channel ids, its identity both in field 17 and in the deprecated fields 2–10 (older phones
    /// read those), driver position and ping configuration. The inverse of `CarDescription.parse`.
    public init(describing car: CarDescription) {
        let identity = car.identity
        self.init(
            channels: car.services.map(AAP.Service.init(describing:)),
            make: identity.make,
            model: identity.model,
            year: identity.year,
            vehicleId: identity.vehicleId,
            driverPosition: car.driverPosition.map(AAP.DriverPosition.init(describing:)),
            headUnitMake: identity.headUnitMake,
            headUnitModel: identity.headUnitModel,
            headUnitSoftwareBuild: identity.headUnitSoftwareBuild,
            headUnitSoftwareVersion: identity.headUnitSoftwareVersion,
            displayName: car.displayName,
            connectionConfiguration: car.ping.map {
                AAP.ConnectionConfiguration(pingConfiguration: AAP.PingConfiguration(describing: $0))
            },
            headunitInfo: AAP.HeadUnitInfo(
                make: identity.make, model: identity.model, year: identity.year, vehicleId: identity.vehicleId,
                headUnitMake: identity.headUnitMake, headUnitModel: identity.headUnitModel,
                headUnitSoftwareBuild: identity.headUnitSoftwareBuild,
                headUnitSoftwareVersion: identity.headUnitSoftwareVersion
            )
        )
    }
}

extension AAP.Service {
    /// One `Service` entry: the channel id and the field that names the kind.
    public init(describing service: CarService) {
        self.init(id: Int32(service.channel))
        switch service.kind {
        case .mediaPlaybackStatus:
            mediaPlaybackService = AAP.MediaPlaybackStatusService()
        case .input(let keycodes):
            inputSourceService = AAP.InputSourceService(keycodesSupported: keycodes)
        case .mediaBrowser:
            mediaBrowserService = AAP.MediaBrowserService()
        case .vendorExtension(let name, let data):
            vendorExtensionService = AAP.VendorExtensionService(name: name, data: data.isEmpty ? nil : data)
        case .mediaSink(let audioType, let codec, let configs):
            mediaSinkService = AAP.MediaSinkService(availableType: codec, audioType: audioType, audioConfigs: configs)
        case .sensor(let types):
            sensorSourceService = AAP.SensorSourceService(sensors: types.map { AAP.Sensor(sensorType: $0) })
        case .other(let field):
            switch field {
            case 5: mediaSourceService = AAP.MediaSourceService()
            case 6: bluetoothService = AAP.BluetoothService()
            case 7: radioService = AAP.RadioService()
            case 8: navigationStatusService = AAP.NavigationStatusService()
            case 10: phoneStatusService = AAP.PhoneStatusService()
            case 13: genericNotificationService = AAP.GenericNotificationService()
            case 14: wifiProjectionService = AAP.WifiProjectionService()
            default: break  // listed with no service field, as a head unit may do
            }
        }
    }
}

extension AAP.DriverPosition {
    init(describing position: DriverPosition) {
        switch position {
        case .left: self = .left
        case .right: self = .right
        case .center: self = .center
        case .unknown: self = .unknown
        }
    }
}

extension AAP.PingConfiguration {
    init(describing ping: CarPingConfiguration) {
        func milliseconds(_ duration: Duration?) -> UInt32? {
            duration.map { UInt32(clamping: $0.wholeMicroseconds / 1000) }
        }
        self.init(
            timeoutMs: milliseconds(ping.timeout),
            intervalMs: milliseconds(ping.interval),
            highLatencyThresholdMs: milliseconds(ping.highLatencyThreshold),
            trackedPingCount: ping.trackedPingCount.map { UInt32(clamping: $0) }
        )
    }
}
