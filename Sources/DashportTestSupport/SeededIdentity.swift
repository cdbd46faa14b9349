import DashportServer
import DashportTLS
import Foundation

/// One server identity per test process, written into every fresh test server's state directory.
///
/// A server whose state directory has no identity generates an RSA-2048 key on start: a tenth of a
/// second alone, several seconds on a loaded two-core machine, for each of the suite's ninety-odd
/// servers. The tests of identity itself (`IdentityStoreTests`, the fresh-home and state-file tests)
/// start servers on directories of their own and still generate.
enum SeededIdentity {
    /// Generated once, on first use.
    static let identity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: TLSIdentity.generatedCommonName) }

    /// Makes `directory` (0700) holding the seeded key and certificate (0600), as a server's first
    /// run would have left it.
    static func seed(_ directory: String) throws {
        let identity = try identity.get()
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let files: [(String, [UInt8])] = [
            (TLSIdentity.keyFileName, identity.privateKeyPEM),
            (TLSIdentity.certificateFileName, Array(identity.certificatePEM.utf8)),
        ]
        for (name, bytes) in files {
            let path = (directory as NSString).appendingPathComponent(name)
            guard manager.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
    }
}
