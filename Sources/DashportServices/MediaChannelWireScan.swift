// Sources/DashportServices/MediaChannelWireScan.swift - reading the request id out of a body that does
// not decode, so even a malformed request gets an answer instead of silence.

/// A forgiving walk over the top-level fields of a protobuf body.
///
/// Every Dashport media request carries `request_id` as field 1 (a varint). When protobuf-c refuses
/// a body (a truncated field, a wrong wire type further on), the fields before the damage are
/// still readable; this finds field 1 among them. It reads only within the buffer and stops at the
/// first thing it cannot parse.
enum MediaChannelWireScan {
    /// Field 1 as a varint (the last one before any damage, as protobuf takes the last value),
    /// or nil when it is absent, not a varint, or does not fit a `UInt32`.
    static func requestId(in body: [UInt8]) -> UInt32? {
        var index = 0
        var found: UInt32?
        while index < body.count {
            guard let tag = varint(body, &index) else { break }
            let field = tag >> 3
            switch tag & 7 {
            case 0:
                guard let value = varint(body, &index) else { return found }
                if field == 1 { found = UInt32(exactly: value) }
            case 1:
                guard skip(8, body, &index) else { return found }
            case 2:
                guard let length = varint(body, &index), length <= UInt64(body.count - index) else { return found }
                index += Int(length)
            case 5:
                guard skip(4, body, &index) else { return found }
            default:
                return found
            }
        }
        return found
    }

    /// A base-128 varint of at most 10 bytes, or nil when it runs past the end or is too long.
    private static func varint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    private static func skip(_ count: Int, _ bytes: [UInt8], _ index: inout Int) -> Bool {
        guard bytes.count - index >= count else { return false }
        index += count
        return true
    }
}
