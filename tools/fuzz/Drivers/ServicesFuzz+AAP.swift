// FuzzServices: the AAP input and media playback status services. Shared with the services tests.
import DashportMessages
import DashportServices
import DashportSession

extension ServicesFuzz {
    static let inputReport = UInt16(AAP.InputMessageId.inputReport.rawValue)
    static let keyBindingRequest = UInt16(AAP.InputMessageId.keyBindingRequest.rawValue)
    static let keyBindingResponse = UInt16(AAP.InputMessageId.keyBindingResponse.rawValue)
    static let statusId = UInt16(AAP.MediaPlaybackStatusMessageId.status.rawValue)
    static let playbackInputId = UInt16(AAP.MediaPlaybackStatusMessageId.input.rawValue)
    static let metadataId = UInt16(AAP.MediaPlaybackStatusMessageId.metadata.rawValue)

    // MARK: - Input

    /// Config: channel, the car's key codes. Ops: 0 INPUT_REPORT from keys, 1 KEY_BINDING_RESPONSE,
    /// 2 any id and body, 3 the clock moves, 4 a command's result, 5 `start` again.
    /// Checks: KEY_BINDING_REQUEST asks for media keys only (the listed ones, or the fallback); a
    /// command comes only from a key-down of its media key in a report that decodes, at most one
    /// per key-down.
    static func runInput(_ r: inout Reader) {
        let channel = r.byte()
        let listed = (0..<Int(r.byte() % 10)).map { _ in r.pick([85, 86, 87, 88, 89, 90, 126, 127, 3, 19, 65537, -1] as [Int32]) }
        var service = AAPInputService(channel: channel, car: car, carKeyCodes: listed)
        var now = Duration.seconds(1000)
        check(service, service.start(), report: nil)
        while !r.isAtEnd {
            let op = r.byte()
            switch op % 6 {
            case 0:
                let keys = (0..<Int(r.byte() % 5)).map { _ in
                    AAP.KeyEvent.Key(
                        keycode: r.pick([85, 87, 88, 126, 127, 90, 4, 0, 65536, .max] as [UInt32]),
                        down: r.bool(), metastate: 0, longpress: r.maybe { $0.bool() })
                }
                let body = AAP.InputReport(timestamp: UInt64(r.u16()), keyEvent: AAP.KeyEvent(keys: keys)).serializedBytes()
                check(service, service.receive(messageId: inputReport, body: body, now: now), report: body)
            case 1:
                let body = AAP.KeyBindingResponse(status: AAP.MessageStatus(rawValue: Int32(Int8(bitPattern: r.byte())))).serializedBytes()
                check(service, service.receive(messageId: keyBindingResponse, body: body, now: now), report: nil)
            case 2:
                let id = r.pick([inputReport, keyBindingResponse, keyBindingRequest]) { $0.u16() }
                let body = r.take(r.length())
                check(service, service.receive(messageId: id, body: body, now: now), report: id == inputReport ? body : nil)
            case 3:
                now += .milliseconds(Int64(r.u16()))
            case 4:
                check(service, service.commandFinished(command(&r), result: commandResult(&r)), report: nil)
            default:
                check(service, service.start(), report: nil)
            }
        }
    }

    private static func check(_ service: AAPInputService, _ actions: [AAPInputService.Action], report: [UInt8]?) {
        let decoded = report.flatMap { try? AAP.InputReport(serializedBytes: $0) }
        var downs = (decoded?.keyEvent?.keys ?? []).filter(\.down).compactMap { Int32(exactly: $0.keycode) }
        for action in actions {
            switch action {
            case .send(let message):
                checkSize(message, channel: service.channel)
                fuzzCheck(message.messageId == keyBindingRequest, "input sent message \(message.messageId)")
                guard let request = decode(AAP.KeyBindingRequest.self, message.body) else { continue }
                fuzzCheck(
                    request.keycodes == service.requestedKeyCodes && !request.keycodes.isEmpty
                        && request.keycodes.allSatisfy { SessionCommand.fromAAPKeyCode($0) != nil },
                    "KEY_BINDING_REQUEST asks for \(request.keycodes)")
            case .command(let command, let source):
                fuzzCheck(source == .aapKey(car: car), "a key command from \(source)")
                let index = downs.firstIndex { SessionCommand.fromAAPKeyCode($0) == command }
                fuzzCheck(index != nil, "\(command) without a key-down for it")
                if let index { downs.remove(at: index) }
            case .log:
                break
            }
        }
    }

