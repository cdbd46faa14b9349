import DashportUSB
import DashportUSBHost
import Synchronization
import Testing

/// A bus the test scripts: devices come and go, control requests are recorded and answered.
final class FakeBus: USBBus {
    struct State {
        var devices: [USBDeviceInfo]
        var requests: [String] = []
        /// Scans left before a started phone shows up as the accessory; nil = never.
        var reEnumerateAfterScans: Int? = 2
        var pendingAccessory = false
        var unconfiguredReads = 2
        var protocolAnswer: [UInt8]? = [2, 0]  // nil = stall
        var opened: [USBDeviceInfo] = []
        var pipesOpened = 0
    }

    let state: Mutex<State>
    static let phone = USBDeviceInfo(bus: 1, address: 2, vendor: 0x18D1, product: 0x4EE1)
    static let hub = USBDeviceInfo(bus: 1, address: 1, vendor: 0x1D6B, product: 0x0002, deviceClass: 9)
    static let accessory = USBDeviceInfo(bus: 1, address: 3, vendor: 0x18D1, product: 0x2D00)

    init(devices: [USBDeviceInfo]) {
        state = Mutex(State(devices: devices))
    }

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
    var requests: [String] { state.withLock { $0.requests } }

    func scan() -> [USBDeviceInfo] {
        state.withLock { state in
            if state.pendingAccessory, let left = state.reEnumerateAfterScans {
                if left == 0 {
                    state.devices.removeAll { $0 == FakeBus.phone }
                    state.devices.append(FakeBus.accessory)
                    state.pendingAccessory = false
                } else {
                    state.reEnumerateAfterScans = left - 1
                }
            }
            return state.devices
        }
    }

    func open(_ device: USBDeviceInfo) throws(USBHostError) -> any USBDeviceHandle {
        try state.withLock { state throws(USBHostError) in
            guard state.devices.contains(device) else { throw .unplugged }
            state.opened.append(device)
        }
        return Handle(bus: self, device: device)
    }

    final class Handle: USBDeviceHandle {
        let bus: FakeBus
        let device: USBDeviceInfo
        init(bus: FakeBus, device: USBDeviceInfo) {
            self.bus = bus
            self.device = device
        }

        func activeConfiguration() -> Int {
            bus.state.withLock { state in
                if state.unconfiguredReads > 0 {
                    state.unconfiguredReads -= 1
                    return 0
                }
                return 1
            }
        }

        func controlIn(request: UInt8, value: UInt16, index: UInt16, length: Int, timeout: Duration) throws(USBHostError) -> [UInt8] {
            let answer = bus.state.withLock { state in
                state.requests.append("in \(request) length \(length)")
                return state.protocolAnswer
            }
            guard let answer else { throw .notAccessory("stalled") }
            return answer
        }

        func controlOut(request: UInt8, value: UInt16, index: UInt16, data: [UInt8], timeout: Duration) throws(USBHostError) {
            bus.state.withLock { state in
                state.requests.append("out \(request) index \(index) \(String(decoding: data, as: UTF8.self).debugDescription)")
                if request == 53 { state.pendingAccessory = true }
            }
        }

        func openBulkPipe() throws(USBHostError) -> any USBBulkPipe {
            bus.state.withLock { $0.pipesOpened += 1 }
            return NullPipe()
        }

        func close() {}
    }

    final class NullPipe: USBBulkPipe {
        let maxPacket = 512
        func read(count: Int, timeout: Duration) -> ([UInt8], BulkResult) { ([], .timedOut) }
        func write(_ bytes: [UInt8], timeout: Duration) -> BulkResult { .transferred(bytes.count) }
        func close() {}
    }
}

/// The car's side of the AOA switch against a fake bus.
@Suite struct AccessoryConnectorTests {
    static func connector(_ bus: FakeBus, match: USBDeviceMatch? = nil, wait: Duration = .seconds(2)) -> AccessoryConnector {
        var options = AccessoryConnector.Options(match: match)
        options.waitForDevice = wait
        options.waitForConfiguration = .seconds(2)
        options.pollInterval = .milliseconds(5)
        return AccessoryConnector(bus: bus, options: options)
    }

