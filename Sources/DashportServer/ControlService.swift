import FoundationEssentials
import Glibc
import DashportBrowse
import DashportControl
import DashportSession
import DashportTransport
import DashportClock

/// What `dashport ctl` can ask of a running server: answers each ``ControlRequest`` from the
/// server's registry, core and catalog reloader. Every answer line is `key=value` pairs, so a
/// script splits on spaces and `=` (values with spaces are quoted) and a person reads it as is.
struct ControlService: Sendable {
    let registry: ConnectionRegistry
    let core: ServerCore
    let reloader: CatalogReloader?
    let address: ListenAddress
    let fingerprint: String
    let stateDirectory: String
    let startedAt: Date
    /// The audio input socket's buffer (nil: audio is off).
    var audioInput: SessionAudioInput? = nil

    func answer(_ request: ControlRequest) async -> ControlResponse {
        switch request {
        case .help:
            return .ok(ControlRequest.usage)
        case .status:
            return .ok(await status())
        case .cars:
            return .ok(registry.cars.map(Self.line))
        case .invalidate(let parentId):
            if let parentId, let refusal = await refusal(toInvalidate: parentId) { return .error(refusal) }
            await core.browse.invalidate(parentId)
            return .ok([
                ControlWords.fields([
                    "invalidated": parentId ?? "everything", "cars-told": "\(registry.cars.filter { $0.kind == .dashport }.count)",
                ])
            ])
        case .reload:
            guard let reloader else { return .error("this server has no catalog file to reload (it serves another provider)") }
            let outcome = await reloader.reload(reason: "dashport ctl")
            if case .refused(let error) = outcome { return .error("catalog refused, still serving the previous one: \(error)") }
            return .ok([ControlWords.fields(["reload": "\(outcome)"])])
        case .showSession:
            return .ok([await sessionLine()])
        case .session(let command):
            switch await core.session.perform(command, from: .local) {
            case .accepted: return .ok([await sessionLine()])
            case .rejected(let reason): return .error(Self.refusal(command, reason: reason))
            }
        }
    }

    /// Why `invalidate PARENT-ID` does nothing: there is no such item, or it has no children (a
    /// typo must not be answered `cars-told=1`). The root always has children.
    private func refusal(toInvalidate parentId: String) async -> String? {
        guard parentId != BrowseItem.rootId else { return nil }
        let shown = ControlWords.shown(parentId)
        guard let item = await core.browse.item(id: parentId, for: CarProfile()) else {
            return "no such parent '\(shown)' (no item has that id; 'invalidate --all' refreshes everything)"
        }
        guard item.browsable else { return "'\(shown)' is not a parent: \(ControlWords.shown(item.title)) has no children to refresh" }
        return nil
    }

    /// A refused session command in the words a person typed (`session volume up refused: ...`),
    /// not the core's internal command names; the core's reason for an undeclared remote device
    /// becomes what it means for the person.
    static func refusal(_ command: SessionCommand, reason: String) -> String {
        let why =
            reason == SessionCore.remotePlaybackNotDeclared
            ? "nothing plays on a remote device, so there is no volume to change here (the car's own volume applies)"
            : reason
        return "session \(ControlRequest.words(for: command)) refused: \(why)"
    }

    static func line(_ car: ConnectedCar) -> String {
        ControlWords.fields([
            "id": "\(car.id)", "kind": car.kind.rawValue, "car": car.car ?? "-", "head-unit": car.headUnit ?? "-",
            "transport": car.transport, "peer": car.peer, "reactor": car.reactor.map { "\($0)" } ?? "-",
            "audio": car.audio?.description ?? "-",
            "since": car.since.formatted(.iso8601),
        ])
    }

    private func status() async -> [String] {
        let cars = registry.cars
        let count = { (kind: ConnectedCar.Kind) in "\(cars.filter { $0.kind == kind }.count)" }
        var lines = [
            ControlWords.fields([
                "server": "dashport", "version": DashportVersion.current, "listening": "\(address)",
                "uptime-s": "\(Int(Date().timeIntervalSince(startedAt)))",
            ]),
            ControlWords.fields([
                "cars": "\(cars.count)", "dashport": count(.dashport), "aap": count(.stockAAP), "linking": count(.linking),
            ]),
        ]
        if let catalog = core.catalog {
            let last = await reloader?.last
            lines.append(
                ControlWords.fields([
                    "catalog": catalog.path, "items": "\(catalog.itemCount)",
                    "last-reload": last.map { "\($0.outcome) (\($0.reason))" } ?? "none",
                ]))
        } else {
            lines.append(ControlWords.fields(["catalog": "none (another provider)"]))
        }
        lines.append(await sessionLine())
        if let audioInput {
            let statistics = audioInput.statistics
            lines.append(
                ControlWords.fields([
                    "audio-in": audioInput.hasWriter ? "writer" : "no-writer", "listening": audioInput.isListening ? "yes" : "no",
                    "bytes": "\(statistics.bytesIn)", "underrun-frames": "\(statistics.underrunFrames)",
                ]))
        }
        lines.append(ControlWords.fields(["state-dir": stateDirectory, "certificate": fingerprint]))
        return lines
    }

    /// `status=playing position-ms=… duration-ms=… item=… title=… queue=2/12 rate=1 repeat=none shuffle=off sleep=off`
    private func sessionLine() async -> String {
        let session = core.session
        let snapshot = await session.snapshot
        let now = core.clock.now
        let position = await session.projectedPositionMs(at: now)
        let sleep: String
        switch await session.activeSleepTimer {
        case nil: sleep = "off"
        case (.endOfTrack, _)?: sleep = "end-of-track"
        case (.duration, let deadline?)?: sleep = "in-ms:\(max(0, deadline.milliseconds - now.milliseconds))"
        case (.duration, nil)?: sleep = "armed"
        }
        let remote =
            await session.remotePlayback.map {
                "volume:\(Int(($0.volume * 100).rounded()))%,\($0.muted ? "muted" : "unmuted"),\($0.control.rawValue),steps:\($0.steps)"
            } ?? "none"
        let state = snapshot.playbackState
        let item = snapshot.mediaItem.item
        let queue = snapshot.queue.items.isEmpty ? "0/0" : "\((state.queueIndex ?? -1) + 1)/\(snapshot.queue.items.count)"
        return ControlWords.fields([
            "status": state.status.rawValue, "position-ms": "\(position)",
            "duration-ms": item?.durationMs.map { "\($0)" } ?? "-", "item": item?.id ?? "-", "title": item?.title ?? "-",
            "queue": queue, "rate": "\(state.position.rate)", "repeat": state.repeatMode.rawValue,
            "shuffle": state.shuffle ? "on" : "off", "sleep": sleep, "remote": remote,
        ])
    }
}
