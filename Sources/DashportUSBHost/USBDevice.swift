import DashportUSB

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
