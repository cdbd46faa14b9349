import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportSession
import DashportTestSupport
@testable import DashportServer

/// The session contract end to end over real TCP: a stock AAP car's volume keys drive a declared
/// remote volume; reports caused by a car's profile reach every car they concern, with subjects.
@Suite("Session contract over TCP", .serialized)
struct ContractOverTCPTests {
    static let inputChannel: UInt8 = 8
    static let mediaChannel: UInt8 = 16

    /// The default car, listing the volume keys too.
    static func carWithVolumeKeys() -> HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        configuration.car.services = configuration.car.services.map { service in
            guard case .input(let keycodes) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .input(keycodes: keycodes + [24, 25, 164]))
        }
        return configuration
    }

    func press(_ keycode: UInt32, on car: TestCar) async {
        for down in [true, false] {
            let report = AAP.InputReport(
                timestamp: 1, keyEvent: AAP.KeyEvent(keys: [AAP.KeyEvent.Key(keycode: keycode, down: down, metastate: 0)]))
            await car.sendUnchecked(channel: Self.inputChannel, messageId: 0x8001, body: report.serializedBytes())
        }
    }

    @Test func volumeKeysOfAStockCarMoveADeclaredRemoteVolume() async throws {
        try await TestServer.with(configure: { $0.session.remoteVolume = .absolute }) { server in
            let session = server.server.core.session
            #expect(await session.remotePlayback == RemotePlayback(volume: 0.5, muted: false, steps: 20, control: .absolute))
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.carWithVolumeKeys())
            try await car.waitUntil("a key binding with the volume keys", timeout: .seconds(60)) { car in
                car.messages(on: Self.inputChannel).contains {
                    $0.id == 0x8002 && (try? AAP.KeyBindingRequest(serializedBytes: $0.body))?.keycodes.contains(24) == true
                }
            }
            await press(24, on: car)
            try await eventually("volume up one step") { await session.remotePlayback?.volume == 0.55 }
            // Each press is a down and an up: a down after the key's up is a new press however
            // soon it comes (only a down while the key is held can be an auto-repeat).
            await press(25, on: car)
            try await eventually("volume down one step") { await session.remotePlayback?.volume == 0.5 }
            await press(25, on: car)
            try await eventually("volume down two steps") { await session.remotePlayback?.volume == 0.45 }
            await press(164, on: car)
            try await eventually("muted") { await session.remotePlayback?.muted == true }
            await car.abort()
        }
    }

    @Test func aCarWithoutRemotePlaybackKeepsItsVolumeKeys() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.carWithVolumeKeys())
            try await car.waitUntil("a key binding") { $0.messages(on: Self.inputChannel).contains { $0.id == 0x8002 } }
            let binding = try #require(await car.messages(on: Self.inputChannel).first { $0.id == 0x8002 })
            #expect(try AAP.KeyBindingRequest(serializedBytes: binding.body).keycodes == [85, 86, 87, 88, 126, 127])
            await car.abort()
        }
    }

    /// Two cars with the same tab cap both hear which root entries were dropped (not only the
    /// first car after the start), each once, with the dropped entry's id as subject and no path.
    @Test func rootRejectionsReachEveryCarTheyConcern() async throws {
        try await TestServer.with { server in
            var cars: [TestCar] = []
            for _ in 0..<2 {
                let car = try await TestCar.connect(
                    to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar(maxTabs: 2))
                try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
                cars.append(car)
            }
            let full = try await MediaChannelOverTCPTests().children(cars[0], of: "__root__", requestId: 9)
            #expect(full.count == 2)
            // The root page is memoised with its rejections, so every later request here is a memo hit
            // that must still tell each car.
            #expect(server.server.core.answers.keys.contains { $0.parentId == "__root__" })
            for car in cars {
                for requestId in [1, 2] as [UInt32] {
                    _ = try await MediaChannelOverTCPTests().children(car, of: "__root__", requestId: requestId)
                }
                try await car.waitUntil("a root rejection") { car in
                    car.messages(on: Self.mediaChannel).contains { $0.id == 0x800F }
                }
                // A request that rejects nothing, answered after everything the root requests
                // caused: any second rejection would have come before this answer.
                _ = try await MediaChannelOverTCPTests().children(car, of: full[0].id, requestId: 3)
                let errors = await car.messages(on: Self.mediaChannel).filter { $0.id == 0x800F }
                    .compactMap { try? DashportMedia.SessionError(serializedBytes: $0.body) }
                    .filter { $0.code == .browseRootRejected }
                #expect(!errors.isEmpty)
                #expect(errors.allSatisfy { $0.subject.map { !$0.isEmpty } ?? false })
                #expect(Set(errors.compactMap(\.subject)).count == errors.count, "each dropped entry once per car")
                #expect(errors.allSatisfy { !($0.message ?? "").contains("/") })
                await car.abort()
            }
        }
    }

    func commandResult(_ car: TestCar, _ command: DashportMedia.PlaybackCommand.Command, requestId: UInt32) async throws
        -> DashportMedia.CommandResult
    {
        let request = DashportMedia.PlaybackCommand(requestId: requestId, command: command)
        await car.sendUnchecked(channel: Self.mediaChannel, messageId: 0x800A, body: request.serializedBytes())
        try await car.waitUntil("command result \(requestId)") { car in
            car.messages(on: Self.mediaChannel).contains {
                $0.id == 0x800B && (try? DashportMedia.CommandResult(serializedBytes: $0.body))?.requestId == requestId
            }
        }
        return try #require(
            await car.messages(on: Self.mediaChannel).lazy.filter { $0.id == 0x800B }
                .compactMap { try? DashportMedia.CommandResult(serializedBytes: $0.body) }.first { $0.requestId == requestId })
    }

    /// The demo declares one custom action: a car sees it, sends it (accepted, the label flips) and
    /// an undeclared name is refused as not in the capabilities.
    @Test func theDemosCustomActionIsShownAcceptedAndAnUndeclaredOneRefused() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
            #expect(try await commandResult(car, .play(DashportMedia.Empty()), requestId: 1).accepted)
            try await car.waitUntil("the favourite button") { car in
                car.messages(on: Self.mediaChannel).contains {
                    $0.id == 0x800C
                        && (try? DashportMedia.PlaybackState(serializedBytes: $0.body))?.customActions.first?.label == "Favourite"
                }
            }
            let favourite = DashportMedia.CustomAction(name: "favourite")
            #expect(try await commandResult(car, .customAction(favourite), requestId: 2).accepted)
            try await car.waitUntil("the label flips") { car in
                car.messages(on: Self.mediaChannel).contains {
                    $0.id == 0x800C
                        && (try? DashportMedia.PlaybackState(serializedBytes: $0.body))?.customActions.first?.label == "Unfavourite"
                }
            }
            let refused = try await commandResult(car, .customAction(DashportMedia.CustomAction(name: "nope")), requestId: 3)
            #expect(!refused.accepted && refused.reason == .notInCapabilities)
            await car.abort()
        }
    }
}
