import Testing

@testable import DashportServer

/// One address closed for bad input over and over gets `perAddress` warnings a window, then a
/// count (issue 10: the flooder reconnected 3,311 times in 25 s, a warning each).
@Suite struct RepeatedCloseLogTests {
    let limits = RepeatedCloseLog.Limits(perAddress: 3, window: .seconds(60), maxAddresses: 2)

    @Test func anAddressGetsItsShareOfWarningsThenIsCounted() {
        let log = RepeatedCloseLog(limits: limits)
        #expect(log.closing("10.0.0.1", now: .seconds(1)) == .init(log: true))
        #expect(log.closing("10.0.0.1", now: .seconds(2)) == .init(log: true))
        #expect(!log.isQuiet("10.0.0.1", now: .seconds(2)))
        #expect(log.closing("10.0.0.1", now: .seconds(3)) == .init(log: true, lastInWindow: true))
        #expect(log.isQuiet("10.0.0.1", now: .seconds(3)))
        #expect(log.closing("10.0.0.1", now: .seconds(4)) == .init(log: false))
        #expect(log.closing("10.0.0.1", now: .seconds(60)) == .init(log: false))
        // Another address is not affected.
        #expect(!log.isQuiet("10.0.0.2", now: .seconds(60)))
        #expect(log.closing("10.0.0.2", now: .seconds(60)) == .init(log: true))
    }

    /// The window counts from the address's first close: after it, the next close is logged with
    /// the count of the ones suppressed, and the address is no longer quiet.
    @Test func theCountIsReportedWithTheFirstCloseAfterTheWindow() {
        let log = RepeatedCloseLog(limits: limits)
        for second in 0..<5 { _ = log.closing("10.0.0.1", now: .seconds(second)) }
        #expect(log.isQuiet("10.0.0.1", now: .seconds(59)))
        #expect(!log.isQuiet("10.0.0.1", now: .seconds(60)))
        #expect(log.closing("10.0.0.1", now: .seconds(61)) == .init(log: true, suppressed: [("10.0.0.1", 2)]))
    }

    /// An address that stopped after its share is reported by the next close of any address once
    /// its window has passed, and reported once.
    @Test func anAddressThatWentQuietIsReportedByTheNextCloseOfAnother() {
        let log = RepeatedCloseLog(limits: RepeatedCloseLog.Limits(perAddress: 1, window: .seconds(60), maxAddresses: 8))
        _ = log.closing("10.0.0.1", now: .seconds(0))
        _ = log.closing("10.0.0.1", now: .seconds(1))
        _ = log.closing("10.0.0.1", now: .seconds(2))
        #expect(log.closing("10.0.0.2", now: .seconds(30)) == .init(log: true, lastInWindow: true))
        #expect(log.closing("10.0.0.3", now: .seconds(90)) == .init(log: true, lastInWindow: true, suppressed: [("10.0.0.1", 2)]))
        #expect(log.closing("10.0.0.3", now: .seconds(91)).suppressed.isEmpty)
    }

    /// Memory is bounded: past `maxAddresses` tracked addresses, closes are logged as before.
    @Test func pastTheTrackedAddressesClosesAreLoggedAsBefore() {
        let log = RepeatedCloseLog(limits: limits)
        _ = log.closing("10.0.0.1", now: .zero)
        _ = log.closing("10.0.0.2", now: .zero)
        for _ in 0..<5 { #expect(log.closing("10.0.0.3", now: .seconds(1)) == .init(log: true)) }
        #expect(!log.isQuiet("10.0.0.3", now: .seconds(1)))
    }
}
