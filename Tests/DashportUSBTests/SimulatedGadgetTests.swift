import DashportClock
import DashportEmulator
import DashportHeadUnit
import DashportLog
import DashportServer
import DashportTestSupport
import DashportTransport
import DashportUSB
import DashportUSBHost
import Foundation
import Synchronization
import Testing

/// The FunctionFS transport against simulated endpoint files: the test plays the kernel on ep0
/// (events, the car's control data) and the car on the bulk pipes.
@Suite(.serialized) struct SimulatedGadgetTests {
    /// A gadget on simulated endpoints whose sessions are collected, for transport-level tests.
    final class Harness: Sendable {
        let endpoints = SimulatedEndpoints()
        let gadget: FunctionFSGadget
        let sessions = Mutex<[USBSessionStream]>([])
        let received = Mutex<[[UInt8]]>([])
        let closed = Mutex<[TransportError?]>([])
        let log = CollectingSink()

        init(mode: GadgetMode = .direct, identity: GadgetIdentity? = nil, clock: any DashportClock = SystemClock()) throws {
            gadget = FunctionFSGadget(
                endpoints: endpoints, identity: identity, options: FunctionFSGadget.Options(mode: mode),
                clock: clock, logger: Logger(label: "test", level: .debug, sink: log))
            try gadget.start { stream in
                self.sessions.withLock { $0.append(stream) }
                stream.start { event in
                    switch event {
                    case .received(let bytes): self.received.withLock { $0.append(bytes) }
                    case .closed(let error): self.closed.withLock { $0.append(error) }
                    }
                }
            }
        }

        var sessionCount: Int { sessions.withLock { $0.count } }
        var current: USBSessionStream? { sessions.withLock { $0.last } }

        /// Stops the gadget, then closes the test's ends so the threads' blocked reads return.
        func stop() {
            gadget.stop()
            endpoints.close()
            #expect(gadget.waitForThreads(timeout: .seconds(10)))
        }
    }

    @Test func theDescriptorsThenTheStringsAreWrittenToEp0First() throws {
        let harness = try Harness()
        defer { harness.stop() }
        let descriptors = try USBFixture.bytes("descriptors-v2.bin")
        let strings = try USBFixture.bytes("strings.bin")
        #expect(harness.endpoints.readControl(descriptors.count) == descriptors)
        #expect(harness.endpoints.readControl(strings.count) == strings)
    }

    @Test func eachAOARequestIsAnsweredAndStartReEnumeratesThroughConfigfs() async throws {
        let configfs = try FakeConfigfs()
        defer { configfs.remove() }
        let harness = try Harness(mode: .switch, identity: configfs.identity)
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        // Bound at start as the phone.
        #expect(configfs.read("idProduct") == "0x4ee1")
        #expect(configfs.read("UDC") == "dummy_udc.0")

        sim.post(.bind)
        sim.post(.enable)
        sim.post(.setup(SetupPacket(requestType: 0xC0, request: 51, length: 2)))
        #expect(sim.readControl(2) == [2, 0])
        let strings = ["Android", "Android Auto", "Android Auto", "2.0.1", "https://example.com", "HU-1"]
        for (index, text) in strings.enumerated() {
            let data = Array(text.utf8) + [0]
            sim.post(.setup(SetupPacket(requestType: 0x40, request: 52, index: UInt16(index), length: UInt16(data.count))))
            sim.sendControlData(data)
        }
        sim.post(.setup(SetupPacket(requestType: 0x40, request: 53)))
        try await eventually("configfs.read('idProduct') == '0x2d00' && configfs.read('UDC') == 'dummy_udc.0'") {
            configfs.read("idProduct") == "0x2d00" && configfs.read("UDC") == "dummy_udc.0"
        }
        #expect(harness.log.contains(.info, "model=Android Auto"))
        try await eventually("harness.log.contains(.notice, 're-enumerated as the accessory 18d1:2d00')") {
            harness.log.contains(.notice, "re-enumerated as the accessory 18d1:2d00")
        }
        // No session while the car only saw the phone.
        #expect(harness.sessionCount == 0)

        // The re-enumeration: the car configures the accessory, a session starts.
        sim.post(.suspend)
        sim.post(.unbind)
        sim.post(.bind)
        sim.post(.enable)
        try await eventually("harness.sessionCount == 1") { harness.sessionCount == 1 }

        // A host reset that configures the accessory again: a fresh session, still the accessory.
        sim.post(.enable)
        try await eventually("harness.sessionCount == 2 && harness.closed.withLock { $0.count } == 1") {
            harness.sessionCount == 2 && harness.closed.withLock { $0.count } == 1
        }
        #expect(configfs.read("idProduct") == "0x2d00")

        // Unplug: SUSPEND then UNBIND, no DISABLE. The session ends; the next car meets the phone.
        sim.post(.suspend)
        sim.post(.unbind)
        try await eventually("harness.closed.withLock { $0.count } == 2") { harness.closed.withLock { $0.count } == 2 }
        try await eventually("configfs.read('idProduct') == '0x4ee1'") { configfs.read("idProduct") == "0x4ee1" }
    }

