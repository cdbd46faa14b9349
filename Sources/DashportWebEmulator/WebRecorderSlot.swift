public import DashportLink
import DashportRecording
import Synchronization

/// Where the link's tap goes: nowhere, or the recorder of a recording started from the page.
/// Every link is connected with ``take(_:)`` as its tap, so a recording can start at a reconnect
/// and hold the whole session from its version exchange, as `dashport-hu record` writes it.
public final class WebRecorderSlot: Sendable {
    private let state = Mutex<(recorder: SessionRecorder, car: Int, path: String)?>(nil)
    private let lastPath = Mutex<String?>(nil)

    public init() {}

    public var isRecording: Bool { state.withLock { $0 != nil } }

    /// The tap of every link.
    public func take(_ message: TappedMessage) {
        guard let slot = state.withLock({ $0 }) else { return }
        slot.recorder.record(message, car: slot.car)
    }

    /// Starts recording into `path` (written at ``finish()``).
    func begin(path: String) {
        let recorder = SessionRecorder(side: .car, description: "recorded with dashport-hu web")
        state.withLock { $0 = (recorder, recorder.addCar(), path) }
    }

    /// Stops recording and writes the file; returns its path and the messages in it.
    func finish() throws -> (path: String, messages: Int)? {
        guard
            let slot = state.withLock({ state in
                defer { state = nil }
                return state
            })
        else { return nil }
        let recording = slot.recorder.recording
        try SessionRecording.write(recording, to: slot.path)
        lastPath.withLock { $0 = slot.path }
        return (slot.path, recording.entries.count)
    }

    var json: WebJSON {
        let current = state.withLock { $0?.path }
        return .object(["on": .bool(current != nil), "path": .opt(current ?? lastPath.withLock { $0 })])
    }
}
