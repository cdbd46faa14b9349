import FoundationEssentials
import DashportFiles
import DashportLog
import DashportRecording
import Synchronization

/// `dashport serve --record-dir DIR`: one session recording per car connection, written when the
/// car leaves, atomically, as `DIR/<UTC time>-<n>.jsonl` (mode 0600: it holds what the car asked for).
enum SessionFiles {
    private static let counter = Atomic<Int>(0)

    /// Creates the directory (0700) when recording is on and refuses one that another user owns
    /// or can write to (they could read the cars' sessions or swap a link in where a recording is
    /// written); a directory that cannot be used is refused at start, not discovered at the first car.
    static func prepare(_ directory: String?) throws(ConfigurationError) -> String? {
        guard let directory else { return nil }
        do {
            if Files.status(directory) == nil {
                try Files.makeParents(of: directory)
                try Files.makeDirectory(directory)
            }
            try Files.checkPrivateDirectory(directory, purpose: "record directory")
        } catch {
            throw ConfigurationError("--record-dir \(directory): \(error.causeText)")
        }
        return directory
    }

    static func save(_ recorder: SessionRecorder, in directory: String, logger: Logger) {
        let recording = recorder.recording
        guard !recording.entries.isEmpty else { return }
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let stamp = Date.ISO8601FormatStyle().format(Date()).replacing(":", with: "")
        let path = "\(directory)/\(stamp)-\(number).jsonl"
        do {
            // Created 0600 from the start (O_CREAT|O_EXCL|O_NOFOLLOW, mode at open), never chmod-ed later.
            try SessionRecording.write(recording, to: path)
            logger.info("session recorded", ["file": path, "messages": "\(recording.entries.count)"])
        } catch {
            logger.warning("could not write the session recording \(path): \(error)")
        }
    }
}
