import DashportThread
import FoundationEssentials
import Glibc

/// The configfs side of the gadget (`/sys/kernel/config/usb_gadget/<name>`): the product id the
/// car sees and the binding to a USB device controller. Changing identity = unbind, write
/// `idProduct`, bind, which the car sees as an unplug and a new device.
public struct GadgetIdentity: Sendable {
    /// The gadget's configfs directory.
    public let directory: String
    /// The UDC to bind to (`/sys/class/udc/<name>`), e.g. `dummy_udc.0`, `fe980000.usb`.
    public let controller: String
    /// Where UDCs are listed (tests point it elsewhere).
    public let udcClassDirectory: String

    public init(directory: String, controller: String, udcClassDirectory: String = "/sys/class/udc") {
        self.directory = directory
        self.controller = controller
        self.udcClassDirectory = udcClassDirectory
    }

    /// The gadget at `directory` bound to `controller`, or to the only UDC there is.
    public static func resolve(directory: String, controller: String?, udcClassDirectory: String = "/sys/class/udc") throws(USBGadgetError)
        -> GadgetIdentity
    {
        guard FileManager.default.fileExists(atPath: directory + "/idProduct") else { throw .noGadget(directory: directory) }
        let available = (try? FileManager.default.contentsOfDirectory(atPath: udcClassDirectory))?.sorted() ?? []
        if let controller {
            guard available.contains(controller) else {
                throw .noController(
                    "'\(controller)' is not in \(udcClassDirectory) (found: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
                )
            }
            return GadgetIdentity(directory: directory, controller: controller, udcClassDirectory: udcClassDirectory)
        }
        guard let only = available.first else { throw .noController("\(udcClassDirectory) is empty") }
        guard available.count == 1 else {
            throw .noController("several in \(udcClassDirectory) (\(available.joined(separator: ", "))); choose one with --usb-udc")
        }
        return GadgetIdentity(directory: directory, controller: only, udcClassDirectory: udcClassDirectory)
    }

    /// Writes `idProduct` (takes effect at the next enumeration).
    public func setProduct(_ product: UInt16) throws(USBGadgetError) {
        let hex = String(product, radix: 16)
        try write("0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex, to: directory + "/idProduct")
    }

    /// The product id configfs holds now.
    public func product() -> UInt16? {
        guard let text = try? String(contentsOfFile: directory + "/idProduct", encoding: .utf8) else { return nil }
        return UInt16(String(text.trimming(while: \.isWhitespace)).replacing("0x", with: ""), radix: 16)
    }

    /// Whether the gadget is bound to a UDC now.
    public var isBound: Bool {
        let text = (try? String(contentsOfFile: directory + "/UDC", encoding: .utf8)) ?? ""
        return !text.allSatisfy(\.isWhitespace)
    }

    /// Binds the gadget to the controller: the car sees a device plugged in.
    public func bind() throws(USBGadgetError) {
        try write(controller, to: directory + "/UDC")
    }

    /// Unbinds it: the car sees the device unplugged. Already unbound is fine.
    public func unbind() throws(USBGadgetError) {
        guard isBound else { return }
        try write("", to: directory + "/UDC")
    }

    /// Unbind, set `product`, bind again after `pause` (the car must notice the unplug).
    public func reenumerate(as product: UInt16, pause: Duration = .milliseconds(100)) throws(USBGadgetError) {
        try unbind()
        try setProduct(product)
        OSThread.sleep(for: pause)
        try bind()
    }

    /// The bulk max packet size at the speed the controller runs now: 64 at full speed, else 512.
    public func bulkMaxPacket() -> Int {
        let speed = (try? String(contentsOfFile: "\(udcClassDirectory)/\(controller)/current_speed", encoding: .utf8)) ?? ""
        return speed.hasPrefix("full") ? 64 : 512
    }

    private func write(_ text: String, to path: String) throws(USBGadgetError) {
        let fd = open(path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else {
            let code = errno
            if code == EACCES || code == EPERM { throw .permission(path: path) }
            throw .io("open \(path): \(String(cString: strerror(code)))")
        }
        defer { Glibc.close(fd) }
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            let code = errno
            if path.hasSuffix("/UDC"), code == EBUSY {
                throw .noController("\(controller) is busy: another gadget is bound to it")
            }
            if path.hasSuffix("/UDC"), code == ENODEV, !text.isEmpty {
                throw .noController("binding \(controller) failed (no such device, or the FunctionFS descriptors are not written yet)")
            }
            throw .io("writing '\(text)' to \(path): \(String(cString: strerror(code)))")
        }
    }
}
