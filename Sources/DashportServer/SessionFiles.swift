import FoundationEssentials
import DashportLog
import DashportRecording
import Synchronization

/// `dashport serve --record-dir DIR`: one session recording per car connection, written when the
/// car leaves, atomically, as `DIR/<UTC time>-<n>.jsonl` (mode 0600: it holds what the car asked for).
enum SessionFiles {
    private static let counter = Atomic<Int>(0)

    /// Creates the directory (0700) when recording is on; a directory that cannot be made is
    /// refused at start, not discovered at the first car.
    static func prepare(_ directory: String?) throws(ConfigurationError) -> String? {
        guard let directory else { return nil }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError("--record-dir \(directory): \(ConfigurationError.reason(error))")
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
            try SessionRecording.write(recording, to: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            logger.info("session recorded", ["file": path, "messages": "\(recording.entries.count)"])
        } catch {
            logger.warning("could not write the session recording \(path): \(error)")
        }
    }
}
