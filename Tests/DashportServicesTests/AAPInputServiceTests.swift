import DashportMessages
import DashportSession
import Testing
import DashportLog
@testable import DashportServices

@Suite("AAP input: key binding and media keys")
struct AAPInputServiceTests {
    /// The KEY_BINDING_REQUEST the service sends on start, decoded.
    func bindingRequest(carKeyCodes: [Int32], channel: UInt8 = 8) throws -> AAP.KeyBindingRequest {
        let actions = AAPInputService(channel: channel, car: "car-1", carKeyCodes: carKeyCodes).start()
        #expect(actions.count == 1)
        let message = try #require(actions.first?.outgoing)
        #expect(message.channel == channel)
        #expect(message.messageId == keyBindingRequestId)
        return try AAP.KeyBindingRequest(serializedBytes: message.body)
    }

    /// A car listing some media keys (among others) is asked for exactly those, in a fixed order.
    @Test func requestsTheMediaKeysTheCarListed() throws {
        #expect(try bindingRequest(carKeyCodes: [3, 4, 88, 19, 85, 87, 65_536]).keycodes == [85, 87, 88])
        #expect(try bindingRequest(carKeyCodes: [127, 85, 85, 90, 126]).keycodes == [85, 90, 126, 127])
    }

    /// The request's bytes: field 1, packed.
    @Test func requestBytesArePacked() throws {
        let actions = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [85, 87]).start()
        #expect(actions.first?.outgoing?.body == [0x0A, 0x02, 85, 87])
    }

    /// A car listing no media keys (or none at all) is asked for the six standard ones anyway.
    @Test(arguments: [[Int32](), [3, 4, 19, 20, 21, 22, 23]])
    func requestsTheStandardKeysWhenNoneListed(carKeyCodes: [Int32]) throws {
        #expect(try bindingRequest(carKeyCodes: carKeyCodes).keycodes == [85, 86, 87, 88, 126, 127])
    }

    /// KEY_BINDING_RESPONSE is logged: success at info, a refusal (e.g. -18) as a warning, not fatal.
    @Test func bindingResponseIsLogged() throws {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [85])
        let ok = service.receive(
            messageId: keyBindingResponseId, body: AAP.KeyBindingResponse(status: .success).serializedBytes(), now: .zero)
        #expect(ok.compactMap(\.logEntry).map(\.level) == [.info])
        let refused = service.receive(
            messageId: keyBindingResponseId, body: AAP.KeyBindingResponse(status: .keycodeNotBound).serializedBytes(),
            now: .zero)
        let entry = try #require(refused.first?.logEntry)
        #expect(entry.level == .warning)
        #expect(entry.message.contains("-18"))
        #expect(
            service.receive(messageId: inputReportId, body: keyReport([key(87, down: true)]), now: .zero)
                .compactMap(\.command) == [.skipToNext])
    }

    /// Each media key's press becomes its command, from the car's key source.
    @Test(arguments: [
        (UInt32(85), SessionCommand.playPause), (86, .stop), (87, .skipToNext), (88, .skipToPrevious),
        (89, .jumpBack), (90, .jumpForward), (126, .play), (127, .pause),
    ])
    func mediaKeys(code: UInt32, command: SessionCommand) {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let actions = service.receive(messageId: inputReportId, body: keyReport([key(code, down: true)]), now: .zero)
        #expect(actions == [.command(command, .aapKey(car: "car-1"))])
    }

    /// Down acts, up does not: a press (down then up) is exactly one command.
    @Test func pressIsOneCommand() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [87])
        let down = service.receive(messageId: inputReportId, body: keyReport([key(87, down: true)]), now: ms(0))
        let up = service.receive(messageId: inputReportId, body: keyReport([key(87, down: false)]), now: ms(120))
        #expect(down.compactMap(\.command) == [.skipToNext])
        #expect(up.isEmpty)
        let upAlone = service.receive(messageId: inputReportId, body: keyReport([key(88, down: false)]), now: ms(200))
        #expect(upAlone.isEmpty)
    }

    /// A long press (down, repeats with and without the long-press flag, up) is one command.
    @Test func longPressIsOneCommand() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [87])
        let events: [(AAP.KeyEvent.Key, Int64)] = [
            (key(87, down: true), 0), (key(87, down: true), 500), (key(87, down: true), 550),
            (key(87, down: true, longpress: true), 1_000), (key(87, down: true, longpress: true), 2_600),
            (key(87, down: false), 3_000),
        ]
        var commands: [SessionCommand] = []
        for (key, at) in events {
            commands += service.receive(messageId: inputReportId, body: keyReport([key]), now: ms(at)).compactMap(\.command)
        }
        #expect(commands == [.skipToNext])
    }

    /// A press whose first report already says long press still acts once.
    @Test func longPressFlagOnTheFirstDownActs() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [85])
        let first = service.receive(messageId: inputReportId, body: keyReport([key(85, down: true, longpress: true)]), now: .zero)
        #expect(first.compactMap(\.command) == [.playPause])
    }

    /// A car that never sends key-ups gets one command per press when presses are over the
    /// repeat window apart; a second press after an up acts at once.
    @Test func pressesWithoutKeyUps() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [87])
        var commands: [SessionCommand] = []
        for at: Int64 in [0, 2_000, 4_000] {
            commands += service.receive(messageId: inputReportId, body: keyReport([key(87, down: true)]), now: ms(at))
                .compactMap(\.command)
        }
        #expect(commands == [.skipToNext, .skipToNext, .skipToNext])

        _ = service.receive(messageId: inputReportId, body: keyReport([key(87, down: false)]), now: ms(4_100))
        let quick = service.receive(messageId: inputReportId, body: keyReport([key(87, down: true)]), now: ms(4_200))
        #expect(quick.compactMap(\.command) == [.skipToNext])
    }

    /// Several keys in one report are handled one by one.
    @Test func severalKeysInOneReport() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let actions = service.receive(
            messageId: inputReportId, body: keyReport([key(127, down: true), key(88, down: true)]), now: .zero)
        #expect(actions.compactMap(\.command) == [.pause, .skipToPrevious])
    }

    /// Keys that are not media keys are ignored (a debug line, no command).
    @Test(arguments: [UInt32(66), 4, 65_536, UInt32.max])
    func unknownKeysAreIgnored(code: UInt32) {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let actions = service.receive(messageId: inputReportId, body: keyReport([key(code, down: true)]), now: .zero)
        #expect(actions.compactMap(\.command).isEmpty)
        #expect(actions.compactMap(\.logEntry).map(\.level) == [.debug])
    }

    /// A report with only a touch event produces nothing.
    @Test func touchOnlyReportIsIgnored() {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let touch = AAP.InputReport(
            timestamp: 5, touchEvent: AAP.TouchEvent(pointerData: [.init(x: 1, y: 2, pointerId: 0)], action: .down))
        #expect(service.receive(messageId: inputReportId, body: touch.serializedBytes(), now: .zero).isEmpty)
    }

    /// Malformed bodies give an error line and no command; the service keeps working.
    @Test(arguments: [
        (inputReportId, [UInt8]([0x22, 0x05, 0x01])), (inputReportId, [0x08]), (inputReportId, [0xFF, 0xFF, 0xFF]),
        (keyBindingResponseId, [0x08, 0x80]),
    ])
    func malformedBodies(messageId: UInt16, body: [UInt8]) throws {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let actions = service.receive(messageId: messageId, body: body, now: .zero)
        let entry = try #require(actions.first?.logEntry)
        #expect(actions.count == 1)
        #expect(entry.level == .error)
        #expect(entry.messageId == messageId)
        #expect(
            service.receive(messageId: inputReportId, body: keyReport([key(126, down: true)]), now: .zero)
                .compactMap(\.command) == [.play])
    }

    /// A message id the car should not send on this channel is logged and ignored.
    @Test func unexpectedMessageId() throws {
        var service = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [])
        let actions = service.receive(messageId: keyBindingRequestId, body: [], now: .zero)
        #expect(try #require(actions.first?.logEntry).level == .warning)
        #expect(actions.compactMap(\.command).isEmpty)
    }
}

