import DashportTestSupport
import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// The whole setup in memory: version → TLS 1.2 AES-GCM → auth → discovery → channel opens.
@Suite struct SetupTests {
    /// A default head unit and the phone reach `running` with every driven channel open.
    @Test func fullSetupReachesRunning() throws {
        let link = try LinkHarness()
        link.connectAndSettle()

        #expect(link.phoneClose == nil)
        #expect(link.headUnitClose == nil)
        #expect(link.phone.phase == .running)
        #expect(link.headUnit.phase == .running)
        #expect(link.phone.version == AAPVersion(major: 1, minor: 6))
        #expect(link.headUnit.version == AAPVersion(major: 1, minor: 6))

        let events = link.phoneEvents
        #expect(events.first == .versionNegotiated(AAPVersion(major: 1, minor: 6)))
        let summary = try #require(events.lazy.compactMap { if case .tlsEstablished(let s) = $0 { s } else { nil } }.first)
        #expect(summary.version == "TLSv1.2")
        #expect(summary.cipher.contains("AES") && summary.cipher.contains("GCM"))
        #expect(summary.peerFingerprint == (try TestTLS.carFingerprint()))
        #expect(events.contains(.authComplete))
        let car = try #require(link.phone.car)
        #expect(events.contains(.discovered(car)))
        #expect(car == HeadUnitConfiguration.aasdkLikeCar)
        #expect(link.phoneOpenedChannels.sorted() == [4, 8, 13, 15, 16])
        #expect(link.phone.openServices.map(\.channel) == [4, 8, 13, 15, 16])
        #expect(link.headUnit.openChannels == [4, 8, 13, 15, 16])
        #expect(link.phone.nextDeadline != nil, "a running link keeps pinging")
        let requests = link.headUnitEvents.filter { if case .channelOpenRequested = $0 { true } else { false } }
        #expect(
            requests
                == [8, 13, 15, 16, 4].map {
                    .channelOpenRequested(channel: $0, priority: 0, serviceId: Int32($0), encrypted: true)
                }, "priority 0 and service_id = channel, encrypted")
    }

    /// The events come in protocol order, and the head unit sees our label and device name.
    @Test func eventsAreInProtocolOrder() throws {
        let configuration = LinkConfiguration(labelText: "Label", deviceName: "Device")
        let link = try LinkHarness(phone: configuration)
        link.connectAndSettle()

        let order = link.phoneEvents.map { event -> String in
            switch event {
            case .versionNegotiated: "version"
            case .tlsEstablished: "tls"
            case .authComplete: "auth"
            case .discovered: "discovered"
            case .channelOpened: "opened"
            default: "other"
            }
        }
        #expect(order == ["version", "tls", "auth", "discovered", "opened", "opened", "opened", "opened", "opened"])
        #expect(link.headUnitEvents.contains(.discoveryRequested(labelText: "Label", deviceName: "Device")))
    }

    /// We open exactly the listed services we drive: the PCM media audio sink but no other sink,
    /// never sensors, foreign vendor extensions or unlisted channels, and always on the channel ids
    /// the head unit assigned.
    @Test func opensOnlyListedChannelsWeDrive() throws {
        var car = HeadUnitConfiguration.aasdkLikeCar
        car.services = [
            CarService(channel: 1, kind: .sensor(types: [.drivingStatus, .nightMode])),
            CarService(channel: 3, kind: .mediaSink(audioType: .media, codec: .audioAacLcAdts)),
            CarService(channel: 4, kind: .mediaSink(audioType: .media, codec: .audioPcm)),
            CarService(channel: 5, kind: .mediaSink(audioType: .guidance, codec: .audioPcm)),
            CarService(channel: 6, kind: .mediaSink(audioType: .media, codec: .audioPcm)),
            CarService(channel: 40, kind: .mediaPlaybackStatus),
            CarService(channel: 41, kind: .vendorExtension(name: "com.example.other", data: [1, 2])),
            CarService(channel: 42, kind: .input(keycodes: [85, 87, 88])),
            CarService(channel: 200, kind: .vendorExtension(name: "dashport.media", data: [9])),
            CarService(channel: 12, kind: .other(field: 8)),
        ]
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(car: car))
        link.connectAndSettle()

        #expect(link.phone.car == car)
        // Of the four sinks only the first PCM media one (a VW MIB3 lists AAC and PCM media sinks).
        #expect(link.phoneOpenedChannels.sorted() == [4, 40, 42, 200])
        #expect(link.headUnit.openChannels == [4, 40, 42, 200])
        // The head unit would report any request for a channel it did not list.
        #expect(!link.headUnitEvents.contains { if case .channelOpenUnanswered = $0 { true } else { false } })
    }

    /// A custom service choice is honoured.
    @Test func wantsServiceDecidesWhatOpens() throws {
        let configuration = LinkConfiguration(wantsService: { $0.kind == .mediaPlaybackStatus })
        let link = try LinkHarness(phone: configuration)
        link.connectAndSettle()
        #expect(link.phoneOpenedChannels == [13])
        #expect(link.headUnit.openChannels == [13])
    }

    /// The flags on the wire: plain 0x03 on channel 0 during setup, encrypted BULK 0x0B for
    /// discovery, 0x0F for each CHANNEL_OPEN_REQUEST on its own channel.
    @Test func setupFramesCarryTheExpectedFlags() throws {
        let link = try LinkHarness()
        link.connectAndSettle()
        let frames = try WireInspector.frames(link.phoneWire)

        let plain = frames.filter { !$0.header.flags.contains(.encrypted) }
        #expect(plain.allSatisfy { $0.header.channel == 0 && $0.header.flags.rawValue == 0x03 })
        #expect(plain.compactMap(\.plainMessageId) == [2, 3, 3], "VERSION_RESPONSE, then two TLS flights")

        let encrypted = frames.filter { $0.header.flags.contains(.encrypted) }
        let discovery = try #require(encrypted.first)
        #expect(discovery.header.channel == 0 && discovery.header.flags.rawValue == 0x0B)
        let opens = encrypted.filter { $0.header.channel != 0 }
        #expect(opens.map(\.header.channel) == [8, 13, 15, 16, 4], "in the order the car lists them")
        #expect(opens.allSatisfy { $0.header.flags.rawValue == 0x0F })
        for frame in encrypted {
            #expect(frame.payload.count > 29, "each encrypted frame is one AES-GCM record")
        }
    }

    /// AUTH_COMPLETE is accepted plain (aasdk), encrypted (others) and with an empty body.
    @Test(arguments: [
        (HeadUnitConfiguration.ControlEncryption.plain, nil as [UInt8]?),
        (.encrypted, nil),
        (.plain, []),
        (.encrypted, []),
    ])
    func authCompleteVariantsAreAccepted(encryption: HeadUnitConfiguration.ControlEncryption, body: [UInt8]?) throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(controlEncryption: encryption, authCompleteBody: body))
        link.connectAndSettle()
        #expect(link.phoneEvents.contains(.authComplete))
        #expect(link.phone.phase == .running)
        let authFrame = try #require(
            try WireInspector.frames(link.headUnitWire).first {
                $0.header.flags.contains(.encrypted) == (encryption == .encrypted) && $0.header.channel == 0
                    && ($0.plainMessageId == 4 || encryption == .encrypted)
            })
        #expect(authFrame.header.flags.rawValue == (encryption == .encrypted ? 0x0B : 0x03))
    }

    /// AUTH_COMPLETE with a non-zero status ends the link.
    @Test func failedAuthenticationCloses() throws {
        let body = AAP.AuthResponse(status: -3).serializedBytes()
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(authCompleteBody: body))
        link.connectAndSettle()
        #expect(link.phoneClose == .authenticationFailed(status: -3))
        #expect(!link.phoneEvents.contains(.authComplete))
    }

    /// Setup runs the same when every delivery is cut into random pieces.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func setupSurvivesRandomSplits(seed: UInt64) throws {
        let link = try LinkHarness(splitSeed: seed)
        link.connectAndSettle()
        #expect(link.phoneClose == nil && link.headUnitClose == nil)
        #expect(link.phoneOpenedChannels.sorted() == [4, 8, 13, 15, 16])
    }
}
