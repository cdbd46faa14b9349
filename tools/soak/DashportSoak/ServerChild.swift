import Foundation
import Synchronization
public import DashportTransport

/// `dashport serve` as a child process on 127.0.0.1 (any free port), with its own state directory;
/// its log (warnings and up) goes to a file next to that directory.
public final class ServerChild: Sendable {
    public let pid: Int32
    public let address: ListenAddress
    public let stateDirectory: String
    public let logFile: String
    private let process: Process

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The options a child soaked by `cars` cars needs: the budget for connections still in the
    /// handshake is raised to the car count, so that all cars reconnecting at once (as at the start)
    /// do not push out each other's handshakes. Linked cars are capped per address (loopback
    /// included) and in all, and every soak car is on 127.0.0.1: on a loaded machine the server
    /// ends a reset car's old connection well after its new one has linked (100 cars at load 24:
    /// past 200 linked from 127.0.0.1 with 100 sockets open), so the caps are ten times the car
    /// count. The soak measures memory and answers; the caps have their own tests.
    public static func arguments(forCars cars: Int) -> [String] {
        [
            "--max-pending-connections", "\(max(64, cars))",
            "--max-cars-per-address", "\(max(128, 10 * cars))", "--max-connections", "\(max(256, 10 * cars))",
        ]
    }

    /// Starts `executable serve` and waits (up to `timeout`) for its "listening on" line.
    public static func start(executable: String, extraArguments: [String] = [], timeout: Duration = .seconds(60)) async throws
        -> ServerChild
    {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("dashport-soak-\(UUID().uuidString)").path
        let logFile = directory + ".log"
        guard FileManager.default.createFile(atPath: logFile, contents: nil) else {
            throw Failure(description: "cannot create \(logFile)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--state-dir", directory, "--log-level", "warning"] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: logFile)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start \(executable): \(error)")
        }
        // A plain blocking read on its own thread until the line or end of file (a
        // readabilityHandler crashed libdispatch when the child was stopped at the end of an hour).
        let seen = SharedText()
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reader.availableData
                if data.isEmpty { return }
                let text = seen.value.withLock {
                    $0 += String(decoding: data, as: UTF8.self)
                    return $0
                }
                if text.contains("\n") { return }
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let text = seen.value.withLock { $0 }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("dashport: listening on ") }) {
                let addressText = String(line.dropFirst("dashport: listening on ".count))
                guard let address = try? ListenAddress.parse(addressText) else {
                    process.terminate()
                    throw Failure(description: "cannot parse the child's address '\(addressText)'")
                }
                return ServerChild(process: process, address: address, stateDirectory: directory, logFile: logFile)
            }
            if !process.isRunning {
                let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
                throw Failure(description: "dashport serve exited with \(process.terminationStatus): \(log.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw Failure(description: "dashport serve printed no address within \(timeout)")
    }

    private init(process: Process, address: ListenAddress, stateDirectory: String, logFile: String) {
        self.process = process
        self.pid = process.processIdentifier
        self.address = address
        self.stateDirectory = stateDirectory
        self.logFile = logFile
    }

    /// The child's log so far.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM (the orderly stop), then waits up to `grace` for it to exit, then SIGKILL.
    /// Returns the exit status, or nil when it had to be killed. Removes the state directory.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Int32? {
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        process.terminate()
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        while process.isRunning && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }
}

/// Text shared by reference between the reading thread and the starter.
private final class SharedText: Sendable {
    let value = Mutex<String>("")
}