    @Test func bulkTransfersFollowTheZeroLengthPacketRuleBothWays() async throws {
        let harness = try Harness()
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        sim.post(.enable)
        try await eventually("harness.sessionCount == 1") { harness.sessionCount == 1 }
        let session = try #require(harness.current)

        session.write([UInt8](repeating: 1, count: 512))
        #expect(sim.readTransfer()?.count == 512)
        #expect(sim.readTransfer() == [])  // the zero-length packet
        session.write([UInt8](repeating: 2, count: 16384 + 100))
        #expect(sim.readTransfer()?.count == 16384)  // full transfer: no ZLP
        #expect(sim.readTransfer()?.count == 100)
        session.write([UInt8](repeating: 3, count: 700))
        #expect(sim.readTransfer()?.count == 700)
        #expect(sim.readTransfer(timeout: 200) == nil)  // nothing more

        sim.carSends([])  // a zero-length packet from the car is ignored
        sim.carSends([9, 8, 7])
        try await eventually("harness.received.withLock { $0 } == [[9, 8, 7]]") { harness.received.withLock { $0 } == [[9, 8, 7]] }
    }

    @Test func disableMidMessageEndsTheSessionAndTheNextEnableStartsAFreshOne() async throws {
        let harness = try Harness()
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        sim.post(.enable)
        try await eventually("harness.sessionCount == 1") { harness.sessionCount == 1 }
        sim.carSends([0, 3, 0, 6])  // half a frame header
        try await eventually("harness.received.withLock { $0.count } == 1") { harness.received.withLock { $0.count } == 1 }
        sim.post(.disable)
        try await eventually("harness.closed.withLock { $0.count } == 1") { harness.closed.withLock { $0.count } == 1 }
        let error = harness.closed.withLock { $0.first } ?? nil
        #expect(error == .io("USB link lost: \(USBLinkLoss.disabled)"))
        // Bytes written into a dead session go nowhere.
        harness.sessions.withLock { $0[0] }.write([1, 2, 3])
        #expect(sim.readTransfer(timeout: 200) == nil)

        sim.post(.enable)
        try await eventually("harness.sessionCount == 2") { harness.sessionCount == 2 }
        sim.carSends([5])
        try await eventually("harness.received.withLock { $0.last } == [5]") { harness.received.withLock { $0.last } == [5] }
        // A host reset: ENABLE again without DISABLE ends the running session too.
        sim.post(.enable)
        try await eventually("harness.sessionCount == 3 && harness.closed.withLock { $0.count } == 2") {
            harness.sessionCount == 3 && harness.closed.withLock { $0.count } == 2
        }
    }

    @Test func aCarThatConfiguresThePhoneButNeverSendsStartIsReportedOnce() async throws {
        let configfs = try FakeConfigfs()
        defer { configfs.remove() }
        let clock = ManualClock()
        let harness = try Harness(mode: .switch, identity: configfs.identity, clock: clock)
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        sim.post(.bind)
        sim.post(.enable)
        try await eventually("clock.pendingTimerCount == 1") { clock.pendingTimerCount == 1 }
        await clock.advance(by: .seconds(9))
        #expect(!harness.log.contains(.warning, "has not started Android Open Accessory"))
        await clock.advance(by: .seconds(1))
        #expect(harness.log.contains(.warning, "has not started Android Open Accessory (no request 53 within 10.0 seconds)"))
        #expect(harness.log.contains(.warning, "--usb-mode direct"))
    }

    @Test func aStartInTimeSilencesTheNoStartWarning() async throws {
        let configfs = try FakeConfigfs()
        defer { configfs.remove() }
        let clock = ManualClock()
        let harness = try Harness(mode: .switch, identity: configfs.identity, clock: clock)
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        sim.post(.enable)
        try await eventually("clock.pendingTimerCount == 1") { clock.pendingTimerCount == 1 }
        sim.post(.setup(SetupPacket(requestType: 0x40, request: 53)))
        sim.post(.suspend)
        sim.post(.unbind)
        sim.post(.enable)  // the accessory: a session
        try await eventually("harness.sessionCount == 1") { harness.sessionCount == 1 }
        await clock.advance(by: .seconds(30))
        #expect(!harness.log.contains(.warning, "has not started Android Open Accessory"))
    }

    @Test func theCarSpeakingBeforeEnableIsProcessedIsNotLost() async throws {
        let harness = try Harness()
        defer { harness.stop() }
        let sim = harness.endpoints
        _ = sim.readControl(66 + 46)
        sim.carSends([1, 2])
        // The gadget has read the bytes and kept them: no session before the ENABLE.
        try await eventually("the early bytes kept") { harness.log.contains(.debug, "kept 2 bytes from the car") }
        #expect(harness.sessionCount == 0)
        sim.post(.enable)
        try await eventually("harness.received.withLock { $0 } == [[1, 2]]") { harness.received.withLock { $0 } == [[1, 2]] }
    }
}
