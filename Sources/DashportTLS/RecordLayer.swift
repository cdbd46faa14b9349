/// What a link needs of the layer that protects its frames: a handshake carried in
/// ENCAPSULATED_SSL messages, then one record per frame each way, in order (aap-protocol.md §2.4,
/// §2.8).
///
/// ``TLSSession`` is the only conformance in the server, the emulator and the tools: `PhoneLink`'s
/// and `HeadUnitLink`'s public initialisers take a `TLSSession`, and no configuration can choose
/// anything else. The protocol exists (at `package` access) so that the link fuzzer can put a null
/// layer below a real link (`NullRecordLayer` in tools/fuzz/Drivers, a target the server does not
/// depend on): the post-handshake state machine then runs thousands of inputs per second instead
/// of paying RSA and ECDHE for each. Calls are made strictly in wire order; any error is final.
package protocol RecordLayer: AnyObject {
    /// Whether the handshake finished and records can be sealed and opened.
    var isHandshakeComplete: Bool { get }
    /// "TLSv1.2" once established (for the link's `tlsEstablished` summary).
    var negotiatedVersion: String? { get }
    /// The suite's name once established.
    var negotiatedCipher: String? { get }
    /// Lowercase hex SHA-256 of the peer's certificate, if it presented one.
    var peerFingerprintSHA256: String? { get }
    /// Client: the first flight; server: `[]`.
    func startHandshake() throws(TLSError) -> [UInt8]
    /// One ENCAPSULATED_SSL body in; this side's whole next flight (possibly empty) out.
    func handshake(received: [UInt8]) throws(TLSError) -> [UInt8]
    /// Exactly one record for at most ``TLSSession/maximumPlaintextPerRecord`` bytes of
    /// plaintext (`[]` for an empty one), ``TLSSession/recordOverhead`` bytes longer.
    func encrypt(_ plaintext: ArraySlice<UInt8>) throws(TLSError) -> [UInt8]
    /// ``encrypt(_:)``, the record written at the start of `buffer` (a frame being built, with
    /// ``TLSSession/maximumRecordExpansion`` bytes of room beyond the plaintext); returns its length.
    func encrypt(_ plaintext: ArraySlice<UInt8>, into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int
    /// One frame's payload (whole records) to its plaintext.
    func decrypt(_ record: [UInt8]) throws(TLSError) -> [UInt8]
}

extension RecordLayer {
    package func encrypt(_ plaintext: ArraySlice<UInt8>, into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        let record = try encrypt(plaintext)
        guard record.count <= buffer.count else { throw .library("a record of \(record.count) bytes exceeds its room of \(buffer.count)") }
        buffer.copyBytes(from: record)
        return record.count
    }
}

extension TLSSession: RecordLayer {}
