import DashportTestSupport
import Foundation
import Glibc
import Testing
import DashportBrowse
import DashportControl
import DashportHeadUnit
import DashportLink
import DashportSession
import DashportMessages
import DashportTransport
import DashportLog
@testable import DashportServer

/// `dashport ctl` against a real server on loopback: who is connected, invalidation pushes, the
/// session, and every kind of bad input.
@Suite("Control socket", .serialized)
struct ControlSocketTests {
    static func send(_ server: TestServer, _ words: String...) async throws -> ControlResponse {
        try await ControlClient.send(words, socket: try #require(server.server.controlSocketPath))
    }

    @Test func carsListsTwoConnectedCarsWithTheirKindAndNames() async throws {
        try await TestServer.with { server in
            #expect(try await ControlSocketTests.send(server, "cars") == .ok([]))
            let dashport = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await dashport.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            var stockConfiguration = HeadUnitConfiguration()
            stockConfiguration.car.services.removeAll { if case .vendorExtension = $0.kind { true } else { false } }
            stockConfiguration.car.identity.make = "Volvo"
            stockConfiguration.car.identity.model = "XC40 Recharge"
            stockConfiguration.car.identity.year = nil
            let stock = try await TestCar.connect(to: server.server.address, configuration: stockConfiguration)
            try await stock.waitUntil("input channel open") { $0.openedChannels.contains(8) }

            guard case .ok(let lines) = try await ControlSocketTests.send(server, "cars") else {
                Issue.record("cars was refused")
                return
            }
            try #require(lines.count == 2)
            let cars = server.server.connectedCars
            #expect(
                lines[0].hasPrefix(
                    #"id=\#(cars[0].id) kind=dashport car="Dashport Emulated Car 2026" head-unit="Dashport dashport-hu 1.0" transport=tcp peer=127.0.0.1:"#
                ))
            #expect(
                lines[1].hasPrefix(
                    #"id=\#(cars[1].id) kind=aap car="Volvo XC40 Recharge" head-unit="Dashport dashport-hu 1.0" transport=tcp peer=127.0.0.1:"#
                ))
            #expect(lines.allSatisfy { $0.contains(" since=20") })
            #expect(zip(lines, cars).allSatisfy { line, car in line.contains(" reactor=\(car.reactor ?? -1) ") })

            guard case .ok(let status) = try await ControlSocketTests.send(server, "status") else {
                Issue.record("status was refused")
                return
            }
            #expect(status.contains("cars=2 dashport=1 aap=1 linking=0"))
            #expect(
                status.first?.hasPrefix("server=dashport version=\(DashportVersion.current) listening=\(server.server.address)") == true)

