import FoundationEssentials
import Glibc

/// Where a gadget's endpoint files come from: a FunctionFS mount, or a test's simulated endpoints.
/// Each call returns a file descriptor the gadget then owns (and closes).
public protocol FunctionFSEndpoints: Sendable {
    /// Something to say in logs and peer descriptions ("ffs /dev/ffs-dashport").
    var name: String { get }
    /// ep0, for reading and writing.
    func openControl() throws(USBGadgetError) -> Int32
    /// ep1, bulk IN (we write). Called after the descriptors are written.
    func openBulkIn() throws(USBGadgetError) -> Int32
    /// ep2, bulk OUT (we read).
    func openBulkOut() throws(USBGadgetError) -> Int32
}

/// The endpoint files of a mounted FunctionFS instance. Bulk endpoints are opened non-blocking:
/// on FunctionFS that only makes a transfer fail with EAGAIN while the endpoints are disabled
/// (no car), instead of waiting and then sending stale bytes to the next car.
public struct FunctionFSDirectory: FunctionFSEndpoints {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var name: String { "ffs \(directory)" }

    public func openControl() throws(USBGadgetError) -> Int32 {
        guard FileManager.default.fileExists(atPath: directory + "/ep0") else { throw .notMounted(directory: directory) }
        return try open(directory + "/ep0", O_RDWR)
    }

    public func openBulkIn() throws(USBGadgetError) -> Int32 {
        try open(directory + "/ep1", O_WRONLY | O_NONBLOCK)
    }

    public func openBulkOut() throws(USBGadgetError) -> Int32 {
        try open(directory + "/ep2", O_RDONLY | O_NONBLOCK)
    }

    private func open(_ path: String, _ flags: Int32) throws(USBGadgetError) -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == EACCES || code == EPERM { throw .permission(path: path) }
            if code == ENOENT { throw .notMounted(directory: directory) }
            if code == EBUSY { throw .descriptors("\(path) is busy: another Dashport (or program) has it open") }
            throw .io("open \(path): \(String(cString: strerror(code)))")
        }
        return fd
    }
}

/// Blocking file IO with EINTR retried, for the gadget's dedicated threads.
enum FileIO {
    /// Reads up to `count` bytes; the result (≥ 0) or -errno.
    static func read(_ fd: Int32, into buffer: inout [UInt8], count: Int) -> Int {
        while true {
            let result = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min(count, $0.count)) }
            if result >= 0 { return result }
            if errno != EINTR { return -Int(errno) }
        }
    }

    /// Reads exactly `count` bytes (a stream may return them in pieces); nil on end of file or error.
    static func readExactly(_ fd: Int32, count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while bytes.count < count {
            let got = read(fd, into: &buffer, count: count - bytes.count)
            if got <= 0 { return nil }
            bytes += buffer[..<got]
        }
        return bytes
    }

    /// Writes all of `bytes` (0 bytes = one zero-length write); 0 or -errno.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        if bytes.isEmpty {
            while true {
                var none: UInt8 = 0
                let result = Glibc.write(fd, &none, 0)
                if result >= 0 { return 0 }
                if errno != EINTR { return -Int(errno) }
            }
        }
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }  // count > 0 here, so baseAddress is non-nil
            if result < 0 {
                if errno == EINTR { continue }
                return -Int(errno)
            }
            offset += result
        }
        return 0
    }

    static func describe(_ negativeErrno: Int) -> String {
        String(cString: strerror(Int32(-negativeErrno)))
    }
}
