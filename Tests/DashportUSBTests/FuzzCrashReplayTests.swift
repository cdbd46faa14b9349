import DashportUSB
import DashportTestSupport
import Foundation
import Testing

/// Replays every input kept in `FuzzCrashes/` with the checks `tools/fuzz/FuzzUSB` traps on, and
/// shows the checks fire on actions that break them.
@Suite struct FuzzCrashReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            #expect(AccessoryControlChecks.violations(bytes) == [], "\(name)")
        }
    }

    @Test func theChecksFireOnBrokenActions() {
        let start = SetupPacket(requestType: 0x40, request: 53)
        let getProtocol = SetupPacket(requestType: 0xC0, request: 51, length: 1)
        let cases: [([ControlAction], FunctionFSEvent, GadgetMode, Bool, Bool)] = [
            ([.write([2, 0])], .setup(getProtocol), .switch, false, false),  // longer than wLength
            ([.acknowledge, .switchToAccessory], .setup(start), .direct, false, false),  // switch in direct mode
            ([.acknowledge, .switchToAccessory], .setup(start), .switch, true, false),  // switch twice
            ([.stall(isIn: true)], .setup(start), .switch, false, false),  // wrong direction
            ([], .setup(start), .switch, false, false),  // unanswered
            ([.linkUp], .disable, .switch, false, true),  // still enabled
            ([.linkUp], .bind, .switch, false, false),  // bind acted
        ]
        for (actions, event, mode, switching, enabled) in cases {
            #expect(
                !AccessoryControlChecks.check(actions, for: event, mode: mode, wasSwitching: switching, enabled: enabled).isEmpty,
                "\(actions) for \(event)")
        }
    }
}
