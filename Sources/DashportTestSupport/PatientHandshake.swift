public import DashportHeadUnit

/// How long test cars and test servers give the handshake: 120 s instead of a real car's 10 s.
/// Swift Testing starts every test at once, and on a loaded 2-core machine a car's first turns
/// can come more than 10 s late, which would fail a test on speed alone. Tests of the deadline
/// itself set their own.
public let patientHandshakeDeadline: Duration = .seconds(120)

extension HeadUnitConfiguration {
    /// The same car with ``patientHandshakeDeadline``, for the whole setup and for the phone's
    /// first answer.
    public var patient: HeadUnitConfiguration {
        var configuration = self
        configuration.handshakeDeadline = patientHandshakeDeadline
        configuration.firstAnswerDeadline = patientHandshakeDeadline
        return configuration
    }
}
