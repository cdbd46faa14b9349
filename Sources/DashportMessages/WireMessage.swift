// Sources/DashportMessages/WireMessage.swift - what every generated message type offers.

/// A protobuf message as a Swift value: built from and turned into the proto2 wire format.
///
/// Every type generated from `Protocols/*.proto` conforms (`AAP.PingRequest`,
/// `DashportMedia.BrowseResult`, ...). Decoding is tolerant (a proto3-era sender may omit required
/// fields; they read as zero), encoding is strict (required fields are always written).
public protocol WireMessage: Sendable, Hashable {
    /// An empty message: optional fields absent, repeated fields empty, required fields zero.
    init()
    /// Decodes the wire format.
    /// - Throws: ``WireDecodingError`` when the bytes are not a valid encoding of this message.
    init(serializedBytes: some Collection<UInt8>) throws(WireDecodingError)
    /// Encodes the wire format.
    func serializedBytes() -> [UInt8]
}

/// Limits that apply to every decode.
public enum WireLimits {
    /// The largest body any message may have: 1 MiB, the message cap of the link (design.md
    /// "Configuration, security defaults"). Larger input is refused before it is parsed.
    public static let maximumMessageBytes = 1 << 20
}
