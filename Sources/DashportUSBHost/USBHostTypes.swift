import DashportUSB
import Foundation

/// Why the car side of USB could not find, switch or talk to the phone; each text says what to check.
public enum USBHostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libusb itself failed to start.
    case library(String)
    /// Nothing to talk to after waiting; the text says what was looked for.
    case notFound(String)
    /// The device exists but may not be opened.
    case permission(String)
    /// The device does not do Android Open Accessory (stalled 51, or a version other than 1 or 2).
    case notAccessory(String)
    /// A control or bulk transfer failed.
    case transfer(String)
    /// The device left the bus.
    case unplugged

    public var description: String {
        switch self {
        case .library(let text): "libusb: \(text)"
        case .notFound(let text): text
        case .permission(let text):
            "\(text): permission denied; run as root or add a udev rule giving your user the device (MODE=\"0666\" for 18d1:*)"
        case .notAccessory(let text): text
        case .transfer(let text): text
        case .unplugged: "the USB device was unplugged"
        }
    }
}

/// A device on the bus, as a scan saw it.
public struct USBDeviceInfo: Sendable, Hashable, CustomStringConvertible {
    public var bus: UInt8
    public var address: UInt8
    public var vendor: UInt16
    public var product: UInt16
    /// bDeviceClass; 9 is a hub.
    public var deviceClass: UInt8

    public init(bus: UInt8, address: UInt8, vendor: UInt16, product: UInt16, deviceClass: UInt8 = 0) {
        self.bus = bus
        self.address = address
        self.vendor = vendor
        self.product = product
        self.deviceClass = deviceClass
    }

    public var isAccessory: Bool {
        vendor == AccessoryProtocol.googleVendor
            && (product == AccessoryProtocol.accessoryProduct || product == AccessoryProtocol.accessoryADBProduct)
    }

    public var isHub: Bool { deviceClass == 9 }

    public var description: String { "\(USBDeviceMatch.hex(vendor)):\(USBDeviceMatch.hex(product)) (bus \(bus) device \(address))" }
}

/// `VID:PID` (hex) or `VID` alone, as given to `--usb`.
public struct USBDeviceMatch: Sendable, Hashable, CustomStringConvertible {
    public var vendor: UInt16
    public var product: UInt16?

    public init(vendor: UInt16, product: UInt16? = nil) {
        self.vendor = vendor
        self.product = product
    }

    /// Parses "18d1:4ee1", "0x18d1:0x4ee1" or "18d1"; nil when it is not that.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map {
            $0.lowercased().hasPrefix("0x") ? String($0.dropFirst(2)) : String($0)
        }
        guard (1...2).contains(parts.count), let vendor = UInt16(parts[0], radix: 16) else { return nil }
        self.vendor = vendor
        if parts.count == 2 {
            guard let product = UInt16(parts[1], radix: 16) else { return nil }
            self.product = product
        }
    }

    public func matches(_ device: USBDeviceInfo) -> Bool {
        device.vendor == vendor && (product == nil || device.product == product)
    }

    public var description: String { product.map { "\(Self.hex(vendor)):\(Self.hex($0))" } ?? Self.hex(vendor) }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The bus, as the accessory switch needs it. ``LibUSBBus`` is the real one; tests use a fake.
public protocol USBBus: Sendable {
    /// Every device on the bus now. Each call looks afresh (a new libusb context without udev).
    func scan() throws(USBHostError) -> [USBDeviceInfo]
    func open(_ device: USBDeviceInfo) throws(USBHostError) -> any USBDeviceHandle
    /// Waits until the bus may have changed: up to `interval`, or less when told of a change.
    func waitForChange(_ interval: Duration)
    /// Whether ``waitForChange(_:)`` is woken by hotplug events (else it just sleeps).
    var waitsWithHotplug: Bool { get }
}

extension USBBus {
    public func waitForChange(_ interval: Duration) {
        Thread.sleep(forTimeInterval: Double(interval.milliseconds) / 1000)
    }

    public var waitsWithHotplug: Bool { false }
}

/// An opened device.
public protocol USBDeviceHandle: Sendable {
    /// bConfigurationValue of the active configuration; 0 while the kernel has not configured it.
    func activeConfiguration() throws(USBHostError) -> Int
    /// A vendor, device-recipient IN request; the data the device answered.
    func controlIn(request: UInt8, value: UInt16, index: UInt16, length: Int, timeout: Duration) throws(USBHostError) -> [UInt8]
    /// A vendor, device-recipient OUT request.
    func controlOut(request: UInt8, value: UInt16, index: UInt16, data: [UInt8], timeout: Duration) throws(USBHostError)
    /// Claims interface 0 and finds its bulk IN and OUT endpoints in the configuration descriptor.
    func openBulkPipe() throws(USBHostError) -> any USBBulkPipe
    func close()
}

/// What one bulk transfer did.
public enum BulkResult: Sendable, Hashable {
    case transferred(Int)
    case timedOut
    case unplugged
    case failed(String)
}

/// The accessory's bulk IN and OUT endpoints.
public protocol USBBulkPipe: Sendable {
    /// wMaxPacketSize of the endpoints (512 at high speed).
    var maxPacket: Int { get }
    /// Reads into a buffer of `count` bytes (16 KiB); returns the bytes or why not.
    func read(count: Int, timeout: Duration) -> ([UInt8], BulkResult)
    /// Writes one transfer (`bytes` may be empty: a zero-length packet).
    func write(_ bytes: [UInt8], timeout: Duration) -> BulkResult
    /// Releases the interface and closes the device.
    func close()
}

extension Duration {
    var milliseconds: UInt32 {
        let value = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(0, value))
    }
}
