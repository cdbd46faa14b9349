import DashportLog
import DashportTestSupport
import DashportTransport
import DashportUSB
import Foundation
import Synchronization
import Testing

/// A session the server ends (a car's BYEBYE_REQUEST answered, then closed) re-enumerates the
/// gadget only once its last bytes are out: issue 21, item 3, where a car that said bye-bye after a
/// replug never got its BYEBYE_RESPONSE because the re-enumeration cut the transfer in flight.
@Suite(.serialized) struct DrainBeforeReenumerationTests {
    /// The simulated endpoints with bulk IN as a one-page pipe the test fills first, so the
    /// gadget's next write blocks (as a FunctionFS write does until the host reads the transfer)
    /// until the test, playing the car, reads.
    final class PipedBulkIn: FunctionFSEndpoints {
        let simulated = SimulatedEndpoints()
        let carEnd: Int32
        let gadgetEnd: Int32
        static let capacity = 4096

        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0, "pipe: \(String(cString: strerror(errno)))")
            (carEnd, gadgetEnd) = (fds[0], fds[1])
            // F_SETPIPE_SZ (1024 + 7, <linux/fcntl.h>): Glibc's module map leaves the GNU names out.
            let setPipeSize: Int32 = 1031
            precondition(fcntl(gadgetEnd, setPipeSize, Int32(Self.capacity)) == Int32(Self.capacity), "F_SETPIPE_SZ")
            // Earlier traffic the car has not read yet: the pipe is full.
            let filler = [UInt8](repeating: 0xAA, count: Self.capacity)
            precondition(filler.withUnsafeBytes { write(gadgetEnd, $0.baseAddress, $0.count) } == Self.capacity)
        }

        var name: String { "simulated, piped bulk IN" }
        func openControl() -> Int32 { simulated.openControl() }
        func openBulkIn() -> Int32 { gadgetEnd }
        func openBulkOut() -> Int32 { simulated.openBulkOut() }

        /// Reads exactly `count` bytes the gadget sent on bulk IN, each read waiting up to 10 s.
        func carReads(_ count: Int) -> [UInt8]? {
            var bytes: [UInt8] = []
            while bytes.count < count {
                guard let chunk = receivePipe(max: count - bytes.count) else { return nil }
                bytes += chunk
            }
            return bytes
        }

        private func receivePipe(max: Int) -> [UInt8]? {
            var poller = pollfd(fd: carEnd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: max)
            let got = buffer.withUnsafeMutableBytes { read(carEnd, $0.baseAddress, max) }
            guard got > 0 else { return nil }
            return Array(buffer[..<got])
        }
    }

    @Test func theLastAnswerReachesTheCarBeforeTheGadgetReEnumerates() async throws {
        let configfs = try FakeConfigfs()
        defer { configfs.remove() }
        let endpoints = PipedBulkIn()
        let log = CollectingSink()
        let gadget = FunctionFSGadget(
            endpoints: endpoints, identity: configfs.identity, options: .init(mode: .direct),
            logger: Logger(label: "test", level: .debug, sink: log))
        let sessions = Mutex<[USBSessionStream]>([])
        try gadget.start { stream in
            sessions.withLock { $0.append(stream) }
            stream.start { _ in }
        }
        _ = endpoints.simulated.readControl(66 + 46)
        endpoints.simulated.post(.bind)
        endpoints.simulated.post(.enable)
        try await eventually("a session") { sessions.withLock { $0.count } == 1 }
        let session = try #require(sessions.withLock { $0.first })

        // The server answers the car's BYEBYE_REQUEST (an encrypted control frame) and closes.
        let byeByeResponse: [UInt8] = [0, 0x0B, 0, 4, 0x17, 0x03, 0x03, 0x00]
        session.write(byeByeResponse)
        // The writer has taken the answer and is blocked handing it to the host.
        try await eventually("the writer to take the answer") { session.outboundBufferedBytes == 0 }
        session.close()
        // Nothing ends the session while the answer is in flight.
        #expect(!session.isFinished)
        #expect(!log.contains(.info, "re-enumerating"))

        // The car reads what was waiting, then the answer; only then does the gadget re-enumerate.
        #expect(endpoints.carReads(PipedBulkIn.capacity) == [UInt8](repeating: 0xAA, count: PipedBulkIn.capacity))
        #expect(endpoints.carReads(byeByeResponse.count) == byeByeResponse)
        try await eventually("the re-enumeration") {
            session.isFinished && log.contains(.info, "session ended by the server; re-enumerating")
        }
        try await eventually("the gadget bound again") { configfs.read("UDC") == "dummy_udc.0" }

        gadget.stop()
        endpoints.simulated.close()
        #expect(gadget.waitForThreads(timeout: .seconds(10)))
        close(endpoints.carEnd)
    }
}
