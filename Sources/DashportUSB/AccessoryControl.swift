/// How the gadget presents itself to a car.
public enum GadgetMode: String, Sendable, Hashable, CaseIterable {
    /// Enumerate as a phone (18d1:4ee1); on AOA START re-enumerate as the accessory 18d1:2d00.
    case `switch`
    /// Enumerate as the accessory 18d1:2d00 from the start, for cars that accept it without the switch.
    case direct
}

/// Why the USB link under a session went away; the session's stream closes with this text.
public enum USBLinkLoss: Sendable, Hashable, CustomStringConvertible {
    /// FUNCTIONFS_DISABLE: the car deconfigured the device (host reset, re-enumeration, cable out).
    case disabled
    /// FUNCTIONFS_UNBIND: the gadget left the bus (unplugged, UDC unbound).
    case unbound
    /// FUNCTIONFS_SUSPEND: the bus went idle (the first sign of an unplug, or the car sleeping).
    case suspended
    /// The car configured the device again while a session ran (a host reset).
    case reconfigured

    public var description: String {
        switch self {
        case .disabled: "the car deconfigured the USB device (reset, re-enumeration or unplug)"
        case .unbound: "the USB gadget left the bus (unplugged or the UDC was unbound)"
        case .suspended: "the USB bus was suspended (unplugged, or the car went to sleep)"
        case .reconfigured: "the car configured the USB device again (host reset)"
        }
    }
}

/// What the ep0 driver must do, in order, for one ep0 event.
public enum ControlAction: Sendable, Hashable {
    /// Write these bytes as the data stage of an IN request.
    case write([UInt8])
    /// Read `length` bytes (the data stage of request 52), then call
    /// ``AccessoryControl/stringReceived(index:bytes:)`` with them.
    case readString(index: Int, length: Int)
    /// Acknowledge an OUT request without data (a 0-byte read).
    case acknowledge
    /// Stall the request: the opposite-direction 0-byte operation (`isIn`: the request's direction).
    case stall(isIn: Bool)
    /// The bulk endpoints are usable: a new session may start.
    case linkUp
    /// The bulk endpoints are gone: end the current session with this reason.
    case linkDown(USBLinkLoss)
    /// Re-enumerate as the accessory (18d1:2d00): AOA START in switch mode.
    case switchToAccessory
}

/// The ep0 side of a FunctionFS gadget as a sans-IO state machine: events in, actions out. It
/// answers the AOA requests (51 → protocol 2, 52 → keep the string, 53 → switch), stalls every
/// other request, and turns BIND/ENABLE/DISABLE/UNBIND/SUSPEND into link up and down.
public struct AccessoryControl: Sendable {
    public let mode: GadgetMode
    /// The strings the car sent since the last START (or since it enumerated us).
    public private(set) var strings = AccessoryStrings()
    /// How many STARTs arrived, in total.
    public private(set) var startCount = 0
    /// Whether the bulk endpoints are enabled.
    public private(set) var enabled = false
    /// A switch was asked for and has not completed (the next ENABLE or a loss completes it).
    public private(set) var switching = false
    /// Human-readable notes on what happened, drained by the driver into its log.
    public private(set) var notes: [String] = []

    public init(mode: GadgetMode) {
        self.mode = mode
    }

    /// Takes the notes gathered since the last call.
    public mutating func takeNotes() -> [String] {
        defer { notes = [] }
        return notes
    }

    public mutating func handle(_ event: FunctionFSEvent) -> [ControlAction] {
        switch event {
        case .bind:
            notes.append("bound to the USB controller; waiting for a car")
            return []
        case .enable:
            let wasEnabled = enabled
            enabled = true
            switching = false
            notes.append("the car configured the device: bulk endpoints enabled")
            return wasEnabled ? [.linkDown(.reconfigured), .linkUp] : [.linkUp]
        case .disable:
            return lose(.disabled)
        case .unbind:
            return lose(.unbound)
        case .suspend:
            return lose(.suspended)
        case .resume:
            notes.append("the USB bus resumed")
            return []
        case .unknown(let type):
            notes.append("ignored an unknown ep0 event type \(type)")
            return []
        case .setup(let packet):
            return setup(packet)
        }
    }

    /// The data of a request 52 arrived.
    public mutating func stringReceived(index: Int, bytes: [UInt8]) {
        let text = AccessoryStrings.decode(bytes)
        strings.values[index] = text
        notes.append("car sent its \(AccessoryProtocol.stringNames[index]): \"\(text)\"")
    }

    private mutating func lose(_ loss: USBLinkLoss) -> [ControlAction] {
        let wasEnabled = enabled
        enabled = false
        if case .suspended = loss, !wasEnabled { return [] }
        notes.append(wasEnabled ? "link lost: \(loss)" : "\(loss)")
        return [.linkDown(loss)]
    }

    private mutating func setup(_ packet: SetupPacket) -> [ControlAction] {
        guard packet.isVendor else {
            notes.append("stalled a non-vendor request the kernel passed on: \(packet)")
            return [.stall(isIn: packet.isIn)]
        }
        switch (packet.request, packet.isIn) {
        case (AccessoryProtocol.getProtocol, true) where packet.length >= 1:
            let answer: [UInt8] = [UInt8(AccessoryProtocol.version & 0xFF), UInt8(AccessoryProtocol.version >> 8)]
            notes.append("car asked for the accessory protocol (51); answered \(AccessoryProtocol.version)")
            strings = AccessoryStrings()
            return [.write(Array(answer.prefix(Int(packet.length))))]
        case (AccessoryProtocol.sendString, false) where packet.index < 6 && packet.length > 0:
            return [.readString(index: Int(packet.index), length: Int(packet.length))]
        case (AccessoryProtocol.start, false) where packet.length == 0:
            startCount += 1
            let who = strings.summary
            if switching {
                notes.append("car sent START again while the switch is in progress; acknowledged, nothing more to do")
                return [.acknowledge]
            }
            switch mode {
            case .switch:
                switching = true
                notes.append("car started accessory mode (53, start #\(startCount)): \(who); re-enumerating as 18d1:2d00")
                return [.acknowledge, .switchToAccessory]
            case .direct:
                notes.append("car sent START (53) to a device that already is the accessory 18d1:2d00: \(who); acknowledged")
                return [.acknowledge]
            }
        default:
            notes.append("stalled an unsupported vendor request: \(packet)")
            return [.stall(isIn: packet.isIn)]
        }
    }

    /// The switch could not be done (configfs refused); the next START may try again.
    public mutating func switchFailed() {
        switching = false
    }
}
