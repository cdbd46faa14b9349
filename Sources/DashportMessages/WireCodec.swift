// Sources/DashportMessages/WireCodec.swift - decode and encode any generated message through protobuf-c.

internal import CAAPProto

/// What a generated message type knows about its protoc-c twin (the generated extensions conform).
protocol CMessageMirror: WireMessage {
    /// The protoc-c struct, e.g. `Dashport__Aap__PingRequest`.
    associatedtype CMessage
    /// The full proto name, e.g. `dashport.aap.PingRequest`.
    static var protoName: String { get }
    /// The descriptor protoc-c generated for the C twin (through the accessor tools/regenerate
    /// writes into caapproto.h, as Swift cannot take the address of a `const` C global).
    static var cDescriptor: UnsafePointer<ProtobufCMessageDescriptor> { get }
    /// Runs the protoc-c `…__init` function: zeroes the struct and sets its descriptor.
    static func cInitialize(_ c: UnsafeMutablePointer<CMessage>)
    /// Copies an unpacked C message into a Swift value.
    init(cMessage c: UnsafePointer<CMessage>)
    /// Writes this value into an initialised C message; every pointer it stores is owned by `arena`.
    func fill(_ c: UnsafeMutablePointer<CMessage>, arena: WireArena)
}

/// The two generic paths between Swift values and bytes. protobuf-c parses and packs; the generated
/// code only copies fields.
enum WireCodec {
    static func decode<M: CMessageMirror>(_ bytes: some Collection<UInt8>, as type: M.Type) throws(WireDecodingError) -> M {
        let count = bytes.count
        guard count <= WireLimits.maximumMessageBytes else {
            throw WireDecodingError(messageName: M.protoName, reason: .tooLarge(limit: WireLimits.maximumMessageBytes), byteCount: count)
        }
        let unpacked: UnsafeMutablePointer<ProtobufCMessage>?
        if let contiguous = bytes.withContiguousStorageIfAvailable({ Self.unpack(M.cDescriptor, $0) }) {
            unpacked = contiguous
        } else {
            unpacked = Array(bytes).withUnsafeBufferPointer { Self.unpack(M.cDescriptor, $0) }
        }
        guard let unpacked else {
            throw WireDecodingError(messageName: M.protoName, reason: .malformed, byteCount: count)
        }
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        return M(cMessage: UnsafeRawPointer(unpacked).assumingMemoryBound(to: M.CMessage.self))
    }

    static func encode<M: CMessageMirror>(_ message: M) -> [UInt8] {
        WireArena.with { arena in
            let base = Self.base(of: arena.message(message))
            let size = protobuf_c_message_get_packed_size(base)
            return [UInt8](unsafeUninitializedCapacity: size) { buffer, written in
                written = size == 0 ? 0 : protobuf_c_message_pack(base, buffer.baseAddress)
            }
        }
    }

    /// Every protoc-c message struct begins with its `ProtobufCMessage base` member, so a pointer to
    /// the struct is a pointer to that header (this is how protobuf-c's own C API is called).
    private static func base<C>(of message: UnsafeMutablePointer<C>) -> UnsafeMutablePointer<ProtobufCMessage> {
        UnsafeMutableRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
    }

    private static func unpack(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> UnsafeMutablePointer<ProtobufCMessage>? {
        // protobuf-c reads nothing for length 0, but wants a valid pointer all the same.
        var empty: UInt8 = 0
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            return protobuf_c_message_unpack(descriptor, nil, 0, &empty)
        }
        return protobuf_c_message_unpack(descriptor, nil, bytes.count, start)
    }

    // MARK: field helpers for the generated code

    static func bytes(_ data: ProtobufCBinaryData) -> [UInt8] {
        guard let start = data.data, data.len > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: data.len))
    }

    static func scalars<T>(_ values: UnsafeMutablePointer<T>?, count: Int) -> [T] {
        guard let values, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: values, count: count))
    }

    static func strings(_ values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, count: Int) -> [String] {
        scalars(values, count: count).map { $0.map { String(cString: $0) } ?? "" }
    }

    static func messages<M: CMessageMirror>(
        _ values: UnsafeMutablePointer<UnsafeMutablePointer<M.CMessage>?>?,
        count: Int,
        as type: M.Type
    ) -> [M] {
        scalars(values, count: count).map { $0.map { M(cMessage: $0) } ?? M() }
    }
}
