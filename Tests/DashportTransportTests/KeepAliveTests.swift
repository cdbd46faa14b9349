import DashportTestSupport
import Glibc
import Testing
import DashportLog
@testable import DashportTransport

/// TCP keepalive on accepted connections (issue 11): a car that vanished without a FIN is noticed.
@Suite struct KeepAliveTests {
    static func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, level, name, &value, &length) == 0 else { return -errno }
        return value
    }

    /// Accepts one connection from a listener made with `keepAlive` and returns its socket options.
    static func acceptedOptions(keepAlive: TCPKeepAlive?) async throws -> [Int32] {
        let accepted = Watched<[TCPConnection]>([])
        let listener = try TCPListener.bind(
            try #require(ListenAddress(parsing: "127.0.0.1:0")), keepAlive: keepAlive, logger: .silent)
        defer { listener.shutdown() }
        listener.start { connection in
            connection.start { _ in }
            accepted.update { $0.append(connection) }
        }
        let (client, _) = try await connectedClient(to: listener.boundAddress)
        defer { client.abort() }
        let connection = try await accepted.wait("the accept") { !$0.isEmpty }[0]
        defer { connection.abort() }
        let tcp = Int32(IPPROTO_TCP)
        return [
            option(connection.fd, SOL_SOCKET, SO_KEEPALIVE), option(connection.fd, tcp, TCP_KEEPIDLE),
            option(connection.fd, tcp, TCP_KEEPINTVL), option(connection.fd, tcp, TCP_KEEPCNT),
            option(connection.fd, tcp, TCP_USER_TIMEOUT),
        ]
    }

    @Test func acceptedConnectionsProbeWithTheDefaults() async throws {
        #expect(TCPKeepAlive.default == TCPKeepAlive(idleSeconds: 60, intervalSeconds: 10, probes: 6))
        #expect(try await Self.acceptedOptions(keepAlive: .default) == [1, 60, 10, 6, 120_000])
    }

    @Test func theSettingsAreThoseGiven() async throws {
        let options = try await Self.acceptedOptions(keepAlive: TCPKeepAlive(idleSeconds: 5, intervalSeconds: 2, probes: 3))
        #expect(options == [1, 5, 2, 3, 11_000])
    }

    @Test func nilLeavesKeepaliveOff() async throws {
        #expect(try await Self.acceptedOptions(keepAlive: nil).first == 0)
    }
}
