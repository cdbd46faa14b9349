import DashportHeadUnit

extension HeadUnitConfiguration {
    /// The same car with a 120 s handshake deadline instead of a real car's 10 s: Swift Testing
    /// starts every test at once, and on a loaded 2-core machine a car's first turns can come
    /// more than 10 s late, which would fail a test on speed alone (the servers these tests start
    /// give the handshake 120 s too).
    var patient: HeadUnitConfiguration {
        var configuration = self
        configuration.handshakeDeadline = .seconds(120)
        return configuration
    }
}