@Suite("AAP playback status: MEDIA_PLAYBACK_INPUT")
struct AAPPlaybackInputTests {
    /// Cluster actions map to commands: left previous, right next, enter play/pause; the rest nothing.
    @Test(arguments: [
        (Int32(0), SessionCommand?.none), (1, nil), (2, nil), (3, .skipToPrevious), (4, .skipToNext),
        (5, .playPause), (6, nil), (7, nil), (42, nil),
    ])
    func mapping(action: Int32, command: SessionCommand?) {
        var service = AAPPlaybackStatusService(channel: 13, car: "car-9")
        let body = AAP.MediaPlaybackInput(action: .init(rawValue: action)).serializedBytes()
        let actions = service.receive(messageId: playbackInputId, body: body, now: .zero)
        if let command {
            #expect(actions == [.command(command, .aapPlaybackInput(car: "car-9"))])
        } else {
            #expect(!actions.contains { $0.isCommand })
            #expect(actions.compactMap(\.logEntry).map(\.level) == [.debug])
        }
    }

    /// An empty body (field 1 omitted) reads as action 0: nothing to do.
    @Test func emptyBodyIsNoCommand() {
        var service = AAPPlaybackStatusService(channel: 13, car: "car-9")
        #expect(!service.receive(messageId: playbackInputId, body: [], now: .zero).contains { $0.isCommand })
    }

    /// A malformed body is an error line, never a command or a crash.
    @Test func malformedBody() throws {
        var service = AAPPlaybackStatusService(channel: 13, car: "car-9")
        let actions = service.receive(messageId: playbackInputId, body: [0x08], now: .zero)
        #expect(actions.count == 1)
        #expect(try #require(actions.first?.logEntry).level == .error)
    }

    /// Our own message ids coming back from the car are logged and ignored.
    @Test(arguments: [statusId, metadataId, 0x0001])
    func unexpectedMessageIds(messageId: UInt16) throws {
        var service = AAPPlaybackStatusService(channel: 13, car: "car-9")
        let actions = service.receive(messageId: messageId, body: [], now: .zero)
        #expect(try #require(actions.first?.logEntry).level == .warning)
        #expect(actions.count == 1)
    }
}
