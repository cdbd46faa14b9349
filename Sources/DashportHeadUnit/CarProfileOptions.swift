public import DashportLink
public import DashportMessages

/// The knobs of the car profile the emulator advertises for the Dashport media channel. The
/// profile travels in `VendorExtensionService.data` of the discovery response
/// (``HeadUnitConfiguration/withDashportProfile(_:)``).
public struct CarProfileOptions: Sendable, Hashable {
    /// Which error screens the car draws.
    public enum ErrorRendering: Sendable, Hashable {
        /// authenticationExpired and parentalControlRestricted only (older car platforms).
        case legacy
        /// All five codes.
        case full
    }

    /// Tabs the car draws at the root; `nil` leaves it out (the schema's default is 4).
    public var maxTabs: UInt32?
    public var errorRendering: ErrorRendering
    /// Deepest level the car opens; `nil` = no limit.
    public var maxDepth: UInt32?
    /// Square artwork box in pixels; `nil` leaves the choice to the server (256).
    public var artSize: UInt32?
    /// Most items per list; `nil` = no limit.
    public var maxItemsPerList: UInt32?
    public var supportsSearch: Bool
    /// BCP 47 language tag; `nil` leaves it out.
    public var locale: String?
    /// What the car can render beyond a plain list.
    public var capabilities: [DashportMedia.CarCapability]

    /// Every rendering capability of the schema: the emulator draws all of them as text.
    public static let allCapabilities: [DashportMedia.CarCapability] = DashportMedia.CarCapability.knownValues

    public init(
        maxTabs: UInt32? = nil,
        errorRendering: ErrorRendering = .full,
        maxDepth: UInt32? = nil,
        artSize: UInt32? = nil,
        maxItemsPerList: UInt32? = nil,
        supportsSearch: Bool = true,
        locale: String? = nil,
        capabilities: [DashportMedia.CarCapability] = CarProfileOptions.allCapabilities
    ) {
        self.maxTabs = maxTabs
        self.errorRendering = errorRendering
        self.maxDepth = maxDepth
        self.artSize = artSize
        self.maxItemsPerList = maxItemsPerList
        self.supportsSearch = supportsSearch
        self.locale = locale
        self.capabilities = capabilities
    }

    /// The wire profile: protocol version 1 and every option that is set.
    public var profile: DashportMedia.CarProfile {
        DashportMedia.CarProfile(
            protocolVersion: 1,
            maxRootTabs: maxTabs,
            maxDepth: maxDepth,
            maxItemsPerList: maxItemsPerList,
            artworkSizes: artSize.map { [DashportMedia.ArtworkSize(width: $0, height: $0)] } ?? [],
            errorScreenSupport: errorRendering == .full ? .full : .legacy,
            supportsSearch: supportsSearch,
            locale: locale,
            capabilities: capabilities
        )
    }
}

extension HeadUnitConfiguration {
    /// The channel of the Dashport media channel (`dashport.media` vendor extension), if the car lists it.
    public var dashportMediaChannel: UInt8? {
        car.services.first { service in
            if case .vendorExtension(let name, _) = service.kind { name == LinkConfiguration.dashportMediaServiceName } else { false }
        }?.channel
    }

    /// The first channel the car lists for `kind`'s service type (input, playback status).
    public func channel(where matches: (CarService.Kind) -> Bool) -> UInt8? {
        car.services.first { matches($0.kind) }?.channel
    }

    /// A copy whose `dashport.media` service carries `profile` in its data. A car that does not
    /// list the service gets it on the lowest free channel from 16 up.
    public func withDashportProfile(_ profile: DashportMedia.CarProfile) -> HeadUnitConfiguration {
        var copy = self
        let kind = CarService.Kind.vendorExtension(
            name: LinkConfiguration.dashportMediaServiceName, data: profile.serializedBytes())
        if let channel = dashportMediaChannel, let index = car.services.firstIndex(where: { $0.channel == channel }) {
            copy.car.services[index].kind = kind
        } else {
            let used = Set(car.services.map(\.channel))
            // 240 channels from 16 up cannot all be taken by the handful a car lists.
            let free = (UInt8(16)...UInt8(255)).first { !used.contains($0) } ?? 255
            copy.car.services.append(CarService(channel: free, kind: kind))
        }
        return copy
    }
}
