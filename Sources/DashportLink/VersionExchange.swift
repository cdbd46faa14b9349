/// The pure rules of the version exchange (aap-protocol.md §2.3, §8.7), phone side.
package enum VersionExchange {
    /// The largest VERSION_REQUEST frame payload we accept: id + major + minor is 6 bytes; version
    /// options (defined, never seen sent) could follow.
    package static let maxRequestPayload = 256

    /// Why the first bytes cannot start a VERSION_REQUEST frame, or `nil` while they still can.
    /// Checked on the first 4 bytes, so garbage (an HTTP request, TLS, random bytes) is refused
    /// at once instead of waiting for a payload length it made up.
    package static func preambleProblem(_ bytes: [UInt8]) -> String? {
        guard let channel = bytes.first else { return nil }
        guard channel == 0 else {
            return "first frame is on channel \(channel), not the control channel (\(hexBytes(bytes)))"
        }
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] & 0x0B == 0x03 else {
            return "first frame's flags 0x\(String(bytes[1], radix: 16)) are not a plain whole message (\(hexBytes(bytes)))"
        }
        guard bytes.count >= 4 else { return nil }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length >= 6 && length <= maxRequestPayload else {
            return "first frame's length \(length) cannot be a VERSION_REQUEST (\(hexBytes(bytes)))"
        }
        return nil
    }

    /// Our answer to a requested version: for major 1, 1.min(minor, `maxMinor`) with status 0;
    /// for any other major, our own highest version with status 0xFFFF (and the link closes).
    package static func answer(to requested: AAPVersion, maxMinor: UInt16) -> (version: AAPVersion, status: UInt16) {
        if requested.major == 1 {
            return (AAPVersion(major: 1, minor: min(requested.minor, maxMinor)), VersionBody.statusMatch)
        }
        return (AAPVersion(major: 1, minor: maxMinor), VersionBody.statusMismatch)
    }

    private static func hexBytes(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}
