import DashportClock

/// Audio comes out of another device (a speaker, a cast target): while the handler declares it,
/// the cars' volume and mute keys and their volume commands drive that device's volume instead of
/// the car's own amplifier.
///
/// Sticky but never persisted: after a restart playback is local until the handler declares again.
public struct RemotePlayback: Sendable, Hashable, Codable {
    /// How the device's volume can be driven.
    public enum Control: String, Sendable, Hashable, Codable, CaseIterable {
        /// Any level may be set; a key press steps from the last published level.
        case absolute
        /// Only up/down steps and mute; the device decides the level.
        case relative
        /// Shown, not writable: every volume command is rejected.
        case fixed
    }

    /// The last level the device published, 0…1.
    public var volume: Double
    public var muted: Bool
    /// How many steps 0…1 is divided into (one key press is one step). Default 20; at least 1.
    public var steps: Int
    public var control: Control

    public init(volume: Double, muted: Bool = false, steps: Int = 20, control: Control) {
        self.volume = volume
        self.muted = muted
        self.steps = steps
        self.control = control
    }

    /// The level one press of `steps` (negative: down) moves to from ``volume``, clamped to 0…1
    /// and rounded to the nearest step.
    public func stepped(by steps: Int) -> Double {
        let count = Double(max(1, self.steps))
        let current = (volume * count).rounded()
        return min(1, max(0, (current + Double(steps)) / count))
    }
}

/// The sleep timer as cars see it: what it waits for and when it fires.
public struct SleepTimerStatus: Sendable, Hashable {
    public var timer: SleepTimer
    /// When it fires, on the session clock; nil while an end-of-track timer waits for the item to
    /// play (paused, or a length that is not known).
    public var deadline: ClockInstant?

    public init(timer: SleepTimer, deadline: ClockInstant?) {
        self.timer = timer
        self.deadline = deadline
    }
}
