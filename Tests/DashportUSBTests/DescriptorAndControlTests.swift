import DashportUSB
import Testing

/// What the gadget writes to ep0 and how it reads the ep0 event stream, against fixtures made
/// from the kernel's documented layout by Fixtures/usb/generate.py.
@Suite struct DescriptorAndEventTests {
    @Test func descriptorsAreTheV2FixtureByteForByte() throws {
        #expect(FunctionFSDescriptors.descriptors() == (try USBFixture.bytes("descriptors-v2.bin")))
    }

    @Test func stringsAreTheFixtureByteForByte() throws {
        #expect(FunctionFSDescriptors.strings() == (try USBFixture.bytes("strings.bin")))
    }

    @Test func theEventStreamOfAnAOASwitchDecodes() throws {
        let events = FunctionFSEvent.decode(try USBFixture.bytes("events-aoa.bin"))
        #expect(
            events == [
                .bind, .enable,
                .setup(SetupPacket(requestType: 0xC0, request: 51, length: 2)),
                .setup(SetupPacket(requestType: 0x40, request: 52, index: 0, length: 8)),
                .setup(SetupPacket(requestType: 0x40, request: 53)),
                .suspend, .unbind,
            ])
        #expect(events.flatMap(\.record) == (try USBFixture.bytes("events-aoa.bin")))
    }

    @Test func aTrailingPartialRecordAndUnknownTypesAreIgnored() {
        var bytes = FunctionFSEvent.enable.record + FunctionFSEvent.unknown(42).record
        bytes += [1, 2, 3]
        #expect(FunctionFSEvent.decode(bytes) == [.enable, .unknown(42)])
        #expect(FunctionFSEvent.decode([]) == [])
    }

    @Test(arguments: [
        (1, 512, false), (511, 512, false), (512, 512, true), (1024, 512, true), (16384, 512, false),
        (16383, 512, false), (15872, 512, true), (64, 64, true), (0, 512, false), (128, 64, true),
    ])
    func zeroLengthPacketRule(length: Int, maxPacket: Int, expected: Bool) {
        #expect(AccessoryProtocol.needsZeroLengthPacket(length: length, maxPacket: maxPacket) == expected)
    }
}

/// The ep0 state machine: each AOA request answered, everything else stalled, link up and down.
@Suite struct AccessoryControlTests {
    @Test func getProtocolIsAnsweredWithVersion2LittleEndian() {
        var control = AccessoryControl(mode: .switch)
        #expect(control.handle(.setup(SetupPacket(requestType: 0xC0, request: 51, length: 2))) == [.write([2, 0])])
        #expect(control.handle(.setup(SetupPacket(requestType: 0xC0, request: 51, length: 1))) == [.write([2])])
    }

    @Test func sendStringReadsTheDataStageAndKeepsItByIndex() {
        var control = AccessoryControl(mode: .switch)
        #expect(
            control.handle(.setup(SetupPacket(requestType: 0x40, request: 52, index: 1, length: 13))) == [.readString(index: 1, length: 13)]
        )
        control.stringReceived(index: 1, bytes: Array("Android Auto".utf8) + [0])
        control.stringReceived(index: 0, bytes: Array("Android".utf8) + [0, 0x41])
        #expect(control.strings.model == "Android Auto")
        #expect(control.strings.manufacturer == "Android")
        #expect(control.takeNotes().contains("car sent its model: \"Android Auto\""))
    }

    @Test func startSwitchesOnceInSwitchModeAndASecondStartIsOnlyAcknowledged() {
        var control = AccessoryControl(mode: .switch)
        let start = FunctionFSEvent.setup(SetupPacket(requestType: 0x40, request: 53))
        #expect(control.handle(start) == [.acknowledge, .switchToAccessory])
        #expect(control.handle(start) == [.acknowledge])
        #expect(control.startCount == 2)
        // The switch completes when the car configures the accessory; the next START switches again.
        #expect(control.handle(.enable) == [.linkUp])
        #expect(control.handle(start) == [.acknowledge, .switchToAccessory])
    }

    @Test func startInDirectModeIsAcknowledgedWithoutASwitch() {
        var control = AccessoryControl(mode: .direct)
        #expect(control.handle(.setup(SetupPacket(requestType: 0x40, request: 53))) == [.acknowledge])
    }

    @Test func aFailedSwitchLetsTheNextStartTryAgain() {
        var control = AccessoryControl(mode: .switch)
        let start = FunctionFSEvent.setup(SetupPacket(requestType: 0x40, request: 53))
        _ = control.handle(start)
        control.switchFailed()
        #expect(control.handle(start) == [.acknowledge, .switchToAccessory])
    }

    @Test(arguments: [
        SetupPacket(requestType: 0xC0, request: 50, length: 2),  // unknown vendor IN
        SetupPacket(requestType: 0x40, request: 54),  // unknown vendor OUT
        SetupPacket(requestType: 0x40, request: 52, index: 6, length: 4),  // string index out of range
        SetupPacket(requestType: 0x40, request: 52, index: 0, length: 0),  // string without data
        SetupPacket(requestType: 0x40, request: 53, length: 4),  // START with data
        SetupPacket(requestType: 0xC0, request: 51, length: 0),  // protocol without room for it
        SetupPacket(requestType: 0x80, request: 6, value: 0x0300, length: 255),  // standard request
        SetupPacket(requestType: 0x21, request: 9, length: 8),  // class request
    ])
    func everythingElseIsStalledInItsOwnDirection(packet: SetupPacket) {
        var control = AccessoryControl(mode: .switch)
        #expect(control.handle(.setup(packet)) == [.stall(isIn: packet.isIn)])
    }

    @Test func enableDisableUnbindSuspendBecomeLinkUpAndDown() {
        var control = AccessoryControl(mode: .direct)
        #expect(control.handle(.bind) == [])
        #expect(control.handle(.enable) == [.linkUp])
        #expect(control.handle(.enable) == [.linkDown(.reconfigured), .linkUp])  // host reset
        #expect(control.handle(.suspend) == [.linkDown(.suspended)])
        #expect(control.handle(.suspend) == [])  // nothing was enabled any more
        #expect(control.handle(.unbind) == [.linkDown(.unbound)])
        #expect(control.handle(.resume) == [])
        #expect(control.handle(.enable) == [.linkUp])
        #expect(control.handle(.disable) == [.linkDown(.disabled)])
        #expect(control.enabled == false)
    }
}
