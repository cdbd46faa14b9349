// Sources/DashportMessages/WireArena.swift - memory that a C message graph lives in while it is packed or read.

internal import CAAPProto

/// A bump allocator that owns the C message graph of one encode: every C string, byte buffer,
/// pointer array and sub-message struct comes out of a few chunks, the first on the stack, freed
/// all at once when the encode is over (swift-linux-recipes.md §2).
///
/// It replaced a malloc, an intermediate Array and an array append per field: encoding a page of
/// six albums went from 2.6 to 1.3 µs of CPU (issue 10, item 5; `dashport-bench-codec`).
/// Decoding leaves protobuf-c on the system allocator: handing it this arena measured no faster
/// (glibc's per-thread cache serves protobuf-c's few small allocations about as fast).
///
/// Everything stored is a plain C value (integers, pointers, protoc-c structs), so freeing without
/// deinitialising is correct.
final class WireArena {
    /// The first chunk's size (small enough for glibc's per-thread cache, 1032 bytes at most); each
    /// further chunk doubles, up to ``largestChunk``. A request larger than a chunk gets a chunk
    /// of its own size.
    static let firstChunk = 1024
    static let largestChunk = 64 << 10
    /// Every C type the generated code stores needs at most 16.
    static let maximumAlignment = 16
    /// Room at the start of a chunk: the arena's state in the first, the link to the chunk
    /// before in the others.
    private static let header = 32

    /// Where the next allocation goes. Kept in plain memory at the start of the first chunk, not
    /// in stored properties: those would cost an exclusivity check per access, per field.
    private struct State {
        var cursor: UnsafeMutableRawPointer
        var remaining: Int
        var nextChunk: Int
        /// The newest chunk after the first; each begins with a pointer to the one before it.
        var newest: UnsafeMutableRawPointer?
    }

    private let state: UnsafeMutablePointer<State>

    /// An arena whose first chunk (its caller's, which outlives the arena) begins with `state`;
    /// ``withState(_:)`` frees what it grew.
    private init(state: UnsafeMutablePointer<State>) {
        self.state = state
    }

    /// Runs `body` with an arena whose first chunk is on the stack: a message that fits it costs no
    /// allocation but the arena object. `body` must not keep the arena.
    static func with<R>(_ body: (WireArena) -> R) -> R {
        withState { state in
            let arena = WireArena(state: state)
            return withExtendedLifetime(arena) { body(arena) }
        }
    }

    /// Runs `body` with the state of an arena whose first chunk is on the stack and frees the
    /// chunks it grew when `body` returns.
    private static func withState<R>(_ body: (UnsafeMutablePointer<State>) -> R) -> R {
        // ``firstChunk`` and ``maximumAlignment`` as literals: only a byte count known at compile
        // time is allocated on the stack.
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { chunk in
            // Safe: a temporary allocation of a non-zero byte count has a base address.
            let start = chunk.baseAddress!
            let state = start.bindMemory(to: State.self, capacity: 1)
            state.initialize(
                to: State(
                    cursor: start + header, remaining: firstChunk - header, nextChunk: firstChunk * 2, newest: nil))
            defer { freeChunks(state) }
            return body(state)
        }
    }

    /// Frees every chunk after the first (the first is its owner's).
    private static func freeChunks(_ state: UnsafeMutablePointer<State>) {
        var chunk = state.pointee.newest
        state.pointee.newest = nil
        while let current = chunk {
            chunk = current.load(as: UnsafeMutableRawPointer?.self)
            current.deallocate()
        }
    }

    /// `byteCount` bytes aligned to `alignment` (a power of two, at most 16), uninitialised.
    func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        Self.allocate(state, byteCount: byteCount, alignment: alignment)
    }

    private static func allocate(_ state: UnsafeMutablePointer<State>, byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        let cursor = state.pointee.cursor
        let aligned = cursor.alignedUp(toMultipleOf: alignment)
        let used = (aligned - cursor) + byteCount
        if used <= state.pointee.remaining {
            state.pointee.cursor = aligned + byteCount
            state.pointee.remaining -= used
            return aligned
        }
        let size = max(state.pointee.nextChunk, byteCount + header)
        state.pointee.nextChunk = min(state.pointee.nextChunk * 2, largestChunk)
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: maximumAlignment)
        chunk.storeBytes(of: state.pointee.newest, as: UnsafeMutableRawPointer?.self)
        state.pointee.newest = chunk
        state.pointee.cursor = chunk + header + byteCount
        state.pointee.remaining = size - header - byteCount
        return chunk + header
    }

    /// Room for `count` values of `T`, bound to `T`, uninitialised.
    private func buffer<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        allocate(byteCount: MemoryLayout<T>.stride * count, alignment: MemoryLayout<T>.alignment)
            .bindMemory(to: T.self, capacity: count)
    }

    // MARK: encoding: copies of Swift values for the generated `fill` functions

    /// A NUL-terminated copy of `string` (a NUL inside the string ends it on the wire).
    func string(_ string: String) -> UnsafeMutablePointer<CChar> {
        var string = string
        return string.withUTF8 { utf8 in
            let copy = allocate(byteCount: utf8.count + 1, alignment: 1)
            if let source = utf8.baseAddress {
                copy.copyMemory(from: source, byteCount: utf8.count)
            }
            copy.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            return copy.bindMemory(to: CChar.self, capacity: utf8.count + 1)
        }
    }

    func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
        ProtobufCBinaryData(len: bytes.count, data: array(bytes))
    }

    /// A C array holding `values`, or nil when there are none.
    func array<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let copy = buffer(T.self, count: values.count)
        values.withUnsafeBufferPointer { source in
            // Safe: a non-empty array's buffer has a base address.
            copy.initialize(from: source.baseAddress!, count: source.count)
        }
        return copy
    }

    func strings(_ values: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard !values.isEmpty else { return nil }
        let pointers = buffer(UnsafeMutablePointer<CChar>?.self, count: values.count)
        for (index, value) in values.enumerated() {
            (pointers + index).initialize(to: string(value))
        }
        return pointers
    }

    /// An initialised and filled C struct for `message`.
    func message<M: CMessageMirror>(_ message: M) -> UnsafeMutablePointer<M.CMessage> {
        let c = buffer(M.CMessage.self, count: 1)
        M.cInitialize(c)
        message.fill(c, arena: self)
        return c
    }

    func messages<M: CMessageMirror>(_ values: [M]) -> UnsafeMutablePointer<UnsafeMutablePointer<M.CMessage>?>? {
        guard !values.isEmpty else { return nil }
        let pointers = buffer(UnsafeMutablePointer<M.CMessage>?.self, count: values.count)
        for (index, value) in values.enumerated() {
            (pointers + index).initialize(to: message(value))
        }
        return pointers
    }
}
