/// The invariants of the ep0 side, checked on any byte stream: shared by the libFuzzer target
/// `tools/fuzz/FuzzUSB` (which traps on a violation) and the replay test of kept inputs.
public enum AccessoryControlChecks {
    /// Runs `input` as an ep0 stream (12-byte event records; a request 52's data stage is the bytes
    /// right after its record) through ``AccessoryControl`` in both modes; returns every violation.
    public static func violations(_ input: [UInt8]) -> [String] {
        var found: [String] = []
        for mode in GadgetMode.allCases {
            found += run(input, mode: mode).map { "\(mode): \($0)" }
        }
        return found
    }

    static func run(_ input: [UInt8], mode: GadgetMode) -> [String] {
        var found: [String] = []
        var control = AccessoryControl(mode: mode)
        var offset = 0
        while offset + FunctionFSEvent.size <= input.count {
            let record = Array(input[offset..<(offset + FunctionFSEvent.size)])
            offset += FunctionFSEvent.size
            guard let event = FunctionFSEvent.decode(record).first else {
                found.append("a whole record did not decode")
                continue
            }
            // A SETUP re-encodes to its packet and type; other events to their type (FunctionFS
            // leaves their packet bytes meaningless).
            let compared = isSetup(event) ? 0 : 8
            if event.record[compared...8] != record[compared...8], !isUnknown(event) {
                found.append("\(event) does not re-encode to its record")
            }
            let wasSwitching = control.switching
            let actions = control.handle(event)
            found += check(actions, for: event, mode: mode, wasSwitching: wasSwitching, enabled: control.enabled)
            for case .readString(let index, let length) in actions {
                let data = Array(input[offset..<min(input.count, offset + length)])
                offset += data.count
                control.stringReceived(index: index, bytes: data)
                if let text = control.strings.values[index], text.utf8.contains(0) {
                    found.append("string \(index) kept a NUL")
                }
            }
            _ = control.takeNotes()
        }
        return found
    }

    /// The violations in `actions`, the answer to `event` (`enabled`: the link state after it).
    public static func check(_ actions: [ControlAction], for event: FunctionFSEvent, mode: GadgetMode, wasSwitching: Bool, enabled: Bool)
        -> [String]
    {
        var found: [String] = []
        switch event {
        case .setup(let packet):
            for action in actions {
                switch action {
                case .write(let bytes):
                    if !packet.isIn || bytes.count > Int(packet.length) { found.append("wrote \(bytes.count) bytes for \(packet)") }
                case .readString(let index, let length):
                    if packet.isIn || index >= 6 || length != Int(packet.length) || length == 0 {
                        found.append("read a string for \(packet)")
                    }
                case .acknowledge:
                    if packet.isIn || packet.length != 0 { found.append("acknowledged \(packet)") }
                case .stall(let isIn):
                    if isIn != packet.isIn || actions.count != 1 { found.append("stalled \(packet) wrongly") }
                case .switchToAccessory:
                    if mode != .switch || wasSwitching || packet.request != AccessoryProtocol.start || actions.first != .acknowledge {
                        found.append("switched on \(packet)")
                    }
                case .linkUp, .linkDown:
                    found.append("a setup changed the link: \(packet)")
                }
            }
            if actions.isEmpty { found.append("\(packet) was neither answered nor stalled") }
        case .enable:
            if actions.last != .linkUp || !enabled { found.append("enable did not bring the link up") }
        case .disable, .unbind, .suspend:
            if enabled { found.append("\(event) left the link enabled") }
            if actions.contains(where: { if case .linkDown = $0 { false } else { true } }) {
                found.append("\(event) did more than end the link")
            }
        case .bind, .resume, .unknown:
            if !actions.isEmpty { found.append("\(event) acted: \(actions)") }
        }
        return found
    }

    private static func isSetup(_ event: FunctionFSEvent) -> Bool {
        if case .setup = event { return true }
        return false
    }

    private static func isUnknown(_ event: FunctionFSEvent) -> Bool {
        if case .unknown = event { return true }
        return false
    }
}
