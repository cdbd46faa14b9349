import DashportTestSupport
@testable import DashportTLS
import Testing

/// Session resumption, which only the link fuzzer's server context allows
/// (`TLSContext(_:resumableSessions:)`, package-level, with TLS 1.2 session tickets): each fuzz input sets up a link over TLS,
/// and an abbreviated handshake keeps TLS real without RSA and ECDHE every time. The server
/// Dashport runs never resumes (`HandshakeTests.noSessionTicketAndNothingToResume`).
@Suite struct ResumptionTests {
    /// Runs a handshake between fresh sessions of `server` and `client`, the client offering `offer`.
    private func handshake(
        _ server: TLSContext, _ client: TLSContext, offering offer: TLSResumableSession?
    ) throws -> (server: TLSSession, client: TLSSession, flights: Int) {
        let phone = try TLSSession(context: server)
        let car = try TLSSession(context: client)
        if let offer { try car.resume(offer) }
        var message = try car.startHandshake()
        var flights = 1
        var serverTurn = true
        while flights < 10, !(phone.isHandshakeComplete && car.isHandshakeComplete) {
            message = serverTurn ? try phone.handshake(received: message) : try car.handshake(received: message)
            serverTurn.toggle()
            if message.isEmpty { break }
            flights += 1
        }
        try #require(phone.isHandshakeComplete && car.isHandshakeComplete)
        return (phone, car, flights)
    }

    @Test func aResumableServerResumesWithoutCertificatesAndKeepsThePeer() throws {
        let server = try TLSContext(.server(identity: TestTLS.phoneIdentity.get(), peerPolicy: .acceptAny), resumableSessions: true)
        let client = try TestTLS.carContext.get()
        let session: TLSResumableSession
        let cipher: String?
        do {
            let first = try handshake(server, client, offering: nil)
            #expect(!first.server.wasResumed && !first.client.wasResumed)
            #expect(first.flights == 4)
            session = try #require(first.client.resumableSession)
            cipher = first.server.negotiatedCipher
        }
        // Both connections are gone, freed without a close_notify as every link's are: the kept
        // session still resumes, and again after a resumed connection is gone too.
        for round in 1...2 {
            let again = try handshake(server, client, offering: session)
            #expect(again.server.wasResumed && again.client.wasResumed, "round \(round)")
            // ClientHello, the server's ServerHello + ChangeCipherSpec + Finished, the client's
            // ChangeCipherSpec + Finished: no certificate, key exchange or verify flight.
            #expect(again.flights == 3)
            // The resumed session still names the car's certificate and the suite.
            #expect(again.server.peerFingerprintSHA256 == (try TestTLS.carFingerprint()))
            #expect(again.server.negotiatedCipher == cipher)
            #expect(again.server.negotiatedVersion == "TLSv1.2")
        }
        let second = try handshake(server, client, offering: session)
        // Records still go through: the resumed keys are this connection's.
        let record = try second.client.encrypt([1, 2, 3])
        #expect(try second.server.decrypt(record) == [1, 2, 3])
    }

    @Test func dashportsServerIgnoresAnOfferedSession() throws {
        let resumable = try TLSContext(.server(identity: TestTLS.phoneIdentity.get(), peerPolicy: .acceptAny), resumableSessions: true)
        let client = try TestTLS.carContext.get()
        let session = try #require(try handshake(resumable, client, offering: nil).client.resumableSession)
        // The same offer to the context the server uses: a full handshake, nothing to resume after it.
        let full = try handshake(try TestTLS.phoneContext.get(), client, offering: session)
        #expect(!full.server.wasResumed && !full.client.wasResumed)
        #expect(full.flights == 4)
        #expect(full.client.resumableSession == nil)
    }

    @Test func onlyAClientBeforeItsHandshakeResumes() throws {
        let server = try TLSContext(.server(identity: TestTLS.phoneIdentity.get(), peerPolicy: .acceptAny), resumableSessions: true)
        let client = try TestTLS.carContext.get()
        let first = try handshake(server, client, offering: nil)
        let session = try #require(first.client.resumableSession)
        #expect(throws: TLSError.self) { try first.client.resume(session) }
        #expect(throws: TLSError.self) { try TLSSession(context: server).resume(session) }
    }

    /// The live sessions' contexts (`resumableSessions` and `keepsBuffers`): the client offers TLS
    /// 1.2 only and resumes, and `countRecords` counts what each side sealed and opened since.
    @Test func theLinkFuzzersLiveContextsResumeAndCountRecords() throws {
        let server = try TLSContext(
            .server(identity: TestTLS.phoneIdentity.get(), peerPolicy: .acceptAny), resumableSessions: true, keepsBuffers: true)
        let client = try TLSContext(.client(identity: nil), resumableSessions: true, keepsBuffers: true)
        let first = try handshake(server, client, offering: nil)
        #expect(first.client.negotiatedVersion == "TLSv1.2")
        let session: TLSResumableSession = try #require(first.client.resumableSession)
        let again = try handshake(server, client, offering: session)
        #expect(again.server.wasResumed)
        let (phone, car) = (again.server.countRecords(), again.client.countRecords())
        let records = try (1...3).map { try again.client.encrypt([UInt8($0)]) }
        #expect(try again.server.decrypt(records[0]) == [1])
        #expect(try again.server.decrypt(records[1] + records[2]) == [2, 3], "two records in one payload count as two")
        _ = try again.server.encrypt([4])
        #expect((car.sealed, car.opened, phone.sealed, phone.opened) == (3, 0, 1, 3))
    }
}
