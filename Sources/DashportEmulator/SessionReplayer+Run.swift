import DashportClock
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportMessages
import DashportRecording
import DashportTLS
import DashportTransport

/// One replay in progress (see ``SessionReplayer`` for the matching rules).
struct ReplayRun {
    enum Arrival: Sendable {
        case message(car: Int, TappedMessage)
        case closed(car: Int, HeadUnitDisconnect)
        case timeout(Int)
    }

    struct StreamKey: Hashable {
        var car: Int
        var channel: UInt8
        var messageId: UInt16
    }

    let recording: SessionRecording
    let timeout: Duration
    let logger: Logger
    let connect: SessionReplayer.Connect
    let identity: TLSIdentity?
    let clock: any DashportClock
    var report = ReplayReport()
    var expected: [StreamKey: [Int]] = [:]
    /// The last body matched per stream, for repeatable messages.
    var lastMatched: [StreamKey: JSONValue] = [:]
    var unmatched: Set<Int> = []
    var clients: [Int: HeadUnitClient] = [:]
    var services: [Int: [UInt8: RecordedService]] = [:]
    var closedCars: [Int: HeadUnitDisconnect] = [:]
    let arrivals: AsyncStream<Arrival>
    let arrivalSink: AsyncStream<Arrival>.Continuation
    var iterator: AsyncStream<Arrival>.Iterator
    var timeoutToken = 0
    var aborted = false
    /// Audio (``AudioSummary``): the recorded summaries per car and sink channel, each car's audio
    /// sink channels, and the summary being filled from what the server sends now.
    var recordedAudio: [StreamKey: [Int]] = [:]
    var audioChannels: [Int: Set<UInt8>] = [:]
    var heardAudio: [StreamKey: AudioSummary.Tally] = [:]

    init(
        recording: SessionRecording, timeout: Duration, logger: Logger, identity: TLSIdentity?, clock: any DashportClock,
        connect: @escaping SessionReplayer.Connect
    ) {
        self.identity = identity
        self.clock = clock
        self.recording = recording
        self.timeout = timeout
        self.logger = logger
        self.connect = connect
        let (stream, sink) = AsyncStream.makeStream(of: Arrival.self, bufferingPolicy: .unbounded)
        arrivals = stream
        arrivalSink = sink
        iterator = stream.makeAsyncIterator()
        var lastRecorded: [StreamKey: JSONValue] = [:]
        for (index, entry) in recording.entries.enumerated()
        where entry.direction == .server && !recording.volatile.skip.contains(entry.name) {
            if entry.name == AudioSummary.name {
                recordedAudio[StreamKey(car: entry.car, channel: entry.channel, messageId: entry.messageId), default: []].append(index)
                continue
            }
            let key = StreamKey(car: entry.car, channel: entry.channel, messageId: entry.messageId)
            defer { lastRecorded[key] = entry.body }
            if recording.volatile.isRepeat(message: entry.name, entry.body, after: lastRecorded[key]) { continue }
            expected[key, default: []].append(index)
            unmatched.insert(index)
        }
    }

    mutating func play() async {
        for (index, entry) in recording.entries.enumerated() where entry.direction == .car {
            guard !recording.volatile.skip.contains(entry.name) else { continue }
            guard await waitFor(before: index) else { break }
            await act(entry)
            if aborted { break }
        }
        if !aborted { _ = await waitFor(before: recording.entries.count) }
        compareAudioTotals()
        for client in clients.values {
            await client.close()
        }
        arrivalSink.finish()
    }

    private mutating func fail(_ entry: RecordedMessage?, _ problem: String, _ differences: [FieldDifference] = []) {
        report.failures.append(ReplayFailure(step: entry?.title ?? "session", problem: problem, differences: differences))
    }

    /// Waits until every matched server message recorded before `index` has arrived. Each awaited
    /// message gets ``timeout`` from when the replay starts waiting for it; other arrivals (pings
    /// every second, pushes) do not restart the wait.
    private mutating func waitFor(before index: Int) async -> Bool {
        var awaited: Int?
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        while let first = unmatched.filter({ $0 < index }).min() {
            let entry = recording.entries[first]
            if let reason = closedCars[entry.car] {
                fail(entry, "car \(entry.car)'s connection closed (\(reason)) before this message arrived")
                unmatched.remove(first)
                continue
            }
            if awaited != first {
                awaited = first
                timer?.cancel()
                timeoutToken += 1
                let token = timeoutToken
                let limit = timeout
                timer = Task { [arrivalSink, clock] in
                    do { try await clock.sleep(for: limit) } catch { return }
                    arrivalSink.yield(.timeout(token))
                }
            }
            guard let arrival = await iterator.next() else { return false }
            switch arrival {
            case .timeout(let fired) where fired == timeoutToken:
                fail(entry, "not received within \(timeout) (waiting for this and \(unmatched.count - 1) later message(s))")
                aborted = true
                return false
            case .timeout:
                continue
            case .closed(let car, let reason):
                logger.debug("replay: car \(car) closed: \(reason)")
                closedCars[car] = reason
            case .message(let car, let message):
                take(message, car: car)
                if aborted { return false }
            }
        }
        return true
    }

