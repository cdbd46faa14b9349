import DashportTransport
import Testing

/// `SO_RCVBUF` set on the listening socket bounds what the kernel holds of each accepted peer's
/// unread bytes (issue 10: a closed flooder's buffered bytes were the largest part of its close).
@Suite struct ReceiveBufferTests {
    @Test func everyAcceptedSocketInheritsTheListenersReceiveBuffer() async throws {
        let server = try EchoServer(receiveBufferSize: 16 * 1024)
        #expect(server.listener.receiveBufferSize == 2 * 16 * 1024, "Linux reports twice what was asked")
        let (client, _) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let accepted = try await server.connection(0)
        #expect(await accepted.connection.kernelReceiveBufferSize() == 2 * 16 * 1024)
    }

    @Test func withoutOneTheKernelChoosesAndTunesIt() async throws {
        let server = try EchoServer()
        #expect(server.listener.receiveBufferSize == nil)
        let (client, _) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let accepted = try await server.connection(0)
        let size = try #require(await accepted.connection.kernelReceiveBufferSize())
        #expect(size > 2 * 16 * 1024, "the system default (tcp_rmem) is \(size)")
    }

    @Test func aClosedConnectionHasNoBufferToReport() async throws {
        let server = try EchoServer(receiveBufferSize: 16 * 1024)
        let (client, _) = try await connectedClient(to: server.address)
        let accepted = try await server.connection(0)
        client.abort()
        accepted.connection.abort()
        _ = try await accepted.probe.waitForClose()
        #expect(await accepted.connection.kernelReceiveBufferSize() == nil)
    }
}
