import DashportTestSupport
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTLS
import DashportTransport
import Testing

/// HeadUnitClient over real TCP on loopback against a phone running PhoneLink (``FakePhone``).
/// Waits are bounded by generous timeouts; nothing measures time.
@Suite struct HeadUnitClientTests {
    static let carConfiguration = HeadUnitConfiguration().withDashportProfile(CarProfileOptions(maxTabs: 3, artSize: 128).profile).patient

    @Test func completesTheLinkAndEndsItWithAnsweredByeBye() async throws {
        let phone = try FakePhone()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: Self.carConfiguration, identity: try TestTLS.carIdentity.get())
        let events = Recorder.recording(client.events)

        let opened = await events.wait { Self.openedChannels($0).count == 5 && Self.pings($0) >= 1 }
        #expect(opened, "all five listed channels (the audio sink too) open and the phone pings")
        #expect(await client.phase == .running)
        #expect(await client.version == AAPVersion(major: 1, minor: 6))
        #expect(await client.openChannels == [4, 8, 13, 15, 16])

        let items = await events.items
        #expect(items.first == .link(.versionNegotiated(AAPVersion(major: 1, minor: 6))))
        let tls = items.compactMap { if case .link(.tlsEstablished(let summary)) = $0 { summary } else { nil } }
        #expect(tls.count == 1)
        #expect(tls.first?.version == "TLSv1.2")
        #expect(tls.first?.cipher.hasSuffix("GCM-SHA256") == true || tls.first?.cipher.hasSuffix("GCM-SHA384") == true)
        #expect(tls.first?.peerFingerprint == (try TestTLS.phoneIdentity.get().fingerprintSHA256))
        #expect(items.contains { if case .link(.discoveryRequested) = $0 { true } else { false } })

        await client.byeBye()
        #expect(await client.closed(within: .seconds(20)) == .link(.byeBye(answered: true)))
        #expect(await events.wait { $0.last == .closed(.link(.byeBye(answered: true))) })
    }

    @Test func advertisesTheCarProfileInTheDiscoveryResponse() async throws {
        let phone = try FakePhone()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: Self.carConfiguration, identity: try TestTLS.carIdentity.get())
        let events = Recorder.recording(client.events)
        #expect(await events.wait { Self.openedChannels($0).contains(16) })
        let car = try #require(await phone.firstConnection().car)
        let media = try #require(car.service(onChannel: 16))
        guard case .vendorExtension(let name, let data) = media.kind else {
            Issue.record("channel 16 is \(media.kind), not the Dashport media channel")
            return
        }
        #expect(name == "dashport.media")
        let profile = try DashportMedia.CarProfile(serializedBytes: data)
        #expect(profile.maxRootTabs == 3)
        #expect(profile.artworkSizes == [DashportMedia.ArtworkSize(width: 128, height: 128)])
        #expect(profile.errorScreenSupport == .full)
        await client.close()
        #expect(await client.closed(within: .seconds(20)) == .closedLocally)
    }

    @Test func sendsServiceMessagesOnOpenChannelsOnly() async throws {
        let phone = try FakePhone()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: Self.carConfiguration, identity: try TestTLS.carIdentity.get())
        let events = Recorder.recording(client.events)
        #expect(await events.wait { Self.openedChannels($0).contains(16) })
        let request = DashportMedia.GetItem(requestId: 7, id: "t1").serializedBytes()
        try await client.send(channel: 16, messageId: 0x8004, body: request)
        #expect(
            await events.wait { items in
                items.contains { if case .link(.message(16, 0x8006, _)) = $0 { true } else { false } }
            })
        let connection = try await phone.firstConnection()
        #expect(await connection.mediaRequests.map(\.0) == [0x8004])
        #expect(await connection.mediaRequests.first?.1 == request)
        await #expect(throws: LinkSendError.channelNotOpen(99)) {
            try await client.send(channel: 99, messageId: 0x8001, body: [])
        }
        await client.close()
    }

    @Test func reportsThePhonesByeBye() async throws {
        let phone = try FakePhone()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: Self.carConfiguration, identity: try TestTLS.carIdentity.get())
        let events = Recorder.recording(client.events)
        #expect(await events.wait { Self.openedChannels($0).count == 5 })
        try await phone.firstConnection().sayByeBye()
        let disconnect = await client.closed(within: .seconds(20))
        #expect(disconnect == .link(.peerByeBye(reason: 1)))
        #expect(disconnect?.isOrderly == true)
    }

    @Test func refusedConnectionIsATypedError() async throws {
        // A port held by a socket that is bound but never listens: a connect is refused, and no
        // other test's listener can take the port meanwhile (as it could a port bound and freed).
        let refusing = try RefusingPort()
        let address = refusing.address
        await #expect {
            _ = try await HeadUnitClient.connect(to: address, identity: try TestTLS.carIdentity.get(), timeout: .seconds(20))
        } throws: { error in
            guard case HeadUnitClientError.connect(.connect(let target, _))? = error as? HeadUnitClientError else { return false }
            return target == address
        }
        withExtendedLifetime(refusing) {}
    }

    static func openedChannels(_ events: [HeadUnitClientEvent]) -> Set<UInt8> {
        Set(events.compactMap { if case .link(.channelOpened(let service)) = $0 { service.channel } else { nil } })
    }

    static func pings(_ events: [HeadUnitClientEvent]) -> Int {
        events.filter { if case .link(.pingReceived) = $0 { true } else { false } }.count
    }
}
