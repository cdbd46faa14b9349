// The car's profile: decoding from VendorExtensionService.data, mapping to the browse core's
// CarProfile, and CAR_PROFILE updates.

import DashportBrowse
import DashportMessages
import DashportSession
import Testing
import DashportLog
@testable import DashportServices

@Suite("Media channel: car profile")
struct MediaChannelProfileTests {
    @Test func fullProfileMapsEveryField() {
        let wire = DashportMedia.CarProfile(
            maxRootTabs: 3, maxDepth: 5, maxItemsPerList: 120,
            artworkSizes: [DashportMedia.ArtworkSize(width: 320, height: 200), DashportMedia.ArtworkSize(width: 96, height: 96)],
            errorScreenSupport: .full, supportsSearch: true, locale: "de-DE")
        let car = MediaChannelFakeCar(profile: wire)
        let profile = car.service.profile
        #expect(profile.wire == wire)
        #expect(
            profile.browse
                == CarProfile(
                    maxRootTabs: 3, maxDepth: 5, maxItemsPerList: 120, artworkSizePx: 320, errorRendering: .full,
                    supportsSearch: true, locale: "de-DE"))
        #expect(profile.drawableErrors == Set(BrowseError.Code.allCases))
        #expect(profile.artworkWidth == 320 && profile.artworkHeight == 200)
    }

    /// A proto3-style writer's zeros for "unset" are the defaults: 4 tabs, no depth or list limit.
    @Test func zeroLimitsAreTheDefaults() {
        let car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(maxRootTabs: 0, maxDepth: 0, maxItemsPerList: 0))
        #expect(car.service.profile.browse.maxRootTabs == 4)
        #expect(car.service.profile.browse.tabCap == 4)
        #expect(car.service.profile.browse.maxDepth == nil)
        #expect(car.service.profile.browse.maxItemsPerList == nil)
    }

    @Test func legacyProfileDrawsTwoScreens() {
        let car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(errorScreenSupport: .legacy))
        #expect(car.service.profile.browse.errorRendering == .legacy)
        #expect(car.service.profile.drawableErrors == [.authenticationExpired, .parentalControlRestricted])
    }

    @Test func listedProfileIsFullToTheBrowseCoreButKeepsItsList() {
        let car = MediaChannelFakeCar(
            profile: DashportMedia.CarProfile(
                errorScreenSupport: .listed, drawableErrorScreens: [.premiumAccountRequired, .unknown, .init(rawValue: 99)]))
        #expect(car.service.profile.browse.errorRendering == .full)
        #expect(car.service.profile.drawableErrors == [.premiumAccountRequired])
    }

    @Test func listedWithTheLegacyPairIsLegacy() {
        let car = MediaChannelFakeCar(
            profile: DashportMedia.CarProfile(
                errorScreenSupport: .listed, drawableErrorScreens: [.parentalControlRestricted, .authenticationExpired]))
        #expect(car.service.profile.browse.errorRendering == .legacy)
    }

    @Test func unknownErrorScreenSupportIsLegacy() {
        let car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(errorScreenSupport: .init(rawValue: 42)))
        #expect(car.service.profile.browse.errorRendering == .legacy)
    }

    /// The schema's defaults: 4 tabs, no limits, legacy screens, no search, 256 px, en-US.
    static let defaults = CarProfile(
        maxRootTabs: 4, maxDepth: nil, maxItemsPerList: nil, artworkSizePx: 256, errorRendering: .legacy,
        supportsSearch: false, locale: "en-US")

    @Test func missingDataMeansDefaultsAndIsLogged() {
        let car = MediaChannelFakeCar(profile: nil)
        #expect(car.service.profile.browse == Self.defaults)
        #expect(car.service.profile.wire == DashportMedia.CarProfile())
        #expect(car.log.contains(.info, "no profile"))
    }

    @Test func garbageDataMeansDefaultsAndIsLogged() {
        let car = MediaChannelFakeCar(profileData: [0x0A, 0xFF, 0xFF, 0xFF])
        #expect(car.service.profile.browse == Self.defaults)
        #expect(car.log.contains(.warning, "does not decode"))
    }

    @Test func zerosAndOddValuesReadAsAbsentOrDefault() {
        let long = String(repeating: "x", count: 65)
        let car = MediaChannelFakeCar(
            profile: DashportMedia.CarProfile(
                maxItemsPerList: 0,
                artworkSizes: [DashportMedia.ArtworkSize(width: 0, height: 0), DashportMedia.ArtworkSize(width: 0, height: 128)],
                locale: long))
        let profile = car.service.profile
        #expect(profile.browse.maxItemsPerList == nil)
        #expect(profile.browse.locale == "en-US")
        #expect(profile.artworkWidth == 128 && profile.artworkHeight == 128)
        #expect(profile.browse.artworkSizePx == 128)
    }

    @Test func artworkSizesAreCapped() {
        let car = MediaChannelFakeCar(
            profile: DashportMedia.CarProfile(
                artworkSizes: [DashportMedia.ArtworkSize(width: 100_000, height: 50)]))
        #expect(car.service.profile.artworkWidth == 2048)
        #expect(car.service.profile.artworkHeight == 50)
    }

    @Test func carProfileMessageAppliesToLaterRequests() throws {
        var car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(errorScreenSupport: .legacy, locale: "en-GB"))
        let update = DashportMedia.CarProfile(maxRootTabs: 2, errorScreenSupport: .full, locale: "fr-FR")
        #expect(car.send(.carProfile, update).isEmpty)
        let actions = car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: BrowseItem.rootId))
        guard case .browse(_, .children(_, _, _, let profile)) = try #require(actions.first) else {
            Issue.record("no children request")
            return
        }
        #expect(profile.maxRootTabs == 2)
        #expect(profile.errorRendering == .full)
        #expect(profile.locale == "fr-FR")
    }

    @Test func malformedCarProfileKeepsThePreviousOne() {
        var car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(maxRootTabs: 3, locale: "it-IT"))
        #expect(car.sendRaw(UInt16(DashportMedia.MessageId.carProfile.rawValue), [0x10]).isEmpty)
        #expect(car.service.profile.browse.maxRootTabs == 3)
        #expect(car.service.profile.browse.locale == "it-IT")
        #expect(car.log.contains(.warning, "CAR_PROFILE does not decode"))
    }
}
