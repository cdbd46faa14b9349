import DashportEmulator
import DashportHeadUnit
import Foundation

/// Where `dashport-hu` sends the PCM its media audio sink hears: `--save-audio FILE` (a WAV,
/// published when the session ends) and `--play-audio` (piped to `aplay` or `pacat`). One task
/// drains an ordered queue filled by ``sink``, so the link never waits for a disk or a sound card.
struct AudioOutput: Sendable {
    /// Give this to ``HeadUnitClient`` as its `audioOutput`.
    let sink: @Sendable ([Int16]) -> Void
    private let queue: AsyncStream<[Int16]>.Continuation
    private let worker: Task<Void, Never>

    /// Nil when neither output is asked for. Fails (a usage-level message) when the WAV file
    /// cannot be created.
    static func start(saveTo path: String?, play: Bool) throws(UsageError) -> AudioOutput? {
        guard path != nil || play else { return nil }
        var writer: WAVFileWriter?
        if let path {
            do {
                writer = try WAVFileWriter(path: path)
            } catch {
                throw UsageError("--save-audio: \(error)")
            }
        }
        let player = play ? Player.launch() : nil
        let (stream, queue) = AsyncStream.makeStream(of: [Int16].self)
        let worker = Task { [writer] in
            var writer = writer
            for await samples in stream {
                do {
                    try writer?.append(samples)
                } catch {
                    Console.err("dashport-hu: --save-audio: \(error); no longer saving")
                    writer = nil
                }
                player?.write(WAVHeader.littleEndian(samples))
            }
            await player?.close()
            guard let writer else { return }
            do {
                try writer.finish()
                Console.err("dashport-hu: saved \(writer.dataBytes) bytes of audio to \(writer.path)")
            } catch {
                Console.err("dashport-hu: --save-audio: \(error)")
            }
        }
        return AudioOutput(sink: { queue.yield($0) }, queue: queue, worker: worker)
    }

    /// Ends the outputs once everything queued is written: the WAV is published, the player closed.
    func finish() async {
        queue.finish()
        await worker.value
    }
}

/// `aplay -q -f S16_LE -r 48000 -c 2` (alsa-utils) or `pacat` (PulseAudio) reading PCM on its
/// standard input. A missing program or a sound device that does not open is said once, on one
/// line, and playing stops; the session goes on. The pipe writes (which block while the player's
/// buffer is full) and the final wait for the process run on a serial dispatch queue of their
/// own, never on a thread of Swift's cooperative pool.
final class Player: @unchecked Sendable {
    // @unchecked: the mutable state (`failed`) and the pipe are touched only on `queue`.
    private let queue = DispatchQueue(label: "dashport-hu.player")
    private let process: Process
    private let input: FileHandle
    private let errors: Pipe
    private let name: String
    private var failed = false

    private init(process: Process, input: FileHandle, errors: Pipe, name: String) {
        self.process = process
        self.input = input
        self.errors = errors
        self.name = name
    }

    static let candidates: [(name: String, arguments: [String])] = [
        ("aplay", ["-q", "-f", "S16_LE", "-r", "48000", "-c", "2"]),
        ("pacat", ["--raw", "--format=s16le", "--rate=48000", "--channels=2"]),
    ]

    static func launch() -> Player? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init)
        for candidate in candidates {
            guard let executable = directories.map({ $0 + "/" + candidate.name }).first(where: FileManager.default.isExecutableFile)
            else { continue }
            signal(SIGPIPE, SIG_IGN)  // a player that quits must not kill the emulator
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = candidate.arguments
            let input = Pipe()
            let errors = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            do {
                try process.run()
            } catch {
                Console.err("dashport-hu: --play-audio: cannot start \(executable): \(error); not playing")
                return nil
            }
            return Player(process: process, input: input.fileHandleForWriting, errors: errors, name: candidate.name)
        }
        Console.err("dashport-hu: --play-audio: neither aplay (alsa-utils) nor pacat is installed; not playing")
        return nil
    }

    /// Queues PCM bytes for the player.
    func write(_ bytes: [UInt8]) {
        queue.async { self.deliver(bytes) }
    }

    /// Closes the player's input once everything queued is written, and waits for it to exit.
    func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                self.finish()
                done.resume()
            }
        }
    }

    private func deliver(_ bytes: [UInt8]) {
        guard !failed else { return }
        do {
            try input.write(contentsOf: bytes)
        } catch {
            failed = true
            try? input.close()
            process.waitUntilExit()
            let said =
                String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map { ": " + $0 } ?? ""
            Console.err("dashport-hu: --play-audio: \(name) stopped (exit \(process.terminationStatus))\(said); not playing")
        }
    }

    private func finish() {
        guard !failed else { return }
        failed = true
        try? input.close()
        process.waitUntilExit()
    }
}
