import DashportEmulator
import DashportFiles
import DashportTestSupport
import DashportTLS
import Testing

/// `dashport-hu --identity DIR` (issue 21, item 7): one client certificate across runs, so a
/// server off loopback can pin it; made on first use with private modes, never replaced.
@Suite struct ClientIdentityTests {
    @Test func theFirstUseMakesItPrivatelyAndLaterUsesPresentTheSameCertificate() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("car")
        let (first, created) = try TLSIdentity.loadOrCreateClient(directory: directory)
        #expect(created)
        #expect(Files.status(directory)?.mode == 0o700)
        for name in [TLSIdentity.clientKeyFileName, TLSIdentity.clientCertificateFileName] {
            #expect(Files.status(Files.join(directory, name))?.mode == 0o600, "\(name)")
        }
        let (second, createdAgain) = try TLSIdentity.loadOrCreateClient(directory: directory)
        #expect(!createdAgain)
        #expect(second.fingerprintSHA256 == first.fingerprintSHA256)
        _ = try HeadUnitClient.makeContext(identity: second)  // usable as the client certificate
    }

    @Test func aHalfIdentityOrAMissingParentIsAnErrorAndNothingIsReplaced() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("car")
        _ = try TLSIdentity.loadOrCreateClient(directory: directory)
        let certificate = Files.join(directory, TLSIdentity.clientCertificateFileName)
        try Files.remove(certificate)
        #expect(throws: TLSError.self) { try TLSIdentity.loadOrCreateClient(directory: directory) }
        #expect(Files.status(certificate) == nil)
        #expect(throws: TLSError.self) { try TLSIdentity.loadOrCreateClient(directory: temporary.file("no/such/parent")) }
    }
}
