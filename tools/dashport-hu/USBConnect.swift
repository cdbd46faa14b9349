import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTLS
import DashportUSB
import DashportUSBHost

/// `--usb [VID:PID]`: the car's side of USB. Finds the phone (or waits for it), performs the
/// Android Open Accessory switch, opens the accessory's bulk pipe and starts the link on it.
enum USBConnect {
    /// The device to switch, from the positional argument (none = the first non-hub device).
    static func match(_ positionals: [String]) throws(UsageError) -> USBDeviceMatch? {
        guard let text = positionals.first else { return nil }
        guard positionals.count == 1 else { throw UsageError("unexpected arguments: \(positionals.dropFirst().joined(separator: " "))") }
        guard let match = USBDeviceMatch(text) else { throw UsageError("--usb: \"\(text)\" is not VID:PID in hex, e.g. 18d1:4ee1") }
        return match
    }

    /// The switch's options: `--timeout` is how long it waits for the phone (and for it to come
    /// back as the accessory), exactly, not "at least 10 s".
    static func options(match: USBDeviceMatch?, timeout: Duration) -> AccessoryConnector.Options {
        var options = AccessoryConnector.Options(match: match)
        options.waitForDevice = timeout
        return options
    }

    static func client(
        match: USBDeviceMatch?, configuration: HeadUnitConfiguration, identity: TLSIdentity? = nil, timeout: Duration,
        transcript: Transcript, logger: Logger, audioOutput: (@Sendable ([Int16]) -> Void)? = nil,
        tap: (@Sendable (TappedMessage) -> Void)? = nil, bus: any USBBus = LibUSBBus()
    ) async throws -> HeadUnitClient {
        // The client identity first: RSA key generation can take seconds on a slow machine, and the
        // phone's handshake deadline runs from the moment the accessory is configured.
        let context = try HeadUnitClient.makeContext(identity: identity)
        let connector = AccessoryConnector(bus: bus, options: options(match: match, timeout: timeout), logger: logger.labelled("usb"))
        await transcript.print("looking for \(match.map { "USB device \($0)" } ?? "a USB phone") to switch to accessory mode")
        let connected = try await connector.connectAsync()
        if connected.switched {
            await transcript.print(
                "usb: switched to accessory mode (AOA \(connected.protocolVersion ?? 0)); accessory is \(connected.device)")
        } else {
            await transcript.print("usb: \(connected.device) already is an accessory")
        }
        let stream = USBHostStream.open(connected.pipe, peer: "usb \(connected.device)", logger: logger.labelled("usb"))
        return try await HeadUnitClient.start(
            on: stream, configuration: configuration, context: context, logger: logger, tap: tap, audioOutput: audioOutput)
    }
}
