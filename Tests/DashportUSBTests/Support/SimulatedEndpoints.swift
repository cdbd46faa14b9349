import Foundation
import DashportUSB
import DashportUSBHost
import Synchronization
import Testing

/// The project's `Fixtures/usb/` files.
enum USBFixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/usb")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}

/// A connected socket pair; `.stream` for ep0 (a byte stream, like ep0's event and data reads),
/// `.seqpacket` for a bulk pipe (each write one message, as each write on an ep file is one transfer,
/// and a 0-byte write is a zero-length packet the reader sees as a 0-byte message).
func socketPair(_ kind: Int32) -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    let result = socketpair(AF_UNIX, kind, 0, &fds)
    precondition(result == 0, "socketpair: \(String(cString: strerror(errno)))")
    return (fds[0], fds[1])
}

/// A gadget's endpoint files, simulated: ep0 a stream socket pair, the bulk pipes seqpacket pairs.
/// The gadget gets one end of each; the test plays the kernel and the car on the other.
final class SimulatedEndpoints: FunctionFSEndpoints {
    let ep0Gadget: Int32, ep0: Int32
    let inGadget: Int32, bulkIn: Int32  // bulk IN: the gadget writes, the car reads `bulkIn`
    let outGadget: Int32, bulkOut: Int32  // bulk OUT: the car writes `bulkOut`, the gadget reads

    init() {
        (ep0Gadget, ep0) = socketPair(Int32(SOCK_STREAM.rawValue))
        (inGadget, bulkIn) = socketPair(Int32(SOCK_SEQPACKET.rawValue))
        (outGadget, bulkOut) = socketPair(Int32(SOCK_SEQPACKET.rawValue))
    }

    var name: String { "simulated" }
    func openControl() -> Int32 { ep0Gadget }
    func openBulkIn() -> Int32 { inGadget }
    func openBulkOut() -> Int32 { outGadget }

    /// The kernel posts an ep0 event.
    func post(_ event: FunctionFSEvent) {
        send(ep0, event.record)
    }

    /// The car sends the data stage of an OUT request.
    func sendControlData(_ bytes: [UInt8]) {
        send(ep0, bytes)
    }

    /// Reads exactly `count` bytes the gadget wrote on ep0, waiting up to 10 s.
    func readControl(_ count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard let chunk = receive(ep0, max: count - bytes.count) else { return nil }
            bytes += chunk
        }
        return bytes
    }

    /// One transfer the gadget sent on bulk IN (a 0-byte array is a zero-length packet).
    func readTransfer(timeout: Int32 = 10_000) -> [UInt8]? {
        receive(bulkIn, max: 65536, timeout: timeout)
    }

    /// The car sends one bulk OUT transfer.
    func carSends(_ bytes: [UInt8]) {
        send(bulkOut, bytes)
    }

    /// Whether the gadget has read everything the car sent (nothing left in its bulk OUT socket).
    /// On a real bus a transfer is read the moment it completes, before the bus can go idle; the
    /// socket pair decouples the two, so an unplug test waits for this first.
    var carBytesTaken: Bool {
        var pending: Int32 = 0
        return ioctl(outGadget, UInt(FIONREAD), &pending) == 0 && pending == 0
    }

    /// Ends the simulation: closes the test's ends (the gadget closes its own).
    func close() {
        for fd in [ep0, bulkIn, bulkOut] { Glibc.close(fd) }
    }

    /// The car's side of the bulk pipe as a ``USBBulkPipe``, for ``USBHostStream``.
    var carPipe: SocketBulkPipe { SocketBulkPipe(input: bulkIn, output: bulkOut) }
}

func send(_ fd: Int32, _ bytes: [UInt8]) {
    let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    precondition(written == bytes.count, "send: \(String(cString: strerror(errno)))")
}

/// One read of up to `max` bytes within `timeout` ms; nil on timeout or end of file.
func receive(_ fd: Int32, max: Int, timeout: Int32 = 10_000) -> [UInt8]? {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, timeout) == 1 else { return nil }
    var buffer = [UInt8](repeating: 0, count: max)
    let got = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, max, 0) }
    guard got >= 0 else { return nil }
    return Array(buffer[..<got])
}

/// The car's bulk pipe over the simulated endpoints' seqpacket sockets (the test keeps the fds).
final class SocketBulkPipe: USBBulkPipe {
    let input: Int32
    let output: Int32
    let maxPacket = 512

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    func read(count: Int, timeout: Duration) -> ([UInt8], BulkResult) {
        var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout.components.seconds * 1000 + 1))
        guard ready == 1 else { return ([], .timedOut) }
        if poller.revents & Int16(POLLHUP) != 0 && poller.revents & Int16(POLLIN) == 0 { return ([], .unplugged) }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { Glibc.recv(input, $0.baseAddress, count, Int32(MSG_DONTWAIT)) }
        if got < 0 { return errno == EAGAIN ? ([], .timedOut) : ([], .unplugged) }
        return (Array(buffer[..<got]), .transferred(got))
    }

    func write(_ bytes: [UInt8], timeout: Duration) -> BulkResult {
        let written = bytes.withUnsafeBytes { Glibc.send(output, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return written == bytes.count ? .transferred(written) : .unplugged
    }

    func close() {}
}

/// A configfs gadget and /sys/class/udc made of plain files in a temporary directory.
struct FakeConfigfs {
    let root: String
    var gadget: String { root + "/usb_gadget/dashport" }
    var udcClass: String { root + "/udc" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-configfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/usb_gadget/dashport", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/udc/dummy_udc.0", withIntermediateDirectories: true)
        try "0x4ee1\n".write(toFile: gadget + "/idProduct", atomically: false, encoding: .utf8)
        try "\n".write(toFile: gadget + "/UDC", atomically: false, encoding: .utf8)
        try "high-speed\n".write(toFile: udcClass + "/dummy_udc.0/current_speed", atomically: false, encoding: .utf8)
    }

    func read(_ name: String) -> String {
        ((try? String(contentsOfFile: gadget + "/" + name, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var identity: GadgetIdentity { GadgetIdentity(directory: gadget, controller: "dummy_udc.0", udcClassDirectory: udcClass) }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
