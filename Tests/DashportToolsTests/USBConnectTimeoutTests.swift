// Tests/DashportToolsTests/USBConnectTimeoutTests.swift - `dashport-hu connect --usb --timeout S`
// waits for the phone exactly S, not "at least 10 s" (issue 21).

import DashportEmulator
import DashportHeadUnit
import DashportLog
import DashportUSBHost
import Testing
@testable import dashport_hu

/// A bus with nothing on it: the switch can only wait for a phone and give up.
private struct EmptyBus: USBBus {
    func scan() throws(USBHostError) -> [USBDeviceInfo] { [] }
    func open(_ device: USBDeviceInfo) throws(USBHostError) -> any USBDeviceHandle { throw .notFound("nothing to open") }
}

@Suite struct USBConnectTimeoutTests {
    @Test func theSwitchWaitsForThePhoneAsLongAsTheTimeoutSays() async throws {
        #expect(USBConnect.options(match: nil, timeout: .seconds(3)).waitForDevice == .seconds(3))
        do {
            _ = try await USBConnect.client(
                match: nil, configuration: HeadUnitConfiguration(), timeout: .milliseconds(300), transcript: Transcript { _ in },
                logger: .silent, bus: EmptyBus())
            Issue.record("connected to an empty bus")
        } catch {
            // The message names the wait it had: the --timeout given, not 10 seconds.
            #expect("\(error)".contains("timed out after 0.3 seconds waiting for a phone"), "\(error)")
        }
    }
}
