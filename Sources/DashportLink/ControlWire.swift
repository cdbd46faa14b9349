import DashportDigest
import DashportMessages

/// Control-namespace message ids (aap-protocol.md §2.1) as the 16-bit values on the wire, taken
/// from the generated `AAP.ControlMessageType`. Shared by the phone and car roles.
package enum ControlID {
    package static let versionRequest = wire(.versionRequest)
    package static let versionResponse = wire(.versionResponse)
    package static let encapsulatedSSL = wire(.encapsulatedSsl)
    package static let authComplete = wire(.authComplete)
    package static let serviceDiscoveryRequest = wire(.serviceDiscoveryRequest)
    package static let serviceDiscoveryResponse = wire(.serviceDiscoveryResponse)
    package static let channelOpenRequest = wire(.channelOpenRequest)
    package static let channelOpenResponse = wire(.channelOpenResponse)
    package static let channelCloseNotification = wire(.channelCloseNotification)
    package static let pingRequest = wire(.pingRequest)
    package static let pingResponse = wire(.pingResponse)
    package static let byeByeRequest = wire(.byebyeRequest)
    package static let byeByeResponse = wire(.byebyeResponse)
    package static let audioFocusRequest = wire(.audioFocusRequest)
    package static let audioFocusNotification = wire(.audioFocusNotification)

    /// Notifications either side may send unsolicited once TLS is up (nav/audio focus, voice
    /// session, battery, call availability, connected devices, user switch, discovery update).
    /// Neither role needs them to run a link; both log and ignore them.
    package static let ignorableNotifications: Set<UInt16> = Set((13...26).map { UInt16($0) })
        .subtracting([byeByeRequest, byeByeResponse])

    private static func wire(_ type: AAP.ControlMessageType) -> UInt16 {
        UInt16(truncatingIfNeeded: type.rawValue)
    }
}

/// The raw bodies of VERSION_REQUEST (major, minor) and VERSION_RESPONSE (major, minor, status):
/// big-endian shorts, not protobuf (aap-protocol.md §2.3).
package enum VersionBody {
    /// VERSION_RESPONSE status: the versions match.
    package static let statusMatch: UInt16 = 0
    /// VERSION_RESPONSE status: no compatible version (-1 as an int16).
    package static let statusMismatch: UInt16 = 0xFFFF

    package static func request(_ version: AAPVersion) -> [UInt8] {
        shorts([version.major, version.minor])
    }

    package static func response(_ version: AAPVersion, status: UInt16) -> [UInt8] {
        shorts([version.major, version.minor, status])
    }

    /// Reads a VERSION_REQUEST body. Extra trailing bytes (version options, never seen sent) are ignored.
    package static func parseRequest(_ body: ArraySlice<UInt8>) -> AAPVersion? {
        guard let values = readShorts(body, count: 2) else { return nil }
        return AAPVersion(major: values[0], minor: values[1])
    }

    /// Reads a VERSION_RESPONSE body: the answered version and the status.
    package static func parseResponse(_ body: ArraySlice<UInt8>) -> (AAPVersion, UInt16)? {
        guard let values = readShorts(body, count: 3) else { return nil }
        return (AAPVersion(major: values[0], minor: values[1]), values[2])
    }

    private static func shorts(_ values: [UInt16]) -> [UInt8] {
        values.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    private static func readShorts(_ body: ArraySlice<UInt8>, count: Int) -> [UInt16]? {
        guard body.count >= 2 * count else { return nil }
        let start = body.startIndex
        return (0..<count).map { UInt16(body[start + 2 * $0]) << 8 | UInt16(body[start + 2 * $0 + 1]) }
    }
}

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
            return "first frame is on channel \(channel), not the control channel (\(Hex.string(bytes, separator: " ")))"
        }
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] & 0x0B == 0x03 else {
            return
                "first frame's flags 0x\(String(bytes[1], radix: 16)) are not a plain whole message (\(Hex.string(bytes, separator: " ")))"
        }
        guard bytes.count >= 4 else { return nil }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length >= 6 && length <= maxRequestPayload else {
            return "first frame's length \(length) cannot be a VERSION_REQUEST (\(Hex.string(bytes, separator: " ")))"
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
}
