import DashportClock
import DashportLog
import DashportUSB

extension FunctionFSGadget {
    /// The gadget `dashport serve --usb-gadget ...` describes: the FunctionFS mount, and the
    /// configfs gadget and controller when given.
    static func make(_ configuration: USBGadgetConfiguration, clock: any DashportClock, logger: Logger) throws(USBGadgetError)
        -> FunctionFSGadget
    {
        let identity = try configuration.configfsDirectory.map { directory throws(USBGadgetError) in
            try GadgetIdentity.resolve(directory: directory, controller: configuration.controller)
        }
        return FunctionFSGadget(
            endpoints: FunctionFSDirectory(directory: configuration.functionFSDirectory), identity: identity,
            options: FunctionFSGadget.Options(mode: configuration.mode), clock: clock, logger: logger)
    }
}
