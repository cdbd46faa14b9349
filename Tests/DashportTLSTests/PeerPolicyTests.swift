import DashportTestSupport
@testable import DashportTLS
import CDashportSSL
import Foundation
import Testing

@Suite struct PeerPolicyTests {
    @Test func pinnedAcceptsTheRightFingerprintInAnySpelling() throws {
        let client = try TestTLS.carIdentity.get()
        let upperWithColons = stride(from: 0, to: 64, by: 2).map { offset in
            let start = client.fingerprintSHA256.index(client.fingerprintSHA256.startIndex, offsetBy: offset)
            return client.fingerprintSHA256[start...].prefix(2).uppercased()
        }.joined(separator: ":")
        for pin in [client.fingerprintSHA256, upperWithColons] {
            let pair = try Pair(policy: .pinnedSHA256([String(repeating: "0", count: 64), pin]), clientIdentity: client)
            try pair.handshake()
            #expect(pair.server.isHandshakeComplete)
            #expect(pair.client.isHandshakeComplete)
        }
    }

    @Test func pinnedRejectsAnotherCertificateBeforeFinishing() throws {
        let other = try TestTLS.otherCarIdentity.get()
        let pair = try Pair(policy: .pinnedSHA256([TestTLS.carIdentity.get().fingerprintSHA256]), clientIdentity: other)
        let hello = try pair.client.startHandshake()
        let clientFlight = try pair.client.handshake(received: pair.server.handshake(received: hello))
        let error = try #require(throws: TLSError.self) { try pair.server.handshake(received: clientFlight) }
        #expect(error == .peerRejected("client certificate sha256 \(other.fingerprintSHA256) is not pinned"))
        #expect(!pair.server.isHandshakeComplete)
        #expect(!pair.client.isHandshakeComplete)
        #expect(throws: error) { try pair.server.encrypt([1]) }
    }

    @Test func pinnedRejectsAMissingCertificate() throws {
        let pair = try Pair(policy: .pinnedSHA256([TestTLS.carIdentity.get().fingerprintSHA256]))
        #expect(throws: TLSError.peerRejected("no client certificate, and the policy pins fingerprints")) {
            try pair.handshake()
        }
        #expect(!pair.server.isHandshakeComplete)
    }

    @Test(arguments: [Set<String>(), ["abc"], [String(repeating: "g", count: 64)]])
    func malformedPinsAreAConfigurationError(pins: Set<String>) throws {
        let configuration = TLSConfiguration.server(identity: try TestTLS.phoneIdentity.get(), peerPolicy: .pinnedSHA256(pins))
        let error = try #require(throws: TLSError.self) { try TLSContext(configuration) }
        guard case .configuration = error else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
    }

    @Test func certificateAuthorityAcceptsASignedCertificateAndNothingElse() throws {
        let caFile = "the test's CA"
        let policy = PeerPolicy.certificateAuthority(pem: Array(try TestTLS.authority.get().certificatePEM.utf8), source: caFile)

        let signed = try Pair(policy: policy, clientIdentity: TestTLS.authoritySignedCar.get())
        try signed.handshake()
        #expect(signed.server.isHandshakeComplete)
        #expect(signed.server.peerFingerprintSHA256 == (try TestTLS.authoritySignedCar.get()).fingerprintSHA256)

        for stranger in [try TestTLS.carIdentity.get(), try TestTLS.otherAuthoritySignedCar.get()] {
            let pair = try Pair(policy: policy, clientIdentity: stranger)
            let error = try #require(throws: TLSError.self) { try pair.handshake() }
            guard case .peerRejected(let reason) = error else {
                Issue.record("expected peerRejected, got \(error)")
                continue
            }
            #expect(reason.contains(stranger.fingerprintSHA256))
            #expect(reason.contains(caFile))
            #expect(!pair.server.isHandshakeComplete)
        }

        let anonymous = try Pair(policy: policy)
        #expect(throws: TLSError.self) { try anonymous.handshake() }
        #expect(!anonymous.server.isHandshakeComplete)
    }

    @Test func caBytesWithoutACertificateAreAConfigurationErrorNamingTheirSource() throws {
        let path = "/etc/dashport/ca.pem"
        let configuration = TLSConfiguration.server(
            identity: try TestTLS.phoneIdentity.get(),
            peerPolicy: .certificateAuthority(pem: Array("not a certificate\n".utf8), source: path))
        let error = try #require(throws: TLSError.self) { try TLSContext(configuration) }
        guard case .configuration(let reason) = error else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
        #expect(reason.contains(path))
    }

    /// The certificate aasdk presents is X.509 v1 with a BER validity time (aap-protocol §8.6);
    /// the server must take it and pin it by its raw bytes.
    @Test func aVersion1CertificateWithBERTimesIsAcceptedAndPinnable() throws {
        let legacy = try TestTLS.legacyCar.get()
        // The fixture really is v1 (no [0] version tag after the TBS header) with the offset time.
        #expect(legacy.certificateDER[8] == 0x02)
        #expect(String(decoding: legacy.certificateDER, as: UTF8.self).contains("140704000000-0700"))

        for policy in [PeerPolicy.acceptAny, .pinnedSHA256([legacy.fingerprintSHA256])] {
            let pair = try Pair(policy: policy, clientIdentity: legacy)
            try pair.handshake()
            #expect(pair.server.isHandshakeComplete)
            #expect(pair.server.peerCertificateDER == legacy.certificateDER)
        }
    }

    @Test func anUnknownClientCipherListIsAConfigurationError() throws {
        var configuration = TLSConfiguration.client(identity: nil)
        configuration.clientCipherList = "no-such-cipher"
        let error = try #require(throws: TLSError.self) { try TLSContext(configuration) }
        guard case .configuration(let reason) = error else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
        #expect(reason.contains("no-such-cipher"))
    }
}

@Suite struct ServerIdentityTests {
    @Test func aServerIdentityWithoutAnRSAKeyIsRefused() throws {
        let keygen = try #require(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil))
        defer { EVP_PKEY_CTX_free(keygen) }
        var ecKey: OpaquePointer?
        try #require(EVP_PKEY_keygen_init(keygen) == 1)
        try #require(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(keygen, NID_X9_62_prime256v1) > 0)
        try #require(EVP_PKEY_keygen(keygen, &ecKey) == 1)
        let key = PrivateKey(taking: try #require(ecKey))
        let certificate = try CertificateFactory.make(CertificateSpec(commonName: "EC server"), key: key)
        let identity = try TLSIdentity(certificate: certificate, key: key)

        let error = try #require(throws: TLSError.self) { try TLSContext(.server(identity: identity, peerPolicy: .acceptAny)) }
        guard case .configuration(let reason) = error else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
        #expect(reason.contains("RSA"))
        // The client role may present any key.
        #expect(throws: Never.self) { try TLSContext(.client(identity: identity)) }
    }
}
