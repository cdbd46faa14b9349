import DashportTestSupport
@testable import DashportTLS
import CDashportSSL
import Testing

@Suite struct RecordTests {
    @Test(arguments: [1, 100, 16_120, 16_384])
    func oneRecordOfPlaintextPlus29BothWays(size: Int) throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get())
        try pair.handshake()
        let plaintext = pattern(size)
        for (sender, receiver) in [(pair.server, pair.client), (pair.client, pair.server)] {
            let record = try sender.encrypt(plaintext[...])
            #expect(record.count == size + TLSSession.recordOverhead)
            let parsed = try #require(Record.parse(record))
            #expect(parsed.count == 1)
            #expect(parsed.first?.contentType == 23)
            #expect(parsed.first?.version == 0x0303)
            #expect(try receiver.decrypt(record) == plaintext)
        }
    }

    /// The frame builder's path: OpenSSL writes the record straight into the frame's room,
    /// exactly as `encrypt(_:)` would return it, and records made either way decrypt in order.
    @Test(arguments: [1, 8_202, 16_384])
    func recordWrittenIntoAFrameBeingBuilt(size: Int) throws {
        let pair = try Pair()
        try pair.handshake()
        let plaintext = pattern(size)
        let room = size + TLSSession.maximumRecordExpansion
        var length = 0
        let frame = try [UInt8](unsafeUninitializedCapacity: 4 + room) { buffer, count in
            for index in 0..<4 { buffer[index] = UInt8(9 - index) }
            length = try pair.server.encrypt(
                plaintext[...], into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[4...])))
            count = 4 + length
        }
        #expect(length == size + TLSSession.recordOverhead)
        #expect(Array(frame.prefix(4)) == [9, 8, 7, 6])
        #expect(try pair.client.decrypt(Array(frame.dropFirst(4))) == plaintext)
        // The returned path and the written one share the sequence numbers.
        #expect(try pair.client.decrypt(pair.server.encrypt([1, 2, 3])) == [1, 2, 3])
        var scratch = [UInt8](repeating: 0, count: TLSSession.maximumRecordExpansion)
        let empty = try scratch.withUnsafeMutableBytes { try pair.server.encrypt([][...], into: $0) }
        #expect(empty == 0)
        #expect(try pair.client.decrypt(pair.server.encrypt([4])) == [4])
    }

    /// A frame without the room a record may need is refused before OpenSSL writes anything, and
    /// the session goes on: the next record still decrypts.
    @Test func tooLittleRoomIsRefusedBeforeEncrypting() throws {
        let pair = try Pair()
        try pair.handshake()
        var small = [UInt8](repeating: 0, count: 100 + TLSSession.recordOverhead)
        #expect(throws: TLSError.self) {
            try small.withUnsafeMutableBytes { _ = try pair.server.encrypt(pattern(100)[...], into: $0) }
        }
        #expect(try pair.client.decrypt(pair.server.encrypt([7, 7])) == [7, 7])
    }

    @Test func emptyPlaintextIsAnEmptyFrameWithoutRecord() throws {
        let pair = try Pair()
        try pair.handshake()
        #expect(try pair.server.encrypt([]) == [])
        #expect(try pair.client.decrypt([]) == [])
        // Sequence numbers are untouched: the next record still decrypts.
        #expect(try pair.client.decrypt(pair.server.encrypt([7])) == [7])
    }

    @Test func recordsDecryptInOrder() throws {
        let pair = try Pair()
        try pair.handshake()
        let messages = (1...5).map { pattern($0 * 300) }
        let records = try messages.map { plaintext throws(TLSError) in try pair.client.encrypt(plaintext) }
        for (record, plaintext) in zip(records, messages) {
            #expect(try pair.server.decrypt(record) == plaintext)
        }
    }

    @Test func aSkippedRecordBreaksTheSession() throws {
        let pair = try Pair()
        try pair.handshake()
        _ = try pair.client.encrypt([1, 2, 3])
        let second = try pair.client.encrypt([4, 5, 6])
        #expect(throws: TLSError.self) { try pair.server.decrypt(second) }
    }

    @Test func severalRecordsInOneFrameDecryptTogether() throws {
        let pair = try Pair()
        try pair.handshake()
        let payload = try pair.server.encrypt([1, 2]) + pair.server.encrypt([3]) + pair.server.encrypt(pattern(16_384))
        #expect(try pair.client.decrypt(payload) == [1, 2, 3] + pattern(16_384))
    }

    @Test func moreThanOneRecordOfPlaintextIsRefused() throws {
        let pair = try Pair()
        try pair.handshake()
        #expect(throws: TLSError.recordTooLarge) { try pair.server.encrypt(pattern(16_385)) }
        // A refused call is the caller's mistake, not the peer's: the session goes on.
        #expect(try pair.client.decrypt(pair.server.encrypt([9])) == [9])
    }

    @Test(arguments: [5, 13, 40, 40 + 28])
    func aTamperedRecordFailsToDecrypt(offset: Int) throws {
        let pair = try Pair()
        try pair.handshake()
        var record = try pair.server.encrypt(pattern(40))
        record[offset] ^= 0x01
        let error = try #require(throws: TLSError.self) { try pair.client.decrypt(record) }
        guard case .decryptFailed(let reason) = error else {
            Issue.record("expected decryptFailed, got \(error)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(throws: error) { try pair.client.decrypt(pair.server.encrypt([1])) }
    }

    @Test func aTruncatedRecordFailsToDecrypt() throws {
        let pair = try Pair()
        try pair.handshake()
        let record = try pair.server.encrypt(pattern(40))
        #expect(throws: TLSError.decryptFailed("frame ends inside a TLS record")) {
            try pair.client.decrypt(Array(record.dropLast(3)))
        }
    }

    @Test func handshakeRecordAfterCompletionIsNotData() throws {
        let pair = try Pair()
        try pair.handshake()
        // A plaintext handshake record arriving as data is not authentic.
        #expect(throws: TLSError.self) { try pair.server.decrypt([0x16, 0x03, 0x03, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00]) }
    }
}

@Suite struct PostHandshakeTests {
    @Test func aRenegotiationAttemptIsRefused() throws {
        let pair = try Pair()
        try pair.handshake()
        // Make the client start a renegotiation, as a hostile or buggy head unit could.
        #expect(SSL_renegotiate(pair.client.ssl) == 1)
        #expect(SSL_do_handshake(pair.client.ssl) <= 0)
        let helloAgain = MemoryBIO.drain(pair.client.outbound)
        try #require(!helloAgain.isEmpty)
        let error = try #require(throws: TLSError.self) { try pair.server.decrypt(helloAgain) }
        guard case .decryptFailed(let reason) = error else {
            Issue.record("expected decryptFailed, got \(error)")
            return
        }
        #expect(reason.contains("renegotiation"))
    }

    @Test func oneContextServesManyConcurrentSessions() async throws {
        let serverContext = try TLSContext(.server(identity: TestTLS.phoneIdentity.get(), peerPolicy: .acceptAny))
        let clientContext = try TLSContext(.client(identity: TestTLS.carIdentity.get()))
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask {
                    let server = try TLSSession(context: serverContext)
                    let client = try TLSSession(context: clientContext)
                    let flight1 = try server.handshake(received: client.startHandshake())
                    let flight3 = try server.handshake(received: client.handshake(received: flight1))
                    _ = try client.handshake(received: flight3)
                    return try server.decrypt(client.encrypt([UInt8(index)]))
                }
            }
            var collected: [[UInt8]] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        #expect(Set(results.map { $0.first ?? 255 }) == Set(0..<8))
    }
}