            await stock.abort()
            try await eventually("the aborted stock car to leave the registry") { server.server.connectedCars.count <= 1 }
            guard case .ok(let after) = try await ControlSocketTests.send(server, "cars") else { return }
            #expect(after.count == 1 && after[0].contains("kind=dashport"))
            await dashport.abort()
        }
    }

    @Test func invalidatePushesChildrenChangedAndTheCarGetsFreshContent() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            let walker = MediaChannelOverTCPTests()
            let tabs = try await walker.children(car, of: BrowseItem.rootId, requestId: 1)
            let tab = try #require(tabs.first?.id)

            #expect(try await ControlSocketTests.send(server, "invalidate", tab) == .ok(["invalidated=\(tab) cars-told=1"]))
            try await car.waitUntil("children changed for \(tab)") { car in
                car.messages(on: 16).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == tab
                }
            }
            #expect(try await ControlSocketTests.send(server, "invalidate", "--all") == .ok(["invalidated=everything cars-told=1"]))
            try await car.waitUntil("children changed for everything") { car in
                car.messages(on: 16).filter { $0.id == 0x8007 }.count == 2
            }
            let pushed = await car.messages(on: 16).filter { $0.id == 0x8007 }.compactMap {
                try? DashportMedia.ChildrenChanged(serializedBytes: $0.body)
            }
            #expect(pushed.count == 2 && pushed.last?.parentId == nil, "everything: no parent id")
            #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 2).map(\.id) == tabs.map(\.id))
            await car.abort()
        }
    }

    @Test func theSessionIsShownAndDrivenLikeFromACar() async throws {
        try await TestServer.with { server in
            guard case .ok(let idle) = try await ControlSocketTests.send(server, "session") else { return }
            #expect(idle.count == 1 && idle[0].hasPrefix("status=stopped position-ms=0 duration-ms=- item=- title=- queue=0/0"))
            guard case .ok(let playing) = try await ControlSocketTests.send(server, "session", "play") else {
                Issue.record("play was refused")
                return
            }
            #expect(playing[0].hasPrefix("status=playing "))
            #expect(playing[0].contains("queue=1/"))
            #expect(
                try await ControlSocketTests.send(server, "session", "sleep", "end-of-track").lines?.first?.contains(
                    " sleep=end-of-track remote=") == true)
            #expect(
                try await ControlSocketTests.send(server, "session", "sleep", "off").lines?.first?.contains(" sleep=off remote=") == true)
            #expect(try await ControlSocketTests.send(server, "session", "pause").lines?.first?.hasPrefix("status=paused ") == true)
            #expect(
                try await ControlSocketTests.send(server, "session", "seek", "12.5").lines?.first?.contains("position-ms=12500 ") == true)
            #expect(try await ControlSocketTests.send(server, "session", "repeat", "all").lines?.first?.contains("repeat=all") == true)
            guard case .error(let text) = try await ControlSocketTests.send(server, "session", "skip", "999") else {
                Issue.record("a queue position past the end was accepted")
                return
            }
            #expect(text.hasPrefix("session skip 999 refused: queue position 999 is outside a queue of "), "\(text)")
        }
    }

    /// Remote playback is shown and driven from ctl like a car's volume keys: with no remote device
    /// declared the command is refused; with an absolute one it sets, steps and mutes it.
    @Test func theRemoteVolumeIsShownAndSetFromCtl() async throws {
        try await TestServer.with { server in
            guard case .error(let refused) = try await ControlSocketTests.send(server, "session", "volume", "40") else {
                Issue.record("a volume command without a declared remote device was accepted")
                return
            }
            #expect(
                refused
                    == "session volume 40 refused: nothing plays on a remote device, so there is no volume to change here (the car's own volume applies)"
            )
            guard case .error(let up) = try await ControlSocketTests.send(server, "session", "volume", "up") else {
                Issue.record("volume up without a declared remote device was accepted")
                return
            }
            #expect(up.hasPrefix("session volume up refused: nothing plays on a remote device"), "\(up)")
        }
        try await TestServer.with(configure: { $0.session.remoteVolume = .absolute }) { server in
            let set = try await ControlSocketTests.send(server, "session", "volume", "40")
            #expect(set.lines?.first?.contains("remote=volume:40%,unmuted,absolute,steps:20") == true, "\(set)")
            let up = try await ControlSocketTests.send(server, "session", "volume", "up")
            #expect(up.lines?.first?.contains("remote=volume:45%,unmuted,absolute") == true, "\(up)")
            let muted = try await ControlSocketTests.send(server, "session", "volume", "mute")
            #expect(muted.lines?.first?.contains(",muted,absolute") == true, "\(muted)")
        }
    }

    @Test func badRequestsGetClearErrorsAndOnlyBrokenBoundsCloseTheConnection() async throws {
        try await TestServer.with { server in
            #expect(try await ControlSocketTests.send(server, "bogus") == .error("unknown command 'bogus'; try 'help'"))
            #expect(
                try await ControlSocketTests.send(server, "session", "rate", "0")
                    == .error("session rate: '0' is not a speed above 0 and at most 16"))
            #expect(try await ControlSocketTests.send(server, "invalidate") == .error("usage: invalidate PARENT-ID | invalidate --all"))
            #expect(
                try await ControlSocketTests.send(server, "invalidate", "nope")
                    == .error("no such parent 'nope' (no item has that id; 'invalidate --all' refreshes everything)"))
            #expect(
                try await ControlSocketTests.send(server, "invalidate", "nd-2")
                    == .error("'nd-2' is not a parent: Sodium Lamps has no children to refresh"))
            #expect(
                try await ControlSocketTests.send(server, "invalidate", BrowseItem.rootId).lines?.first?.hasPrefix("invalidated=") == true)
            #expect(try await ControlSocketTests.send(server, "session", "fly") == .error("unknown session command 'fly'; try 'help'"))

            // On one raw connection: bad lines are answered and the connection stays usable.
            let raw = try RawControl(path: try #require(server.server.controlSocketPath))
            #expect(try await raw.exchange([0xFF, 0xFE, 0x0A]) == "error request is not UTF-8 text\n")
            #expect(try await raw.exchange(Array("\"open quote\n".utf8)) == "error a quoted word is not closed\n")
            #expect(try await raw.exchange(Array("\n".utf8)) == "error empty request; try 'help'\n")
            #expect(try await raw.exchange(Array("cars\r\n".utf8)) == "ok 0\n")
            // A line past the cap: answered, then closed.
            let long = [UInt8](repeating: UInt8(ascii: "a"), count: ControlRequest.maxLineBytes + 10)
            #expect(
                try await raw.exchange(long, untilClosed: true) == "error request longer than \(ControlRequest.maxLineBytes - 1) bytes\n")

            // Many requests sent without reading the answers: refused and closed, not queued without end.
            let flood = try RawControl(path: try #require(server.server.controlSocketPath))
            let reply = try await flood.exchange(Array(String(repeating: "status\n", count: 200).utf8), untilClosed: true)
            #expect(reply.hasSuffix("error more than 4 requests sent before their answers\n"))
            // The server is fine.
            #expect(try await ControlSocketTests.send(server, "cars") == .ok([]))
        }
    }

    @Test func anIdleConnectionIsClosedSoIdleClientsCannotHoldEverySlot() async throws {
        try await TestServer.with { server in
            let directory = server.stateDirectory + "/idle"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let service = ControlService(
                registry: ConnectionRegistry(), core: server.server.core, reloader: nil, address: server.server.address,
                fingerprint: "-", stateDirectory: directory, startedAt: Date())
            let clock = ManualClock()
            let control = try ControlServer.start(
                stateDirectory: directory, service: service, logger: .silent, clock: clock, idleTimeout: .seconds(60))
            defer { control.stop() }
            let raw = try RawControl(path: control.path)
            await clock.waitForSleeper(dueAt: .seconds(60))
            #expect(try await raw.exchange(Array("cars\n".utf8)) == "ok 0\n")
            // A request within the minute keeps it open for another minute.
            await clock.advance(by: .seconds(60))
            await clock.waitForSleeper(dueAt: .seconds(120))
            await clock.advance(by: .seconds(60))
            #expect(try await raw.exchange([], untilClosed: true) == "error no request for 60.0 seconds; closing\n")
            // A stuck script holding every slot does not lock the owner out: the next connection is
            // served and the oldest idle one is closed to make room.
            let held = try (0..<ControlServer.maxConnections).map { _ in try RawControl(path: control.path) }
            #expect(try await held[1].exchange(Array("cars\n".utf8)) == "ok 0\n")  // all eight accepted
            let extra = try RawControl(path: control.path)
            #expect(try await extra.exchange(Array("cars\n".utf8)) == "ok 0\n")
            #expect(try await held[0].exchange([], untilClosed: true) == "")
            #expect(try await held[1].exchange(Array("cars\n".utf8)) == "ok 0\n")
        }
    }

    @Test func theSocketIsPrivateAndAStaleOneIsReplacedButNeverAFile() async throws {
        let server = try await TestServer.start()
        let path = try #require(server.server.controlSocketPath)
        var status = Glibc.stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)

        // A second server on the same state directory is refused: the first still listens.
        await #expect(throws: ConfigurationError.self) {
            _ = try await TestServer.start(stateDirectory: server.stateDirectory)
        }
        await server.stop(keepingState: true)
        #expect(lstat(path, &status) != 0, "stop removes the socket")

        // A stale socket (its server died without removing it) is replaced.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)
        let again = try await TestServer.start(stateDirectory: server.stateDirectory)
        #expect(again.log.contains(.notice, "removed a stale control socket"))
        #expect(try await ControlClient.send(["cars"], socket: path) == .ok([]))
        await again.stop(keepingState: true)

        // A file where the socket goes is never replaced.
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try await TestServer.start(stateDirectory: server.stateDirectory)
            Issue.record("a server started over a regular file")
        } catch {
            #expect(
                "\(error)"
                    == "control socket: \(path) exists and is not a socket; refusing to replace it (move it away if it is not needed)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        try? FileManager.default.removeItem(atPath: server.stateDirectory)
    }
}

extension ControlResponse {
    var lines: [String]? { if case .ok(let lines) = self { lines } else { nil } }
}

/// A raw client on the control socket, for bytes `ControlClient` would never send.
final class RawControl: Sendable {
    let connection: TCPConnection
    let received: AsyncStream<TransportEvent>

    init(path: String) throws {
        connection = try UnixClient.connect(path: path)
        let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
        received = stream
        connection.start { continuation.yield($0) }
    }

    /// Writes `bytes` and collects what comes back: up to the first line feed, or (`untilClosed`)
    /// until the server closes the connection.
    func exchange(_ bytes: [UInt8], untilClosed: Bool = false) async throws -> String {
        connection.write(bytes)
        var got: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(20)
        var iterator = received.makeAsyncIterator()
        while ContinuousClock.now < deadline {
            guard let event = await iterator.next() else { break }
            switch event {
            case .received(let chunk):
                got += chunk
                if !untilClosed, got.last == 0x0A { return String(decoding: got, as: UTF8.self) }
            case .closed:
                return String(decoding: got, as: UTF8.self)
            }
        }
        return String(decoding: got, as: UTF8.self)
    }
}
