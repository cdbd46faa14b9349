public import DashportCommandLine
public import DashportUSB

/// `dashport serve --usb-gadget DIR ...`: serve a car over USB as well, through a FunctionFS
/// function (see tools/usb-gadget). Kept apart from the TCP options so the option table can take
/// them over as they are.
public struct USBGadgetConfiguration: Sendable, Equatable {
    /// Where FunctionFS is mounted (holds ep0, and ep1/ep2 once the descriptors are written).
    public var functionFSDirectory: String
    /// The configfs gadget (`/sys/kernel/config/usb_gadget/dashport`); needed to switch identity
    /// on AOA START and to bind the controller. nil: someone else binds it (direct mode only).
    public var configfsDirectory: String?
    /// The USB device controller to bind (`/sys/class/udc/<name>`); nil = the only one there is.
    public var controller: String?
    public var mode: GadgetMode = .switch

    public init(functionFSDirectory: String) {
        self.functionFSDirectory = functionFSDirectory
    }
}

extension ConfigurationParser {
    /// The USB options, with their help text.
    public static let usbOptions: [OptionSpec] = [
        .value("usb-gadget", "DIR", "also serve a car over USB: the FunctionFS mount of Dashport's gadget function"),
        .value("usb-configfs", "DIR", "the configfs gadget directory (switch identity on AOA START, bind the controller)"),
        .value("usb-udc", "NAME", "the USB device controller to bind (default: the only one in /sys/class/udc)"),
        .value("usb-mode", "MODE", "switch (phone 18d1:4ee1, then accessory after START; default) or direct (18d1:2d00 at once)"),
    ]

    /// Applies one USB option; false when `key` is not one.
    static func applyUSB(key: String, value: String, to config: inout ServerConfiguration, origin: String) throws(ConfigurationError)
        -> Bool
    {
        // In any order: the FunctionFS directory may come after the other USB options.
        func gadget() -> USBGadgetConfiguration {
            config.usbGadget ?? USBGadgetConfiguration(functionFSDirectory: "")
        }
        switch key {
        case "usb-gadget":
            var gadget = config.usbGadget ?? USBGadgetConfiguration(functionFSDirectory: value)
            gadget.functionFSDirectory = value
            config.usbGadget = gadget
        case "usb-configfs":
            var updated = gadget()
            updated.configfsDirectory = value
            config.usbGadget = updated
        case "usb-udc":
            var updated = gadget()
            updated.controller = value
            config.usbGadget = updated
        case "usb-mode":
            guard let mode = GadgetMode(rawValue: value) else {
                throw ConfigurationError("\(origin): usb-mode must be switch or direct; got '\(value)'")
            }
            var updated = gadget()
            updated.mode = mode
            config.usbGadget = updated
        default:
            return false
        }
        return true
    }

}

extension USBGadgetConfiguration {
    func validate() throws(ConfigurationError) {
        if functionFSDirectory.isEmpty {
            throw ConfigurationError("--usb-configfs, --usb-udc and --usb-mode need --usb-gadget DIR (the FunctionFS mount)")
        }
        if mode == .switch && configfsDirectory == nil {
            throw ConfigurationError(
                "--usb-mode switch needs --usb-configfs DIR (the gadget is re-enumerated as 18d1:2d00 on AOA START); "
                    + "give it, or use --usb-mode direct with a gadget already set up as 18d1:2d00")
        }
    }
}
