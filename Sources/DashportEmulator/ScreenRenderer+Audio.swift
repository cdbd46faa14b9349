public import DashportHeadUnit
import DashportMessages

extension ScreenRenderer {
    /// A media sink event as one line (after "audio: ").
    public static func audioEvent(_ event: MediaSinkEvent) -> String {
        switch event {
        case .setUp(let codec): "SETUP \(codec), answered CONFIG ready"
        case .started(let session, let index): "START session \(session), configuration \(index)"
        case .stopped(let session, let packets): "STOP session \(session) after \(packets) packets"
        case .underflow(let session, let late): "underflow in session \(session), data \(milliseconds(late)) late"
        case .violation(let text): "protocol violation: \(text)"
        case .focusRequested(let type, let answer):
            "focus request \(type.map { "\($0)" } ?? "(undecodable)"), answered \(answer.map { "\($0)" } ?? "nothing")"
        case .unsolicitedFocus(let state): "focus \(state) sent unasked"
        }
    }

    /// The audio part of the now-playing view.
    public static func audio(_ snapshot: AudioSnapshot) -> [String] {
        guard let channel = snapshot.channel else { return ["audio: no media audio sink listed"] }
        let stats = snapshot.stats
        let format = snapshot.format
        var lines = [
            "audio: channel \(channel), \(snapshot.codec.map { "\($0)" } ?? "no SETUP yet"), "
                + "\(format.samplingRate) Hz/\(format.numberOfBits) bit/\(format.numberOfChannels) ch, "
                + (stats.sessionId.map { "playing (session \($0))" } ?? "stopped")
                + ", focus \(snapshot.focus.map { "\($0)" } ?? "none")",
            "  \(stats.packets) packets, \(stats.bytes) bytes (\(milliseconds(stats.audioReceived))), "
                + "\(stats.underflows) underflows, lead \(snapshot.lead.map(milliseconds) ?? "-")",
        ]
        if stats.violations > 0 {
            lines.append(
                "  \(stats.violations) protocol violations (\(stats.dataOutsideSession) DATA outside START…STOP, "
                    + "\(stats.codecConfigs) CODEC_CONFIG, \(stats.malformed) malformed)")
        }
        lines.append("  tone: " + tone(snapshot))
        return lines
    }

    /// "220 Hz (the playing item's toneHz)", "440 Hz (not the playing item's toneHz 220)", "none …".
    static func tone(_ snapshot: AudioSnapshot) -> String {
        let expected = snapshot.expectedToneHz.map(frequencyText)
        guard let tone = snapshot.tone else {
            return "none (silence or no audio)" + (expected.map { "; the playing item's toneHz is \($0) Hz" } ?? "")
        }
        let heard = "\(frequencyText(tone.frequency)) Hz"
        guard let expected, let expectedHz = snapshot.expectedToneHz else { return heard }
        return tone.frequency == expectedHz
            ? heard + " (the playing item's toneHz)" : heard + " (not the playing item's toneHz \(expected) Hz)"
    }

    /// "42 ms", "-3 ms", "1234 ms".
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }

    static func frequencyText(_ frequency: Double) -> String {
        frequency == frequency.rounded() ? "\(Int(frequency))" : "\(frequency)"
    }
}
