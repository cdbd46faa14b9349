import DashportMessages
import DashportSession
import Testing
import DashportClock
@testable import DashportServices

/// What stock AAP cars get of the rest of the session contract: volume keys bound only while
/// remote playback is declared, and metadata that never makes a live or unknown item a 0 s track.
@Suite struct ContractServiceTests {
    @Test func volumeKeysAreBoundOnlyWhileRemotePlaybackIsDeclared() throws {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [85, 87, 24, 25, 164])
        #expect(service.requestedKeyCodes == [85, 87])
        // Unbound volume keys do nothing (the car's own volume handles them).
        let early = service.receive(messageId: inputReportId, body: keyReport([key(24, down: true)]), now: ms(0))
        #expect(early.compactMap(\.command).isEmpty)

        let declared = service.remotePlaybackChanged(declared: true)
        let request = try AAP.KeyBindingRequest(serializedBytes: try #require(declared.first?.outgoing).body)
        #expect(request.keycodes == [85, 87, 24, 25, 164])
        #expect(service.remotePlaybackChanged(declared: true).isEmpty, "no new binding when nothing changes")
        let up = service.receive(messageId: inputReportId, body: keyReport([key(24, down: true)]), now: ms(5000))
        #expect(up.compactMap(\.command) == [.adjustDeviceVolume(steps: 1)])
        let mute = service.receive(messageId: inputReportId, body: keyReport([key(164, down: true)]), now: ms(5000))
        #expect(mute.compactMap(\.command) == [.toggleDeviceMute])

        let withdrawn = service.remotePlaybackChanged(declared: false)
        #expect(try AAP.KeyBindingRequest(serializedBytes: try #require(withdrawn.first?.outgoing).body).keycodes == [85, 87])
        // A car that lists no volume key is never asked for one.
        var plain = AAPInputService(channel: 8, car: "car-2", carKeyCodes: [85], remotePlayback: true)
        #expect(plain.requestedKeyCodes == [85])
        #expect(plain.remotePlaybackChanged(declared: false).isEmpty)
    }

    @Test func liveAndUnknownLengthsAreNotZeroSecondTracks() throws {
        let live = MediaItem(id: "r", title: "Radio", durationMs: 3_600_000, isLive: true)
        let (_, liveActions) = startedService(snapshot(playbackState(.playing), item: live))
        #expect(try metadata(in: liveActions, channel: 13).first?.durationSeconds == nil)
        let unknown = MediaItem(id: "u", title: "Unknown")
        let (_, unknownActions) = startedService(snapshot(playbackState(.playing), item: unknown))
        #expect(try metadata(in: unknownActions, channel: 13).first?.durationSeconds == nil)
        // The album artist stands in for a missing track artist.
        let compilation = MediaItem(id: "c", title: "Song", durationMs: 61_000, albumArtist: "Various")
        let (_, actions) = startedService(snapshot(playbackState(.playing), item: compilation))
        #expect(
            try metadata(in: actions, channel: 13).first
                == AAP.MediaPlaybackMetadata(
                    song: "Song", artist: "Various", album: "", durationSeconds: 61))
    }

    @Test func volumeCommandsOnTheMediaChannelMapToSessionCommandsAndReasons() {
        #expect(MediaChannelService.wireReason(forRejection: SessionCore.remotePlaybackNotDeclared) == .notInCapabilities)
        #expect(
            MediaChannelService.wireReason(forRejection: SessionCore.remoteVolumeNotWritable + " (its volume is fixed)") == .notSupported)
        #expect(MediaChannelService.wireReason(forRejection: "'Empty' has no tracks to play") == .notFound)
        #expect(MediaChannelService.wireReason(forRejection: "queue position 6 is outside a queue of 2") == .invalidArgument)
    }

    /// A report caused by this car's profile goes to it once per code and subject, with the subject.
    @Test func carReportsGoOncePerSubject() throws {
        var car = MediaChannelFakeCar()
        _ = car.service.open(now: .zero)
        let dropped = SessionError(code: .browseRootRejected, severity: .degraded, message: "root entry 'X' (x) dropped", subject: "x")
        let first = try MediaChannelFakeCar.received(car.service.carReport(dropped))
        guard case .sessionError(let wire)? = first.first else {
            Issue.record("expected SESSION_ERROR, got \(first)")
            return
        }
        #expect(wire.code == .browseRootRejected && wire.subject == "x")
        #expect(car.service.carReport(dropped).isEmpty)
        var other = dropped
        other.subject = "y"
        #expect(car.service.carReport(other).count == 1)
    }
}
