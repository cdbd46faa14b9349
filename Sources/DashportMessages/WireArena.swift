// Sources/DashportMessages/WireArena.swift - memory that a C message graph points into while it is packed.

internal import CAAPProto

/// Owns every C string, byte buffer, pointer array and sub-message struct built while encoding one
/// message, and frees them all at once when the encode is over (swift-linux-recipes.md §2).
///
/// Everything stored is a plain C value (integers, pointers, protoc-c structs), so freeing without
/// deinitialising is correct.
final class WireArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit {
        for allocation in allocations {
            allocation.deallocate()
        }
    }

    /// A NUL-terminated copy of `string` (a NUL inside the string ends it on the wire).
    func string(_ string: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(string.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        copy.initialize(from: utf8, count: utf8.count)
        allocations.append(UnsafeMutableRawPointer(copy))
        return copy
    }

    func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
        ProtobufCBinaryData(len: bytes.count, data: array(bytes))
    }

    /// A C array holding `values`, or nil when there are none.
    func array<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let copy = UnsafeMutablePointer<T>.allocate(capacity: values.count)
        copy.initialize(from: values, count: values.count)
        allocations.append(UnsafeMutableRawPointer(copy))
        return copy
    }

    func strings(_ values: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        array(values.map { Optional(string($0)) })
    }

    /// An initialised and filled C struct for `message`.
    func message<M: CMessageMirror>(_ message: M) -> UnsafeMutablePointer<M.CMessage> {
        let c = UnsafeMutablePointer<M.CMessage>.allocate(capacity: 1)
        allocations.append(UnsafeMutableRawPointer(c))
        M.cInitialize(c)
        message.fill(c, arena: self)
        return c
    }

    func messages<M: CMessageMirror>(_ values: [M]) -> UnsafeMutablePointer<UnsafeMutablePointer<M.CMessage>?>? {
        array(values.map { Optional(message($0)) })
    }
}
