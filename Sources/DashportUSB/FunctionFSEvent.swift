import CDashportFunctionFS

/// A USB control request's 8-byte setup packet (little-endian fields).
public struct SetupPacket: Sendable, Hashable, CustomStringConvertible {
    public var requestType: UInt8
    public var request: UInt8
    public var value: UInt16
    public var index: UInt16
    public var length: UInt16

    public init(requestType: UInt8, request: UInt8, value: UInt16 = 0, index: UInt16 = 0, length: UInt16 = 0) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
        self.length = length
    }

    /// Device to host (the data stage, if any, is ours to write).
    public var isIn: Bool { requestType & 0x80 != 0 }
    /// A vendor request (type bits 0b10).
    public var isVendor: Bool { requestType & 0x60 == 0x40 }

    /// The 8 bytes on the wire.
    public var bytes: [UInt8] {
        [
            requestType, request, UInt8(value & 0xFF), UInt8(value >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
            UInt8(length & 0xFF), UInt8(length >> 8),
        ]
    }

    public var description: String {
        "setup(type 0x\(String(requestType, radix: 16)) request \(request) value \(value) index \(index) length \(length))"
    }
}

/// One record of FunctionFS's ep0 event stream (`struct usb_functionfs_event`, 12 bytes: the
/// setup packet, then the type, then 3 bytes of padding).
public enum FunctionFSEvent: Sendable, Hashable {
    case bind, unbind, enable, disable, suspend, resume
    case setup(SetupPacket)
    /// A type this code does not know; ignored.
    case unknown(UInt8)

    /// The size of one record.
    public static let size = 12

    /// Decodes whole records; a trailing partial record is ignored (ep0 reads return whole records).
    public static func decode(_ bytes: some Collection<UInt8>) -> [FunctionFSEvent] {
        let all = Array(bytes)
        var events: [FunctionFSEvent] = []
        var offset = 0
        while offset + size <= all.count {
            events.append(decodeOne(all[offset..<(offset + size)]))
            offset += size
        }
        return events
    }

    static func decodeOne(_ record: ArraySlice<UInt8>) -> FunctionFSEvent {
        let b = Array(record)
        switch UInt32(b[8]) {
        case FUNCTIONFS_BIND.rawValue: return .bind
        case FUNCTIONFS_UNBIND.rawValue: return .unbind
        case FUNCTIONFS_ENABLE.rawValue: return .enable
        case FUNCTIONFS_DISABLE.rawValue: return .disable
        case FUNCTIONFS_SUSPEND.rawValue: return .suspend
        case FUNCTIONFS_RESUME.rawValue: return .resume
        case FUNCTIONFS_SETUP.rawValue:
            return .setup(
                SetupPacket(
                    requestType: b[0], request: b[1], value: UInt16(b[2]) | UInt16(b[3]) << 8,
                    index: UInt16(b[4]) | UInt16(b[5]) << 8, length: UInt16(b[6]) | UInt16(b[7]) << 8))
        default: return .unknown(b[8])
        }
    }

    /// The 12-byte record (for tests and simulated endpoints).
    public var record: [UInt8] {
        let type: UInt32
        var setup = [UInt8](repeating: 0, count: 8)
        switch self {
        case .bind: type = FUNCTIONFS_BIND.rawValue
        case .unbind: type = FUNCTIONFS_UNBIND.rawValue
        case .enable: type = FUNCTIONFS_ENABLE.rawValue
        case .disable: type = FUNCTIONFS_DISABLE.rawValue
        case .suspend: type = FUNCTIONFS_SUSPEND.rawValue
        case .resume: type = FUNCTIONFS_RESUME.rawValue
        case .setup(let packet):
            type = FUNCTIONFS_SETUP.rawValue
            setup = packet.bytes
        case .unknown(let raw): type = UInt32(raw)
        }
        return setup + [UInt8(truncatingIfNeeded: type), 0, 0, 0]
    }
}
