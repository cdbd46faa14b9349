import DashportEmulator
import DashportHTTP
import DashportHeadUnit
import DashportMessages
import FoundationEssentials

/// The POST routes: play, transport commands, settings, recording, reconnect.
extension WebRoutes {
    /// Every field any POST body may carry; each route reads the ones it needs.
    struct Body: Decodable {
        var id: String?
        var parent: String?
        var query: String?
        var command: String?
        var ms: Int64?
        var mode: String?
        var on: Bool?
        var volume: Double?
        var steps: Int32?
        var name: String?
        var index: UInt32?
        var rate: Double?
        var maxTabs: UInt32?
        var legacy: Bool?
        var maxDepth: UInt32?
        var artSize: UInt32?
        var night: Bool?
    }

    func post(_ request: HTTPRequest) async -> HTTPResponse {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: Data(request.body.isEmpty ? Array("{}".utf8) : request.body))
        } catch {
            return Self.error(400, "the body is not the JSON object expected: \(error)")
        }
        // A NUL would cut the text short in the protobuf-c message it becomes.
        if [body.id, body.parent, body.query, body.name].contains(where: { $0?.unicodeScalars.contains { $0.value < 32 } == true }) {
            return Self.error(400, "an id, query or name with a control character")
        }
        switch request.path {
        case "/api/settings":
            var settings = await car.settings
            if let value = body.maxTabs { settings.maxTabs = value == 0 ? nil : value }
            if let value = body.legacy { settings.legacy = value }
            if let value = body.maxDepth { settings.maxDepth = value == 0 ? nil : value }
            if let value = body.artSize { settings.artSize = value == 0 ? nil : min(value, 2048) }
            if let value = body.night { settings.night = value }
            await car.apply(settings)
            return Self.json(await car.settings.json)
        case "/api/reconnect":
            await car.reconnectNow(reason: "asked from the page")
            return Self.json(.object(["reconnecting": .bool(true)]))
        case "/api/record":
            return await record(on: body.on ?? false)
        default:
            break
        }
        let kind: MediaChannelRequestKind
        if request.path == "/api/play" {
            if let id = body.id, !id.isEmpty {
                kind = .playFromMediaId(id, parentId: body.parent)
            } else if let query = body.query {
                kind = .playFromSearch(query: query, focus: nil)
            } else {
                return Self.error(400, "play needs an id (or a query)")
            }
        } else {
            guard let command = Self.command(body) else {
                return Self.error(400, "unknown command \"\(body.command ?? "")\" or a value it needs is missing")
            }
            kind = .playbackCommand(command)
        }
        guard let session = await car.linkedSession else { return Self.notLinked }
        do {
            guard case .command(let result) = try await session.request(kind) else { return Self.error(502, "not a command answer") }
            return Self.json(.command(result))
        } catch {
            return Self.error(504, "\(error)")
        }
    }

    /// A transport command by the name the page sends (the DocC article lists them).
    static func command(_ body: Body) -> DashportMedia.PlaybackCommand.Command? {
        let empty = DashportMedia.Empty()
        switch body.command {
        case "play": return .play(empty)
        case "pause": return .pause(empty)
        case "stop": return .stop(empty)
        case "next": return .skipToNext(empty)
        case "previous": return .skipToPrevious(empty)
        case "seek": return body.ms.map { .seekToMs(max(0, $0)) }
        case "jumpForward": return .jumpForward(DashportMedia.Jump(ms: body.ms.map { UInt32(clamping: $0) }))
        case "jumpBack": return .jumpBack(DashportMedia.Jump(ms: body.ms.map { UInt32(clamping: $0) }))
        case "repeat":
            switch body.mode {
            case "off": return .setRepeatMode(.off)
            case "one": return .setRepeatMode(.one)
            case "all": return .setRepeatMode(.all)
            default: return nil
            }
        case "shuffle": return body.on.map { .setShuffle($0) }
        case "sleep":
            if body.mode == "endOfTrack" { return .setSleepTimer(DashportMedia.SleepTimer(until: .endOfTrack(empty))) }
            return body.ms.map { .setSleepTimer(DashportMedia.SleepTimer(until: .durationMs(max(0, $0)))) }
        case "cancelSleep": return .cancelSleepTimer(empty)
        case "volume": return body.volume.map { .setDeviceVolume(min(max($0, 0), 1)) }
        case "volumeStep": return body.steps.map { .adjustDeviceVolume($0) }
        case "mute": return body.on.map { .setDeviceMuted($0) }
        case "action": return body.name.map { .customAction(DashportMedia.CustomAction(name: $0, extras: [])) }
        case "queueItem": return body.index.map { .skipToQueueItem($0) }
        case "rate": return body.rate.map { .setRate($0) }
        default: return nil
        }
    }

    /// Starts a recording (the link is made again so the file holds the whole session) or ends it
    /// (bye-bye, the file written, a new link).
    private func record(on: Bool) async -> HTTPResponse {
        if on {
            guard !car.recorder.isRecording else { return Self.error(409, "already recording") }
            let stamp = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            let path = recordDirectory + "/dashport-web-\(stamp).jsonl"
            car.recorder.begin(path: path)
            await car.reconnectNow(reason: "recording from the start of a session")
            await car.broadcastRecording()
            return Self.json(car.recorder.json)
        }
        guard car.recorder.isRecording else { return Self.error(409, "not recording") }
        await car.endLinkForRecording()
        do {
            guard let written = try car.recorder.finish() else { return Self.error(409, "not recording") }
            await car.broadcastRecording()
            await car.reconnectNow(reason: "the recording was written")
            return Self.json(.object(["on": .bool(false), "path": .string(written.path), "messages": .int(Int64(written.messages))]))
        } catch {
            await car.reconnectNow(reason: "the recording could not be written")
            return Self.error(500, "cannot write the recording: \(error)")
        }
    }
}

extension WebCar {
    func broadcastRecording() {
        broadcast("recording", recorder.json)
    }

    /// Says bye-bye and waits for the end, so a recording ends the way a session ends.
    func endLinkForRecording() async {
        generation += 1
        guard let old = session else { return }
        session = nil
        hello = nil
        tabs = nil
        await old.client.byeBye()
        if await old.client.closed(within: .seconds(3)) == nil { await old.client.close() }
    }
}