    // MARK: - Media playback status

    /// Config: caps and budgets from edge values. Ops: 0 MEDIA_PLAYBACK_INPUT, 1 any id and body,
    /// 2 the clock moves, 3 a playback state, 4 a media item, 5 a cover answer (253: not cached), 6 `start` with a
    /// snapshot, 7 another session update or a command result.
    /// Checks: nothing before `start`; status and metadata decode and describe the current item
    /// (song, artist, position within its duration); album art is never empty or over its cap;
    /// covers are asked for the current item's URI, in a box of at least 1 × 1.
    @discardableResult
    static func runStatus(_ r: inout Reader) -> StatusRun {
        let mediaSource: String = r.pick(["Dashport", ""])
        let (width, height): (Int, Int) = (r.pick([256, 0, -5]), r.pick([256, 1, -1]))
        _ = r.pick([300, 0, 5000])  // once the cover budget (gone: the order follows events); kept so seeds keep their meaning
        let configuration = AAPPlaybackStatusService.Configuration(
            mediaSource: mediaSource, artworkWidth: width, artworkHeight: height,
            statusInterval: .milliseconds(r.pick([1000, 0, 250])),
            maxArtworkBytes: r.pick([512 * 1024, 0, 64]), sessionClockOrigin: r.pick([.zero, .seconds(990), .seconds(-5)]))
        var status = StatusRun(service: AAPPlaybackStatusService(channel: r.byte(), car: car, configuration: configuration))
        while !r.isAtEnd {
            let op = r.byte()
            switch op % 8 {
            case 0:
                let input = AAP.MediaPlaybackInput(action: AAP.InstrumentClusterInput.Action(rawValue: Int32(Int8(bitPattern: r.byte()))))
                status.take(status.service.receive(messageId: playbackInputId, body: input.serializedBytes(), now: status.now))
            case 1:
                let id = r.pick([playbackInputId, statusId, metadataId]) { $0.u16() }
                status.take(status.service.receive(messageId: id, body: r.take(r.length()), now: status.now))
            case 2:
                status.advance(by: .milliseconds(Int64(r.u16())))
            case 3:
                status.take(status.service.sessionUpdated(.playbackState(playbackState(&r)), now: status.now))
            case 4:
                let item = r.maybe(mediaItem)
                status.item = item
                status.take(status.service.sessionUpdated(.mediaItem(MediaItemState(item: item)), now: status.now))
            case 5:
                let itemId = r.bool() ? status.lastFetchItemId ?? "" : r.string()
                if op == 253 {  // the one op byte of this case that says "not cached" (seeds keep their meaning)
                    status.take(status.service.artworkNotCached(itemId: itemId))
                } else {
                    status.take(status.service.artworkArrived(itemId: itemId, bytes: imageBytes(&r)))
                }
                if itemId == status.lastFetchItemId { status.lookupPending = false }
            case 6:
                let snapshot = SessionSnapshot(
                    playbackState: playbackState(&r), mediaItem: MediaItemState(item: r.maybe(mediaItem)),
                    queue: .empty)
                status.item = snapshot.mediaItem.item
                status.started = true
                status.take(status.service.start(snapshot: snapshot, now: status.now))
            default:
                if r.bool() {
                    var update = sessionUpdate(&r)
                    if case .mediaItem = update { update = .sleepTimerFired }  // item changes go through op 4
                    status.take(status.service.sessionUpdated(update, now: status.now))
                } else {
                    status.take(status.service.commandFinished(command(&r), result: commandResult(&r)))
                }
            }
        }
        status.advance(by: .seconds(30))
        return status
    }

