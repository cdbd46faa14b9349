import CDashportUSB
import Foundation
import Glibc
import Synchronization

/// The real bus, through libusb. Every ``scan()`` uses a fresh libusb context: without a running
/// udevd, an existing context never sees a device that enumerated after it was made
/// (usb-e2e.md), and the accessory switch is exactly that.
///
/// Waiting for a device (``waitForChange(_:)``) uses libusb's hotplug events when udevd runs, and
/// plain polling when it does not.
public struct LibUSBBus: USBBus {
    let hotplug: LibUSBHotplug?

    public init() {
        hotplug = LibUSBHotplug()
    }

    public var waitsWithHotplug: Bool { hotplug != nil }

    public func waitForChange(_ interval: Duration) {
        guard let hotplug else {
            Thread.sleep(forTimeInterval: Double(interval.milliseconds) / 1000)
            return
        }
        // Events wake us at once; the longer limit still rescans now and then in case one is missed.
        _ = hotplug.wait(max(interval, .seconds(1)))
    }

    public func scan() throws(USBHostError) -> [USBDeviceInfo] {
        let context = try LibUSBContext()
        defer { context.close() }
        return context.withDevices { devices in devices.map(\.info) }
    }

    public func open(_ device: USBDeviceInfo) throws(USBHostError) -> any USBDeviceHandle {
        let context = try LibUSBContext()
        var handle: OpaquePointer?
        let result = context.withDevices { devices -> Int32 in
            guard let found = devices.first(where: { $0.info.bus == device.bus && $0.info.address == device.address }) else {
                return LIBUSB_ERROR_NO_DEVICE.rawValue
            }
            return libusb_open(found.pointer, &handle)
        }
        guard result == 0, let handle else {
            context.close()
            if result == LIBUSB_ERROR_ACCESS.rawValue { throw .permission("opening \(device)") }
            if result == LIBUSB_ERROR_NO_DEVICE.rawValue { throw .unplugged }
            throw .transfer("opening \(device): \(LibUSBContext.describe(result))")
        }
        return LibUSBDeviceHandle(context: context, handle: handle, info: device)
    }
}

/// One libusb context. Not shared across threads except through ``LibUSBDeviceHandle``.
final class LibUSBContext: Sendable {
    /// The `libusb_context *`, as an address: libusb contexts are thread-safe, and an integer is
    /// how a Sendable value can carry one without unchecked conformances.
    let bits: UInt

    init() throws(USBHostError) {
        var context: OpaquePointer?
        let result = libusb_init(&context)
        guard result == 0, let context else { throw .library("cannot initialise: \(LibUSBContext.describe(result))") }
        bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context)))
    }

    var pointer: OpaquePointer {
        // Non-nil: `bits` came from a non-nil context in init.
        OpaquePointer(bitPattern: Int(bitPattern: bits))!
    }

    struct Device {
        let pointer: OpaquePointer
        let info: USBDeviceInfo
    }

    /// The devices of one `libusb_get_device_list`, valid only inside `body`.
    func withDevices<T>(_ body: ([Device]) -> T) -> T {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(pointer, &list)
        guard count >= 0, let list else { return body([]) }
        defer { libusb_free_device_list(list, 1) }
        var devices: [Device] = []
        for index in 0..<count {
            guard let device = list[index] else { continue }
            var descriptor = libusb_device_descriptor()
            guard libusb_get_device_descriptor(device, &descriptor) == 0 else { continue }
            devices.append(
                Device(
                    pointer: device,
                    info: USBDeviceInfo(
                        bus: libusb_get_bus_number(device), address: libusb_get_device_address(device),
                        vendor: descriptor.idVendor, product: descriptor.idProduct, deviceClass: descriptor.bDeviceClass)))
        }
        return body(devices)
    }

    func close() {
        libusb_exit(pointer)
    }

    static func describe(_ code: Int32) -> String {
        guard let name = libusb_strerror(code) else { return "error \(code)" }
        return String(cString: name)
    }
}

/// An opened device and the context that owns it; closing it ends both.
final class LibUSBDeviceHandle: USBDeviceHandle {
    let context: LibUSBContext
    /// The `libusb_device_handle *` as an address (see ``LibUSBContext/bits``); libusb allows
    /// synchronous transfers on one handle from several threads.
    let bits: UInt
    let info: USBDeviceInfo
    let closed = Mutex(false)

    init(context: LibUSBContext, handle: OpaquePointer, info: USBDeviceInfo) {
        self.context = context
        self.bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        self.info = info
    }

    var handle: OpaquePointer {
        // Non-nil: `bits` came from the non-nil handle given to init.
        OpaquePointer(bitPattern: Int(bitPattern: bits))!
    }

    func activeConfiguration() throws(USBHostError) -> Int {
        var configuration: Int32 = 0
        let result = libusb_get_configuration(handle, &configuration)
        if result == LIBUSB_ERROR_NO_DEVICE.rawValue { throw .unplugged }
        guard result == 0 else { throw .transfer("reading the configuration of \(info): \(LibUSBContext.describe(result))") }
        return Int(configuration)
    }

