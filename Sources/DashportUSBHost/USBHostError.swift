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
