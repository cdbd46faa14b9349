public import DashportFiles
import DashportHeadUnit
import Glibc

/// Writes received audio to a WAV file the way ``Files`` writes everything: streamed to a
/// temporary file beside the target, the header filled in at the end, then committed (`fsync`,
/// `rename`). Until ``finish()`` the target is untouched; an interrupted run leaves only a
/// temporary file that ``Files/isTemporary(_:)`` recognises.
///
/// Not thread-safe: one task owns it (`dashport-hu` feeds it from one audio loop).
public final class WAVFileWriter {
    public let path: String
    public let sampleRate: UInt32
    public let channels: UInt16
    /// PCM bytes written so far (the header not counted).
    public private(set) var dataBytes = 0
    private let temporary: String
    private var fd: Int32?

    /// Creates the temporary file and reserves the header.
    public init(path: String, sampleRate: UInt32 = 48_000, channels: UInt16 = 2) throws(FileError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.temporary = Files.temporaryPath(for: path)
        let fd = try Files.create(temporary, mode: 0o644)
        self.fd = fd
        try write(WAVHeader.bytes(sampleRate: sampleRate, channels: channels, dataBytes: 0))
    }

    /// Appends interleaved S16 samples.
    public func append(_ samples: [Int16]) throws(FileError) {
        try write(WAVHeader.littleEndian(samples))
        dataBytes += samples.count * 2
    }

    /// Writes the final header and moves the file to ``path``.
    public func finish() throws(FileError) {
        guard let fd else { return }
        let header = WAVHeader.bytes(sampleRate: sampleRate, channels: channels, dataBytes: dataBytes)
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = nil
        _ = close(fd)
        guard written == header.count else {
            _ = unlink(temporary)
            throw FileError("write", temporary, .system(errno: errno))
        }
        try Files.commit(temporary, to: path)
    }

    /// Drops the temporary file (nothing is published).
    public func abandon() {
        guard let fd else { return }
        self.fd = nil
        _ = close(fd)
        _ = unlink(temporary)
    }

    private func write(_ bytes: [UInt8]) throws(FileError) {
        guard let fd else { return }
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileError) in try Files.writeAll(buffer, to: fd, path: temporary) }
        }
        if case .failure(let error) = result {
            abandon()
            throw error
        }
    }

    deinit {
        if let fd {
            _ = close(fd)
            _ = unlink(temporary)
        }
    }
}
