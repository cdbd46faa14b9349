import DashportFiles
public import DashportLog
public import DashportTLS
import FoundationEssentials
import Glibc

/// The server keeps its TLS identity in the state directory; the TLS layer only ever sees the bytes.
extension TLSIdentity {
    /// File name of the server's private key inside the state directory (mode 0600).
    public static let keyFileName = "server-key.pem"
    /// File name of the server's certificate inside the state directory (mode 0600).
    public static let certificateFileName = "server-cert.pem"
    /// Common name of the certificate generated on first run.
    public static let generatedCommonName = "Dashport"

    /// The server's identity, kept across runs so head units can pin it.
    ///
    /// Identity files are a few KiB; anything larger is not ours.
    static let maximumFileSize = 64 * 1024

    /// First run: creates `stateDirectory` (0700, logged; its parent must exist unless it is the
    /// default location) if missing, generates an RSA-2048 key and a
    /// self-signed certificate, and writes ``keyFileName`` then ``certificateFileName`` (both 0600,
    /// atomically). Later runs load and check them. A key without a certificate (a crash between the
    /// two writes) gets a fresh certificate for the same key. Anything unreadable, corrupt or
    /// mismatched is a ``TLSError/identity(file:reason:)`` naming the file: it is never overwritten,
    /// because a silently replaced key would break every head unit that pinned it. A FIFO, device,
    /// directory or symbolic link in place of a file is refused without blocking.
    public static func loadOrCreate(stateDirectory: String, logger: Logger = .silent) throws(TLSError) -> TLSIdentity {
        let log = logger.with("directory", stateDirectory)
        do {
            // The default location (XDG: `~/.local/state/dashport`) may be the first thing ever put
            // under `~/.local/state` on a fresh machine: its missing parents are made (0700, as the
            // XDG base directory spec asks). A directory given with --state-dir must have its parent.
            if stateDirectory == ServerConfiguration.defaultStateDirectory() {
                try Files.makeParents(of: stateDirectory) { log.notice("created \($0) (mode 0700)") }
            }
            if try Files.makeDirectory(stateDirectory) { log.notice("created the state directory (mode 0700)") }
            // Another user who can write here could replace the key and certificate (ssh's StrictModes).
            try Files.checkPrivateDirectory(stateDirectory, purpose: "state directory")
        } catch {
            throw .identity(file: stateDirectory, reason: error.causeText)
        }
        let keyPath = Files.join(stateDirectory, keyFileName)
        let certificatePath = Files.join(stateDirectory, certificateFileName)

        switch (try exists(keyPath), try exists(certificatePath)) {
        case (true, true):
            let key = try loadKey(keyPath, logger: log)
            try checkPrivate(certificatePath, purpose: "server certificate", forbidden: 0o022)
            let certificateBytes = try read(certificatePath)
            guard TLSIdentity.isCertificatePEM(certificateBytes) else {
                throw .identity(file: certificatePath, reason: "not a PEM certificate")
            }
            let identity: TLSIdentity
            do {
                identity = try TLSIdentity(certificatePEM: certificateBytes, privateKeyPEM: key)
            } catch {
                throw .identity(file: certificatePath, reason: "does not belong to the key in \(keyPath)")
            }
            log.info("loaded server identity", ["sha256": identity.fingerprintSHA256])
            return identity

        case (false, false):
            let identity = try TLSIdentity.generate(commonName: generatedCommonName)
            try write(identity.privateKeyPEM, to: keyPath)
            try write(Array(identity.certificatePEM.utf8), to: certificatePath)
            log.notice("generated server identity", ["sha256": identity.fingerprintSHA256])
            return identity

        case (true, false):
            let key = try loadKey(keyPath, logger: log)
            let identity = try TLSIdentity.selfSigned(privateKeyPEM: key, commonName: generatedCommonName)
            try write(Array(identity.certificatePEM.utf8), to: certificatePath)
            log.notice(
                "certificate was missing: issued a new one for the existing key",
                ["file": certificatePath, "sha256": identity.fingerprintSHA256])
            return identity

        case (false, true):
            throw .identity(
                file: keyPath,
                reason: "missing while \(certificatePath) exists; restore the key, "
                    + "or remove the certificate to generate a new identity (pinned head units must then re-pin)")
        }
    }

    /// The key file's bytes, checked to be ours alone and an unencrypted PEM private key.
    private static func loadKey(_ path: String, logger: Logger) throws(TLSError) -> [UInt8] {
        try checkPrivate(path, purpose: "server key", forbidden: 0o077)
        let bytes = try read(path)
        guard TLSIdentity.isPrivateKeyPEM(bytes) else {
            throw .identity(file: path, reason: "not an unencrypted PEM private key")
        }
        return bytes
    }

    /// A key others can read is no secret, a certificate others can change is not ours: refused,
    /// with the `chmod`/`chown` that fixes it.
    private static func checkPrivate(_ path: String, purpose: String, forbidden: UInt32) throws(TLSError) {
        do { try Files.checkPrivateFile(path, purpose: purpose, forbidden: forbidden) } catch {
            throw .identity(file: path, reason: error.causeText)
        }
    }

    /// The identity a server in `stateDirectory` presents, never creating anything: for
    /// `dashport fingerprint`, where a mistyped directory must not print the pin of a key made on
    /// the spot. A missing directory, key or certificate is a ``TLSError/identity(file:reason:)``
    /// saying so (and that `dashport serve` makes one on its first run); a present pair is loaded
    /// and checked as ``loadOrCreate(stateDirectory:logger:)`` does.
    public static func loadExisting(stateDirectory: String, logger: Logger = .silent) throws(TLSError) -> TLSIdentity {
        let keyPath = Files.join(stateDirectory, keyFileName)
        let certificatePath = Files.join(stateDirectory, certificateFileName)
        let start = "`dashport serve --state-dir \(stateDirectory)` creates one on its first run"
        guard Files.status(stateDirectory) != nil else {
            throw .identity(file: stateDirectory, reason: "no such directory, so no server identity (\(start))")
        }
        switch (try exists(keyPath), try exists(certificatePath)) {
        case (true, true):
            return try loadOrCreate(stateDirectory: stateDirectory, logger: logger)
        case (false, false):
            throw .identity(file: keyPath, reason: "no server identity in this directory (\(start))")
        case (true, false):
            throw .identity(
                file: certificatePath, reason: "missing; `dashport serve` issues it for the existing key on its next start")
        case (false, true):
            return try loadOrCreate(stateDirectory: stateDirectory, logger: logger)  // refused there, with its advice
        }
    }

    private static func exists(_ path: String) throws(TLSError) -> Bool {
        do { return try Files.exists(path) } catch { throw .identity(file: path, reason: error.causeText) }
    }

    private static func read(_ path: String) throws(TLSError) -> [UInt8] {
        do { return try Files.read(path, limit: maximumFileSize) } catch { throw .identity(file: path, reason: error.description) }
    }

    private static func write(_ bytes: [UInt8], to path: String) throws(TLSError) {
        do { try Files.writeAtomically(bytes, to: path, mode: 0o600) } catch { throw .identity(file: path, reason: error.description) }
    }
}
