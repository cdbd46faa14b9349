public import DashportHeadUnit

/// How long test cars and test servers give the handshake: 120 s instead of a real car's 10 s.
/// Swift Testing starts every test at once, and on a loaded 2-core machine a car's first turns
/// can come more than 10 s late, which would fail a test on speed alone. Tests of the deadline
/// itself set their own.
public let patientHandshakeDeadline: Duration = .seconds(120)

extension HeadUnitConfiguration {
    /// The same car with ``patientHandshakeDeadline``, for the whole setup, for the phone's
    /// first answer and for its answer to the car's bye-bye (a real car waits 1 s: at load 26 the
    /// answer came later, and the car closed as unanswered).
    public var patient: HeadUnitConfiguration {
        var configuration = self
        configuration.handshakeDeadline = patientHandshakeDeadline
        configuration.firstAnswerDeadline = patientHandshakeDeadline
        configuration.byeByeGrace = patientHandshakeDeadline
        return configuration
    }
}