    private mutating func take(_ message: TappedMessage, car: Int) {
        guard message.direction == .received else { return }
        if message.messageId == AudioSummary.dataId, audioChannels[car]?.contains(message.channel) == true {
            hearAudio(message, car: car)
            return
        }
        let service = message.channel == 0 ? RecordedService.control : services[car]?[message.channel] ?? .other
        let codec = MessageCatalog.codec(service: service, messageId: message.messageId)
        guard !recording.volatile.skip.contains(codec.name) else { return }
        let actual = codec.toJSON(message.body)
        let key = StreamKey(car: car, channel: message.channel, messageId: message.messageId)
        if recording.volatile.isRepeat(message: codec.name, actual, after: lastMatched[key]) { return }
        lastMatched[key] = actual
        guard let index = expected[key]?.first else {
            report.failures.append(
                ReplayFailure(
                    step: "car \(car), server → car \(service.rawValue) \(codec.name) (channel \(message.channel))",
                    problem: "unexpected: the recording has no more of these",
                    differences: [
                        FieldDifference(
                            path: "(body)", expected: "(none)",
                            actual: actual.description.count > 200
                                ? String(actual.description.prefix(197)) + "..." : actual.description)
                    ]))
            return
        }
        expected[key]?.removeFirst()
        unmatched.remove(index)
        report.compared += 1
        let entry = recording.entries[index]
        let differences = BodyComparison.differences(
            expected: entry.body, actual: actual, message: entry.name, volatile: recording.volatile)
        if !differences.isEmpty {
            fail(entry, "the server's \(entry.name) differs", differences)
            if SessionReplayer.sessionStateMessages.contains(entry.name) {
                // Said now, and the replay stops: what follows compares against a session the
                // recording never had, and would wait out the timeout for messages never sent.
                logger.warning(SessionReplayer.freshServerHint)
                report.hints.append(SessionReplayer.freshServerHint)
                aborted = true
            }
        }
    }

    private mutating func act(_ entry: RecordedMessage) async {
        let control = entry.channel == 0
        // The car's link sends auth, discovery, channel-open answers and the bye-bye answer itself.
        let automatic: Set<UInt16> = control ? [4, 6, 8, 16] : [8]
        switch entry.messageId {
        case 1 where control:
            await startCar(entry)
        case let id where automatic.contains(id):
            break
        case 15 where control:
            await clients[entry.car]?.byeBye()
        default:
            guard let client = clients[entry.car] else {
                fail(entry, "car \(entry.car) is not connected")
                return
            }
            guard !control else {
                fail(entry, "a car control message the replayer cannot send; skipped")
                return
            }
            do {
                try await client.send(channel: entry.channel, messageId: entry.messageId, body: try entry.bodyBytes())
            } catch {
                fail(entry, "could not send: \(error)")
            }
        }
    }

    private mutating func startCar(_ entry: RecordedMessage) async {
        var configuration = HeadUnitConfiguration()
        // The recording holds what the car said about audio (CONFIG, focus answers): the replayer
        // sends those itself, so the link's own media sink must not answer a second time.
        configuration.audio = nil
        // A replay waits for events, never races the clock: setup may be slow on a loaded machine.
        configuration.handshakeDeadline = max(configuration.handshakeDeadline, timeout)
        // The phone's BYEBYE_RESPONSE is a recorded message like any other: wait for it as long
        // (a real car's 1 s ran out in the whole test suite, and the replay named it missing).
        configuration.byeByeGrace = max(configuration.byeByeGrace, timeout)
        if let major = entry.body["major"], let minor = entry.body["minor"],
            let majorValue = try? UInt32(json: major, path: "major"), let minorValue = try? UInt32(json: minor, path: "minor")
        {
            configuration.version = AAPVersion(major: UInt16(truncatingIfNeeded: majorValue), minor: UInt16(truncatingIfNeeded: minorValue))
        }
        guard
            let discovery = recording.entries.first(where: {
                $0.car == entry.car && $0.direction == .car && $0.channel == 0 && $0.messageId == 6
            })
        else {
            fail(entry, "the recording has no SERVICE_DISCOVERY_RESPONSE for car \(entry.car)")
            aborted = true
            return
        }
        do {
            let body = try discovery.bodyBytes()
            let response = try AAP.ServiceDiscoveryResponse(serializedBytes: body)
            configuration.car = CarDescription.parse(response).0
            configuration.discoveryResponseBody = body
            audioChannels[entry.car] = Set(configuration.car.services.filter(\.isAudioSink).map(\.channel))
            var table: [UInt8: RecordedService] = [:]
            for listed in configuration.car.services { table[listed.channel] = RecordedService(listed.kind) }
            services[entry.car] = table
            let stream = try await connect(entry.car)
            let car = entry.car
            let sink = arrivalSink
            let client = try await HeadUnitClient.start(
                on: stream, configuration: configuration,
                context: try HeadUnitClient.makeContext(identity: try await HeadUnitClient.presentedIdentity(identity)), logger: logger,
                clock: clock, tap: { sink.yield(.message(car: car, $0)) })
            clients[car] = client
            Task {
                for await event in client.events {
                    if case .closed(let reason) = event { sink.yield(.closed(car: car, reason)) }
                }
            }
        } catch {
            fail(entry, "car \(entry.car) could not start: \(error)")
            aborted = true
        }
    }
}
