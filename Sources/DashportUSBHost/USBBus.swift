import DashportClock
import Foundation

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
    /// The whole milliseconds libusb's timeouts take (negative durations are 0).
    var milliseconds: UInt32 { UInt32(clamping: max(0, wholeMilliseconds)) }
}
