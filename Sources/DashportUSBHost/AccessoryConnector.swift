import Foundation
public import DashportLog
import DashportUSB

/// The car's half of the Android Open Accessory switch (aap-protocol.md §5.1), against any
/// ``USBBus``: find the phone (or wait for it), wait until the kernel has configured it, ask for
/// the protocol (51), send the six strings (52), START (53), wait for it to come back as
/// 18d1:2d00/2d01, and open its bulk pipe. A device that already is the accessory is used as it is.
public struct AccessoryConnector: Sendable {
    public struct Options: Sendable {
        /// What to switch; nil = the first device that is not a hub (or the accessory itself).
        public var match: USBDeviceMatch?
        /// The identification strings: manufacturer, model, description, version, URI, serial (as aasdk sends).
        public var strings = ["Android", "Android Auto", "Android Auto", "2.0.1", "https://github.com/dashport", "HU-DASHPORT-001"]
        /// How long to wait for the phone to appear, and again for the accessory after START.
        public var waitForDevice: Duration = .seconds(10)
        /// How long a freshly enumerated device may take to be configured.
        public var waitForConfiguration: Duration = .seconds(3)
        /// Each control transfer (aasdk: 1000 ms).
        public var controlTimeout: Duration = .seconds(1)
        /// Between scans while waiting.
        public var pollInterval: Duration = .milliseconds(100)
        public init(match: USBDeviceMatch? = nil) { self.match = match }
    }

    public let bus: any USBBus
    public let options: Options
    let logger: Logger

    public init(bus: any USBBus, options: Options = Options(), logger: Logger = .silent) {
        self.bus = bus
        self.options = options
        self.logger = logger
    }

    /// What ``connect()`` opened.
    public struct Connected: Sendable {
        public let device: USBDeviceInfo
        public let pipe: any USBBulkPipe
        /// Whether the switch was done (false: the device already was the accessory).
        public let switched: Bool
        /// The AOA version the phone announced (nil when no switch was needed).
        public let protocolVersion: UInt16?
    }

    /// Runs the whole sequence, blocking the calling thread (use ``connectAsync()`` from async code).
    public func connect() throws(USBHostError) -> Connected {
        let first = try waitForDevice(
            "a phone\(options.match.map { " \($0)" } ?? "") or an accessory 18d1:2d00 on the USB bus"
        ) { devices in
            devices.first(where: \.isAccessory) ?? devices.first { !$0.isHub && (options.match?.matches($0) ?? true) }
        }
        if first.isAccessory {
            logger.info("\(first) already is an accessory; no switch")
            return Connected(device: first, pipe: try openAccessory(first), switched: false, protocolVersion: nil)
        }
        let version = try switchToAccessory(first)
        let accessory = try waitForDevice("\(first) to come back as the accessory 18d1:2d00 after START") { devices in
            devices.first(where: \.isAccessory)
        }
        logger.info("accessory \(accessory) appeared")
        return Connected(device: accessory, pipe: try openAccessory(accessory), switched: true, protocolVersion: version)
    }

    /// ``connect()`` on a thread of its own, so no task of the cooperative pool blocks in libusb.
    public func connectAsync() async throws(USBHostError) -> Connected {
        let result: Result<Connected, USBHostError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(USBHostError) {
                    continuation.resume(returning: .success(try connect()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// 51, six 52s, 53. Returns the protocol version the phone announced.
    func switchToAccessory(_ device: USBDeviceInfo) throws(USBHostError) -> UInt16 {
        let handle = try bus.open(device)
        defer { handle.close() }
        try waitForConfiguration(handle, device)
        let answer: [UInt8]
        do {
            answer = try handle.controlIn(
                request: AccessoryProtocol.getProtocol, value: 0, index: 0, length: 2, timeout: options.controlTimeout)
        } catch .notAccessory {
            throw .notAccessory("\(device) stalled ACCESSORY_GET_PROTOCOL (51): it does not support Android Open Accessory")
        }
        guard answer.count == 2 else { throw .notAccessory("\(device) answered request 51 with \(answer.count) bytes, not 2") }
        let version = UInt16(answer[0]) | UInt16(answer[1]) << 8
        guard version == 1 || version == 2 else {
            throw .notAccessory("\(device) announced accessory protocol \(version); only 1 and 2 are known")
        }
        logger.info("\(device) speaks accessory protocol \(version)")
        for (index, text) in options.strings.prefix(6).enumerated() {
            try handle.controlOut(
                request: AccessoryProtocol.sendString, value: 0, index: UInt16(index), data: Array(text.utf8) + [0],
                timeout: options.controlTimeout)
        }
        do {
            try handle.controlOut(request: AccessoryProtocol.start, value: 0, index: 0, data: [], timeout: options.controlTimeout)
        } catch .unplugged {
            // The phone may leave the bus before the status stage is seen; that is the switch happening.
        }
        logger.info("sent START to \(device); waiting for the accessory")
        return version
    }

    func openAccessory(_ device: USBDeviceInfo) throws(USBHostError) -> any USBBulkPipe {
        let handle = try bus.open(device)
        do {
            try waitForConfiguration(handle, device)
            return try handle.openBulkPipe()
        } catch {
            handle.close()
            throw error
        }
    }

    /// A device shows up in sysfs before the kernel has configured it; requests sent in that
    /// window are stalled (usb-e2e.md).
    func waitForConfiguration(_ handle: any USBDeviceHandle, _ device: USBDeviceInfo) throws(USBHostError) {
        let deadline = ContinuousClock.now + options.waitForConfiguration
        while try handle.activeConfiguration() == 0 {
            guard ContinuousClock.now < deadline else {
                throw .notFound("\(device) was not configured within \(options.waitForConfiguration)")
            }
            Thread.sleep(forTimeInterval: seconds(options.pollInterval))
        }
    }

    func waitForDevice(_ what: String, _ pick: ([USBDeviceInfo]) -> USBDeviceInfo?) throws(USBHostError) -> USBDeviceInfo {
        let deadline = ContinuousClock.now + options.waitForDevice
        var announced = false
        while true {
            if let found = pick(try bus.scan()) { return found }
            guard ContinuousClock.now < deadline else {
                throw .notFound(
                    "timed out after \(options.waitForDevice) waiting for \(what); check the cable, `lsusb`, and that the phone side serves USB"
                )
            }
            if !announced {
                logger.notice(
                    "waiting for \(what)", ["watching": bus.waitsWithHotplug ? "libusb hotplug (udev runs)" : "polling (no udev)"])
                announced = true
            }
            bus.waitForChange(options.pollInterval)
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