    /// The playback status service with what the driver knows: the current item, whether it started.
    struct StatusRun {
        var service: AAPPlaybackStatusService
        var now = Duration.seconds(1000)
        var item: MediaItem?
        var started = false
        var lastFetchItemId: String?
        /// A `.fetchArtwork` whose cache answer has not been given: the driver gives it before
        /// time moves on (a real driver answers from its cache at once), as "not cached".
        var lookupPending = false
        /// Statuses and metadata sent, and metadata that carried a cover.
        var statuses = 0, metadata = 0, covers = 0

        mutating func take(_ actions: [AAPPlaybackStatusService.Action]) {
            let configuration = service.configuration
            for action in actions {
                switch action {
                case .send(let message):
                    checkSize(message, channel: service.channel)
                    fuzzCheck(started, "status service sent before start")
                    if message.messageId == statusId {
                        guard let status = decode(AAP.MediaPlaybackStatus.self, message.body) else { continue }
                        let seconds = status.playbackSeconds ?? 0
                        fuzzCheck(status.mediaSource == configuration.mediaSource, "media source \(String(describing: status.mediaSource))")
                        fuzzCheck(
                            item?.durationMs.map { UInt64(seconds) * 1000 <= UInt64(max(0, $0)) } ?? true,
                            "position \(seconds) s past the duration \(String(describing: item?.durationMs)) ms")
                        fuzzCheck(!(status.repeat == true && status.repeatOne == true), "repeat and repeat-one together")
                        statuses += 1
                    } else if message.messageId == metadataId {
                        guard let metadata = decode(AAP.MediaPlaybackMetadata.self, message.body) else { continue }
                        let song = onWire(item?.title ?? "")
                        let artist = onWire(item?.artist ?? item?.albumArtist ?? item?.subtitle ?? "")
                        fuzzCheck(
                            metadata.song == song && metadata.artist == artist,
                            "metadata for another item than \(String(describing: item))")
                        // A live or unknown-length item is never a track of 0 s.
                        fuzzCheck(
                            item == nil || item?.hasScrubber == true || metadata.durationSeconds == nil,
                            "a duration for a live or unknown-length item")
                        if let art = metadata.albumArt {
                            fuzzCheck(!art.isEmpty && art.count <= configuration.maxArtworkBytes, "album art of \(art.count) bytes")
                            covers += 1
                        }
                        self.metadata += 1
                    } else {
                        fuzzViolation("status service sent message \(message.messageId)")
                    }
                case .fetchArtwork(let uri, let width, let height, let itemId):
                    fuzzCheck(started && width >= 1 && height >= 1, "a cover asked for before start, or in a \(width)×\(height) box")
                    fuzzCheck(uri == item?.artworkUri && !uri.isEmpty && itemId == item?.id, "a cover for another item: \(uri)")
                    lastFetchItemId = itemId
                    lookupPending = true
                case .command(_, let source):
                    fuzzCheck(source == .aapPlaybackInput(car: car), "a playback command from \(source)")
                case .log:
                    break
                }
            }
        }

        /// Moves the clock, ticking at every deadline on the way.
        mutating func advance(by interval: Duration) {
            if lookupPending, let itemId = lastFetchItemId {
                lookupPending = false
                take(service.artworkNotCached(itemId: itemId))
            }
            let target = now + interval
            var ticks = 0
            while let next = service.nextDeadline, next <= target {
                ticks += 1
                guard ticks < 100_000 else {
                    fuzzViolation("the status service's deadlines never end")
                    return
                }
                now = max(now, next)
                tick()
            }
            now = target
            tick()
        }

        private mutating func tick() {
            take(service.tick(now: now))
            if let next = service.nextDeadline { fuzzCheck(next > now, "nextDeadline \(next) is not after a tick at \(now)") }
        }
    }
}
