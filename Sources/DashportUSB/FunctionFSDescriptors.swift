import CDashportFunctionFS

/// The two blobs a FunctionFS function writes to ep0 before the gadget can bind: the v2
/// descriptors (one vendor interface 0xFF/0xFF/0 with a bulk IN and a bulk OUT endpoint, at full
/// and high speed, `FUNCTIONFS_ALL_CTRL_RECIP` so the device-recipient AOA requests reach ep0)
/// and the strings (US English, the interface name).
///
/// Endpoint files are numbered in descriptor order: `ep1` is bulk IN (to the car), `ep2` bulk OUT
/// (from the car). The addresses the car sees are chosen by the UDC, so the host side reads them
/// from the configuration descriptor.
public enum FunctionFSDescriptors {
    /// The interface string, as Android phones name their accessory interface.
    public static let interfaceName = "Android Accessory Interface"
    /// Bulk max packet size at full speed and at high speed.
    public static let fullSpeedMaxPacket: UInt16 = 64
    public static let highSpeedMaxPacket: UInt16 = 512

    /// The descriptors blob (`FUNCTIONFS_DESCRIPTORS_MAGIC_V2`), 66 bytes.
    public static func descriptors() -> [UInt8] {
        let flags = UInt32(FUNCTIONFS_HAS_FS_DESC.rawValue | FUNCTIONFS_HAS_HS_DESC.rawValue | FUNCTIONFS_ALL_CTRL_RECIP.rawValue)
        let fullSpeed = speedDescriptors(maxPacket: fullSpeedMaxPacket)
        let highSpeed = speedDescriptors(maxPacket: highSpeedMaxPacket)
        var body: [UInt8] = []
        append32(3, to: &body)  // FS descriptor count
        append32(3, to: &body)  // HS descriptor count
        body += fullSpeed + highSpeed
        var blob: [UInt8] = []
        append32(UInt32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2), to: &blob)
        append32(UInt32(12 + body.count), to: &blob)
        append32(flags, to: &blob)
        return blob + body
    }

    /// The strings blob (`FUNCTIONFS_STRINGS_MAGIC`): one language (0x0409), one string.
    public static func strings() -> [UInt8] {
        var body: [UInt8] = []
        append16(0x0409, to: &body)
        body += Array(interfaceName.utf8) + [0]
        var blob: [UInt8] = []
        append32(UInt32(FUNCTIONFS_STRINGS_MAGIC), to: &blob)
        append32(UInt32(16 + body.count), to: &blob)
        append32(1, to: &blob)  // strings per language
        append32(1, to: &blob)  // languages
        return blob + body
    }

    /// Interface (9 bytes), bulk IN 0x81 and bulk OUT 0x02 (7 bytes each).
    static func speedDescriptors(maxPacket: UInt16) -> [UInt8] {
        let interface: [UInt8] = [
            9, UInt8(USB_DT_INTERFACE), 0, 0, 2,  // bLength, type, number, alternate, endpoints
            0xFF, 0xFF, 0x00, 1,  // vendor class/subclass, protocol 0, iInterface = string 1
        ]
        func endpoint(_ address: UInt8) -> [UInt8] {
            [7, UInt8(USB_DT_ENDPOINT), address, UInt8(USB_ENDPOINT_XFER_BULK), UInt8(maxPacket & 0xFF), UInt8(maxPacket >> 8), 0]
        }
        return interface + endpoint(0x81) + endpoint(0x02)
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }
}
