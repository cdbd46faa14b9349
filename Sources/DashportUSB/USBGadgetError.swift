/// Why the USB gadget could not start or act; each text says what to check or run.
public enum USBGadgetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The FunctionFS directory has no ep0: not mounted, or the wrong path.
    case notMounted(directory: String)
    /// An endpoint file or configfs attribute could not be opened for lack of permission.
    case permission(path: String)
    /// No USB device controller: no device-mode port, or its driver is not loaded.
    case noController(String)
    /// The configfs gadget directory is missing.
    case noGadget(directory: String)
    /// Writing the descriptors to ep0 failed (the function is already in use, or the kernel refused them).
    case descriptors(String)
    /// Any other system error, as "operation: reason".
    case io(String)

    public var description: String {
        switch self {
        case .notMounted(let directory):
            "no FunctionFS at \(directory) (no ep0 there): create the gadget and mount FunctionFS first, "
                + "e.g. `sudo tools/usb-gadget/dashport-gadget setup` or "
                + "`mount -t functionfs dashport \(directory)` after adding function ffs.dashport in configfs"
        case .permission(let path):
            "permission denied on \(path): run the server as root (the systemd unit does), "
                + "or give its user access to the FunctionFS mount and configfs gadget"
        case .noController(let detail):
            "no USB device controller (UDC): \(detail). On a Raspberry Pi add `dtoverlay=dwc2,dr_mode=peripheral` "
                + "to /boot/firmware/config.txt, load `dwc2` and `libcomposite`, and use the port that supports "
                + "device mode (Pi 4/5: USB-C; Zero: the USB data port)"
        case .noGadget(let directory):
            "no configfs gadget at \(directory): mount configfs (`mount -t configfs none /sys/kernel/config`), "
                + "load libcomposite and create the gadget (tools/usb-gadget/dashport-gadget setup)"
        case .descriptors(let detail):
            "the kernel refused the USB descriptors: \(detail) (is another program serving this FunctionFS mount?)"
        case .io(let text): text
        }
    }
}
