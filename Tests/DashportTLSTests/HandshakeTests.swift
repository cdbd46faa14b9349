import DashportTestSupport
@testable import DashportTLS
import Testing

@Suite struct HandshakeTests {
    @Test func negotiatesTLS12WithAESGCMAlthoughTheClientOffers13() throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get())
        let messages = try pair.handshake()

        #expect(pair.server.isHandshakeComplete)
        #expect(pair.client.isHandshakeComplete)
        #expect(pair.server.negotiatedVersion == "TLSv1.2")
        #expect(pair.client.negotiatedVersion == "TLSv1.2")
        let cipher = try #require(pair.server.negotiatedCipher)
        #expect(["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384"].contains(cipher))
        #expect(pair.client.negotiatedCipher == cipher)

        // The ClientHello really offered TLS 1.3 (supported_versions extension, type 0x002b, with 0x0304).
        let hello = try #require(Record.parse(messages[0])?.first)
        #expect(hello.handshakeTypes == [1])
        #expect(contains(hello.body, [0x00, 0x2B]) && contains(hello.body, [0x03, 0x04]))
    }

    @Test func eachFlightIsOneMessage() throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get())
        let messages = try pair.handshake()

        // ClientHello, then three flights, each a single array; then both sides are done.
        try #require(messages.count == 4)
        let serverFlight = try #require(Record.parse(messages[1]))
        // ServerHello, Certificate, ServerKeyExchange, CertificateRequest, ServerHelloDone.
        #expect(serverFlight.allSatisfy { $0.contentType == 22 })
        #expect(serverFlight.flatMap(\.handshakeTypes) == [2, 11, 12, 13, 14])
        // Certificate, ClientKeyExchange, CertificateVerify, then ChangeCipherSpec and Finished.
        let clientFlight = try #require(Record.parse(messages[2]))
        #expect(clientFlight.prefix { $0.contentType == 22 }.flatMap(\.handshakeTypes) == [11, 16, 15])
        #expect(clientFlight.suffix(2).map(\.contentType) == [20, 22])
        // ChangeCipherSpec and the encrypted Finished.
        let finalFlight = try #require(Record.parse(messages[3]))
        #expect(finalFlight.map(\.contentType) == [20, 22])
        #expect(!pair.client.sessionIsResumable)
    }

    @Test func serverSeesTheClientCertificate() throws {
        let client = try TestTLS.carIdentity.get()
        let pair = try Pair(clientIdentity: client)
        try pair.handshake()
        #expect(pair.server.peerFingerprintSHA256 == client.fingerprintSHA256)
        #expect(pair.server.peerCertificateDER == client.certificateDER)
        #expect(pair.client.peerFingerprintSHA256 == (try TestTLS.phoneIdentity.get()).fingerprintSHA256)
    }

    @Test func clientWithoutCertificateIsAcceptedByAcceptAny() throws {
        let pair = try Pair()
        try pair.handshake()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.peerCertificateDER == nil)
        #expect(pair.server.peerFingerprintSHA256 == nil)
    }

    @Test func emptyHandshakeMessagesAreTolerated() throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get())
        #expect(try pair.server.startHandshake() == [])
        #expect(try pair.server.handshake(received: []) == [])
        let hello = try pair.client.startHandshake()
        #expect(try pair.client.handshake(received: []) == [])
        let flight1 = try pair.server.handshake(received: hello)
        #expect(try pair.server.handshake(received: []) == [])
        let flight2 = try pair.client.handshake(received: flight1)
        #expect(try pair.client.handshake(received: []) == [])
        let flight3 = try pair.server.handshake(received: flight2)
        #expect(try pair.client.handshake(received: flight3) == [])
        #expect(pair.server.isHandshakeComplete && pair.client.isHandshakeComplete)
        #expect(try pair.server.handshake(received: []) == [])
    }

    @Test(arguments: [
        "ECDHE-RSA-CHACHA20-POLY1305",  // 21 bytes of overhead: would desynchronise aasdk (§8.5)
        "ECDHE-RSA-AES128-SHA256:AES128-SHA",  // CBC: variable overhead
        "AES128-GCM-SHA256",  // GCM but no forward secrecy: not on the server's list either
    ])
    func clientWithoutAnAllowedSuiteFails(ciphers: String) throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get(), clientCiphers: ciphers)
        let hello = try pair.client.startHandshake()
        let error = try #require(throws: TLSError.self) { try pair.server.handshake(received: hello) }
        guard case .handshakeFailed(let reason) = error else {
            Issue.record("expected handshakeFailed, got \(error)")
            return
        }
        #expect(reason.contains("no shared cipher"))
        #expect(!pair.server.isHandshakeComplete)
    }

    @Test func noSessionTicketAndNothingToResume() throws {
        let pair = try Pair(clientIdentity: TestTLS.carIdentity.get())
        let messages = try pair.handshake()
        #expect(!pair.client.sessionHasTicket)
        #expect(!pair.client.sessionIsResumable)
        #expect(!pair.server.sessionIsResumable)
        // No NewSessionTicket (type 4) in the server's first flight, and an empty session id in
        // ServerHello (byte 38 of its body: 4 header + 2 version + 32 random).
        let serverHello = try #require(Record.parse(messages[1])?.first)
        #expect(!serverHello.handshakeTypes.contains(4))
        #expect(serverHello.body[38] == 0)
    }

    @Test(arguments: [
        [UInt8](repeating: 0xAB, count: 64),
        Array("GET / HTTP/1.1\r\nHost: car\r\n\r\n".utf8),
        [0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0xFF, 0xFF],
    ])
    func garbageAsFirstHandshakeInputFailsCleanly(garbage: [UInt8]) throws {
        let pair = try Pair()
        let error = try #require(throws: TLSError.self) { try pair.server.handshake(received: garbage) }
        guard case .handshakeFailed(let reason) = error else {
            Issue.record("expected handshakeFailed, got \(error)")
            return
        }
        #expect(!reason.isEmpty)
        // The failure is final: the next call reports the same error, whatever it is given.
        #expect(throws: error) { try pair.server.handshake(received: []) }
        #expect(throws: error) { try pair.server.encrypt([1, 2, 3]) }
    }

    @Test func oneSessionsErrorsNeverShowUpInAnother() throws {
        let broken = try Pair()
        #expect(throws: TLSError.self) { try broken.server.handshake(received: [UInt8](repeating: 0xAB, count: 64)) }
        let chacha = try Pair(clientCiphers: "ECDHE-RSA-CHACHA20-POLY1305")
        let error = try #require(throws: TLSError.self) { try chacha.server.handshake(received: chacha.client.startHandshake()) }
        #expect(!error.description.contains("wrong version"))
        #expect(error.description.contains("no shared cipher"))
        let healthy = try Pair(clientIdentity: TestTLS.carIdentity.get())
        try healthy.handshake()
        #expect(healthy.server.isHandshakeComplete)
    }

    @Test func dataBeforeTheHandshakeIsRefused() throws {
        let pair = try Pair()
        #expect(throws: TLSError.notEstablished) { try pair.server.encrypt([1]) }
        #expect(throws: TLSError.notEstablished) { try pair.client.decrypt([0x17, 0x03, 0x03, 0x00, 0x01, 0x00]) }
        #expect(pair.server.negotiatedVersion == nil)
        #expect(pair.server.negotiatedCipher == nil)
    }

    @Test func handshakeBytesAfterCompletionAreAnError() throws {
        let pair = try Pair()
        try pair.handshake()
        #expect(throws: TLSError.self) { try pair.server.handshake(received: [0x16, 0x03, 0x03, 0x00, 0x00]) }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.indices.contains { start in
            start + needle.count <= haystack.count && Array(haystack[start..<(start + needle.count)]) == needle
        }
    }
}

/// Idle sessions do not hold their record buffers: with hundreds of cars connected and quiet,
/// those are most of what a car costs (issue 10: private memory per car).
@Suite struct IdleBufferTests {
    @Test func bothRolesReleaseIdleRecordBuffers() throws {
        #expect(try TestTLS.phoneContext.get().releasesIdleBuffers)
        #expect(try TestTLS.carContext.get().releasesIdleBuffers)
    }
}
