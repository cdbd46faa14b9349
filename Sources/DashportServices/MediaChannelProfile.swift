// Sources/DashportServices/MediaChannelProfile.swift - the car's profile: decoded from the wire,
// mapped onto the browse core's CarProfile, and what else the service needs from it.

public import DashportBrowse
public import DashportLog
public import DashportMessages

/// One car's profile as the media channel service applies it.
///
/// Decoded from `VendorExtensionService.data` (and from later CAR_PROFILE messages). Missing or
/// undecodable data means the schema's defaults: 4 tabs, no depth or list limit, legacy error
/// screens, no search, 256 px artwork, `en-US`.
public struct MediaChannelCarProfile: Sendable, Hashable {
    /// The profile as the car sent it (or the empty message when it sent nothing usable).
    public var wire: DashportMedia.CarProfile
    /// What the browse core gets with every request of this car.
    public var browse: CarProfile
    /// The error screens the car draws. For `full` and `legacy` cars the browse core already
    /// answers accordingly; a `listed` car is a `full` car to the browse core, and the service
    /// turns a screen whose code is not listed into an empty page.
    public var drawableErrors: Set<BrowseError.Code>
    /// The artwork box for a GET_ARTWORK without a size: the car's first artwork size, or the
    /// configured default square.
    public var artworkWidth: Int
    public var artworkHeight: Int

    /// The longest locale tag taken from a car; a longer one falls back to `en-US`.
    public static let maxLocaleBytes = 64

    /// Maps a decoded wire profile (zero and unknown values read as absent).
    public init(wire: DashportMedia.CarProfile, configuration: MediaChannelConfiguration = MediaChannelConfiguration()) {
        self.wire = wire
        let box = wire.artworkSizes.first { $0.width > 0 || $0.height > 0 }
        let cap = configuration.maxArtworkSizePx
        if let box {
            // A box with one side 0 is a square of the other side.
            let width = Int(box.width > 0 ? box.width : box.height)
            let height = Int(box.height > 0 ? box.height : box.width)
            (artworkWidth, artworkHeight) = (min(width, cap), min(height, cap))
        } else {
            (artworkWidth, artworkHeight) = (configuration.defaultArtworkSizePx, configuration.defaultArtworkSizePx)
        }
        drawableErrors = Self.drawable(wire)
        let locale = wire.locale ?? ""
        browse = CarProfile(
            maxRootTabs: wire.maxRootTabs.flatMap { $0 == 0 ? nil : Int($0) } ?? 4,
            maxDepth: wire.maxDepth.flatMap { $0 == 0 ? nil : Int($0) },
            maxItemsPerList: wire.maxItemsPerList.flatMap { $0 == 0 ? nil : Int($0) },
            artworkSizePx: max(artworkWidth, artworkHeight),
            errorRendering: drawableErrors == CarProfile.ErrorRendering.legacy.drawnCodes ? .legacy : .full,
            supportsSearch: wire.supportsSearch ?? false,
            locale: locale.isEmpty || locale.utf8.count > Self.maxLocaleBytes ? "en-US" : locale)
    }

    /// Decodes a profile from the car's bytes. Empty bytes (the car sent none) and bytes that are
    /// not a `CarProfile` both give the defaults; either is logged.
    public static func decode(
        _ data: [UInt8], configuration: MediaChannelConfiguration = MediaChannelConfiguration(), logger: Logger = .silent
    ) -> MediaChannelCarProfile {
        guard !data.isEmpty else {
            logger.info("the car sent no profile: using the defaults")
            return MediaChannelCarProfile(wire: DashportMedia.CarProfile(), configuration: configuration)
        }
        do {
            let wire = try DashportMedia.CarProfile(serializedBytes: data)
            return MediaChannelCarProfile(wire: wire, configuration: configuration)
        } catch {
            logger.warning("the car's profile does not decode (\(error)): using the defaults")
            return MediaChannelCarProfile(wire: DashportMedia.CarProfile(), configuration: configuration)
        }
    }

    /// The codes a profile says the car draws: legacy (also for unknown values) two, full all five,
    /// listed exactly the listed ones.
    private static func drawable(_ wire: DashportMedia.CarProfile) -> Set<BrowseError.Code> {
        switch wire.errorScreenSupportOrDefault {
        case .full:
            Set(BrowseError.Code.allCases)
        case .listed:
            Set(wire.drawableErrorScreens.compactMap { BrowseError.Code(wire: $0) })
        default:
            CarProfile.ErrorRendering.legacy.drawnCodes
        }
    }
}

extension BrowseError.Code {
    /// The browse core's code for a wire code; nil for `unknown` and values the schema does not name.
    init?(wire: DashportMedia.BrowseErrorCode) {
        switch wire {
        case .authenticationExpired: self = .authenticationExpired
        case .premiumAccountRequired: self = .premiumAccountRequired
        case .notAvailableInRegion: self = .notAvailableInRegion
        case .parentalControlRestricted: self = .parentalControlRestricted
        case .notSupported: self = .notSupported
        default: return nil
        }
    }

    /// The wire code.
    var wire: DashportMedia.BrowseErrorCode {
        switch self {
        case .authenticationExpired: .authenticationExpired
        case .premiumAccountRequired: .premiumAccountRequired
        case .notAvailableInRegion: .notAvailableInRegion
        case .parentalControlRestricted: .parentalControlRestricted
        case .notSupported: .notSupported
        }
    }
}