    @Test func switchesAPhoneAfterItIsConfiguredAndOpensTheAccessory() throws {
        let bus = FakeBus(devices: [FakeBus.hub, FakeBus.phone])
        let connected = try Self.connector(bus).connect()
        #expect(connected.switched)
        #expect(connected.protocolVersion == 2)
        #expect(connected.device == FakeBus.accessory)
        #expect(
            bus.requests == [
                "in 51 length 2",
                "out 52 index 0 \"Android\\0\"", "out 52 index 1 \"Android Auto\\0\"", "out 52 index 2 \"Android Auto\\0\"",
                "out 52 index 3 \"2.0.1\\0\"", "out 52 index 4 \"https://github.com/dashport\\0\"", "out 52 index 5 \"HU-DASHPORT-001\\0\"",
                "out 53 index 0 \"\"",
            ])
        // Request 51 only went out once the device was configured (two unconfigured reads first).
        #expect(bus.state.withLock { $0.unconfiguredReads } == 0)
        #expect(bus.state.withLock { $0.pipesOpened } == 1)
    }

    @Test func anAccessoryAlreadyOnTheBusIsUsedWithoutASwitch() throws {
        let bus = FakeBus(devices: [FakeBus.hub, FakeBus.accessory])
        let connected = try Self.connector(bus).connect()
        #expect(!connected.switched)
        #expect(bus.requests.isEmpty)
    }

    @Test func aMatchThatIsNotOnTheBusTimesOutWithWhatWasAwaited() {
        let bus = FakeBus(devices: [FakeBus.hub, FakeBus.phone])
        #expect(throws: USBHostError.self) {
            try Self.connector(bus, match: USBDeviceMatch("1234:5678"), wait: .milliseconds(50)).connect()
        }
        do {
            _ = try Self.connector(bus, match: USBDeviceMatch("1234:5678"), wait: .milliseconds(50)).connect()
        } catch {
            #expect(error.description.contains("1234:5678"))
        }
    }

    @Test func aDeviceThatStallsGetProtocolIsNotAnAccessory() {
        let bus = FakeBus(devices: [FakeBus.phone])
        bus.update { $0.protocolAnswer = nil }
        #expect(
            throws: USBHostError.notAccessory(
                "18d1:4ee1 (bus 1 device 2) stalled ACCESSORY_GET_PROTOCOL (51): it does not support Android Open Accessory")
        ) {
            try Self.connector(bus).connect()
        }
    }

    @Test(arguments: [[3, 0] as [UInt8], [0, 0], [2]])
    func anUnknownProtocolVersionIsRefused(answer: [UInt8]) {
        let bus = FakeBus(devices: [FakeBus.phone])
        bus.update { $0.protocolAnswer = answer }
        #expect(throws: USBHostError.self) { try Self.connector(bus).connect() }
        #expect(!bus.requests.contains { $0.hasPrefix("out 53") })
    }

    @Test func aPhoneThatNeverComesBackAsTheAccessoryIsReported() {
        let bus = FakeBus(devices: [FakeBus.phone])
        bus.update { $0.reEnumerateAfterScans = nil }
        do {
            _ = try Self.connector(bus, wait: .milliseconds(100)).connect()
            Issue.record("connected to a phone that never re-enumerated")
        } catch {
            #expect(error.description.contains("come back as the accessory 18d1:2d00 after START"))
        }
    }

    @Test func deviceMatchesParse() {
        #expect(USBDeviceMatch("18d1:4ee1") == USBDeviceMatch(vendor: 0x18D1, product: 0x4EE1))
        #expect(USBDeviceMatch("0x18D1") == USBDeviceMatch(vendor: 0x18D1))
        #expect(USBDeviceMatch("18d1:") == nil)
        #expect(USBDeviceMatch("phone") == nil)
        #expect(USBDeviceMatch("1:2:3") == nil)
    }
}