    func controlIn(request: UInt8, value: UInt16, index: UInt16, length: Int, timeout: Duration) throws(USBHostError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, length))
        let type = UInt8(LIBUSB_ENDPOINT_IN.rawValue | LIBUSB_REQUEST_TYPE_VENDOR.rawValue | LIBUSB_RECIPIENT_DEVICE.rawValue)
        let result = buffer.withUnsafeMutableBufferPointer { data in
            libusb_control_transfer(handle, type, request, value, index, data.baseAddress, UInt16(length), timeout.milliseconds)
        }
        guard result >= 0 else { throw Self.error(result, "request \(request) to \(info)") }
        return Array(buffer.prefix(Int(result)))
    }

    func controlOut(request: UInt8, value: UInt16, index: UInt16, data: [UInt8], timeout: Duration) throws(USBHostError) {
        var bytes = data
        let type = UInt8(LIBUSB_ENDPOINT_OUT.rawValue | LIBUSB_REQUEST_TYPE_VENDOR.rawValue | LIBUSB_RECIPIENT_DEVICE.rawValue)
        let result = bytes.withUnsafeMutableBufferPointer { buffer in
            libusb_control_transfer(
                handle, type, request, value, index, buffer.count == 0 ? nil : buffer.baseAddress, UInt16(buffer.count),
                timeout.milliseconds)
        }
        guard result >= 0 else { throw Self.error(result, "request \(request) to \(info)") }
    }

    func openBulkPipe() throws(USBHostError) -> any USBBulkPipe {
        var config: UnsafeMutablePointer<libusb_config_descriptor>?
        let found = libusb_get_active_config_descriptor(libusb_get_device(handle), &config)
        guard found == 0, let config else { throw Self.error(found, "reading the configuration descriptor of \(info)") }
        defer { libusb_free_config_descriptor(config) }
        guard config.pointee.bNumInterfaces >= 1, let interface = config.pointee.interface,
            interface.pointee.num_altsetting >= 1, let setting = interface.pointee.altsetting
        else {
            throw .notAccessory("\(info) has no interface 0")
        }
        var input: UInt8?
        var output: UInt8?
        var maxPacket = 512
        for index in 0..<Int(setting.pointee.bNumEndpoints) {
            guard let endpoint = setting.pointee.endpoint?[index] else { continue }
            guard endpoint.bmAttributes & 0x03 == UInt8(LIBUSB_TRANSFER_TYPE_BULK.rawValue) else { continue }
            if endpoint.bEndpointAddress & 0x80 != 0 {
                input = input ?? endpoint.bEndpointAddress
            } else {
                output = output ?? endpoint.bEndpointAddress
            }
            maxPacket = Int(endpoint.wMaxPacketSize & 0x7FF)
        }
        guard let input, let output else { throw .notAccessory("\(info): interface 0 lacks a bulk IN and a bulk OUT endpoint") }
        let claimed = libusb_claim_interface(handle, 0)
        guard claimed == 0 else { throw Self.error(claimed, "claiming interface 0 of \(info)") }
        return LibUSBBulkPipe(device: self, input: input, output: output, maxPacket: maxPacket)
    }

    func close() {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        libusb_close(handle)
        context.close()
    }

    static func error(_ code: Int32, _ what: String) -> USBHostError {
        switch code {
        case LIBUSB_ERROR_NO_DEVICE.rawValue: .unplugged
        case LIBUSB_ERROR_ACCESS.rawValue: .permission(what)
        case LIBUSB_ERROR_PIPE.rawValue: .notAccessory("\(what): the device stalled it")
        default: .transfer("\(what): \(LibUSBContext.describe(code))")
        }
    }
}

/// Bulk transfers on the claimed accessory interface.
final class LibUSBBulkPipe: USBBulkPipe {
    let device: LibUSBDeviceHandle
    let input: UInt8
    let output: UInt8
    let maxPacket: Int

    init(device: LibUSBDeviceHandle, input: UInt8, output: UInt8, maxPacket: Int) {
        self.device = device
        self.input = input
        self.output = output
        self.maxPacket = maxPacket
    }

    func read(count: Int, timeout: Duration) -> ([UInt8], BulkResult) {
        var buffer = [UInt8](repeating: 0, count: count)
        var transferred: Int32 = 0
        let result = buffer.withUnsafeMutableBufferPointer { data in
            libusb_bulk_transfer(device.handle, input, data.baseAddress, Int32(data.count), &transferred, timeout.milliseconds)
        }
        if result == 0 || (result == LIBUSB_ERROR_TIMEOUT.rawValue && transferred > 0) {
            return (Array(buffer.prefix(Int(transferred))), .transferred(Int(transferred)))
        }
        return ([], outcome(result))
    }

    func write(_ bytes: [UInt8], timeout: Duration) -> BulkResult {
        var data = bytes
        var transferred: Int32 = 0
        let result = data.withUnsafeMutableBufferPointer { buffer in
            libusb_bulk_transfer(
                device.handle, output, buffer.count == 0 ? nil : buffer.baseAddress, Int32(buffer.count), &transferred, timeout.milliseconds
            )
        }
        if result == 0 { return .transferred(Int(transferred)) }
        return outcome(result)
    }

    func close() {
        _ = libusb_release_interface(device.handle, 0)
        device.close()
    }

    /// An unplug shows as NO_DEVICE, or first as an I/O error while the kernel is still taking
    /// the device away: after an I/O error, ask the device (for up to half a second) whether it is gone.
    func outcome(_ code: Int32) -> BulkResult {
        switch code {
        case LIBUSB_ERROR_TIMEOUT.rawValue: return .timedOut
        case LIBUSB_ERROR_NO_DEVICE.rawValue: return .unplugged
        case LIBUSB_ERROR_IO.rawValue:
            for _ in 0..<10 {
                var configuration: Int32 = 0
                if libusb_get_configuration(device.handle, &configuration) == LIBUSB_ERROR_NO_DEVICE.rawValue { return .unplugged }
                usleep(50_000)
            }
            return .failed("\(LibUSBContext.describe(code)) (the phone reset the bus or left it)")
        default: return .failed(LibUSBContext.describe(code))
        }
    }
}
