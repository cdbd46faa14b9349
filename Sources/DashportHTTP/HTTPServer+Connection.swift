import DashportLog
import DashportTransport
import Synchronization

/// One client: its events go through a stream to its task, which parses, answers and writes.
extension HTTPServer {
    /// Counts a client's chunks handed to its task and not yet parsed.
    final class Backlog: Sendable {
        let chunks = Atomic<Int>(0)
    }

    func accept(_ connection: TCPConnection, loop: EventLoop) {
        let (events, sink) = AsyncStream.makeStream(of: TransportEvent.self)
        let backlog = Backlog()
        let cap = configuration.maxQueuedChunks
        connection.start { event in
            if case .received = event, backlog.chunks.add(1, ordering: .relaxed).newValue >= cap { connection.pauseReading() }
            sink.yield(event)
            if case .closed = event { sink.finish() }
        }
        let client = Client(connection: connection)
        guard register(client) else {
            connection.abort()
            return
        }
        // One task per client, run by the reactor between its socket events.
        Task(executorPreference: loop) { await self.serve(client, events: events, backlog: backlog) }
    }

    private func serve(_ client: Client, events: AsyncStream<TransportEvent>, backlog: Backlog) async {
        let connection = client.connection
        defer { forget(connection) }
        let log = logger.with("peer", connection.peerDescription)
        var parser = HTTPRequestParser(limits: configuration.limits)
        var stream: HTTPStream?
        var finished = false
        for await event in events {
            switch event {
            case .received(let bytes):
                if backlog.chunks.subtract(1, ordering: .relaxed).newValue < configuration.maxQueuedChunks { connection.resumeReading() }
                // After a stream's head or a refusal, what the client sends is not read.
                guard stream == nil, !finished else { continue }
                parser.append(bytes)
                while stream == nil && !finished {
                    let request: HTTPRequest?
                    do {
                        request = try parser.next()
                    } catch {
                        log.notice("refused a request: \(error.message); closing the connection", ["status": "\(error.status)"])
                        connection.write(HTTPResponse.text(error.status, error.message).encoded(keepAlive: false))
                        connection.close()
                        finished = true
                        break
                    }
                    guard let request else {
                        if parser.takeContinue() { connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                        break
                    }
                    client.touch(busy: true)
                    let reply = await answer(request, log: log)
                    await waitForRoom(connection)
                    switch reply {
                    case .response(let response):
                        var bytes = response.encoded(keepAlive: request.keepAlive)
                        if request.method == "HEAD" { bytes.removeLast(response.body.count) }
                        connection.write(bytes)
                        client.touch(busy: false)
                        if !request.keepAlive {
                            connection.close()
                            finished = true
                        }
                    case .stream(let head, let start):
                        let opened = HTTPStream(connection: connection)
                        let id = ObjectIdentifier(opened)
                        streams.withLock { $0[id] = opened }
                        opened.whenClosed { [self] in _ = streams.withLock { $0.removeValue(forKey: id) } }
                        connection.write(head)
                        stream = opened
                        start(opened)
                    }
                }
            case .closed(let error):
                if let error { log.info("client connection ended: \(error)") }
                stream?.markClosed()
            }
        }
    }

    /// The handler's answer, or the server's own refusal of a request that does not name it.
    private func answer(_ request: HTTPRequest, log: Logger) async -> HTTPReply {
        guard acceptsHost(request.header("host")) else {
            log.notice("refused a request for another host", ["host": request.header("host") ?? ""])
            return .response(.text(403, "this server answers only to its own address (Host \(address))"))
        }
        guard acceptsOrigin(request.header("origin")) else {
            log.notice("refused a request from another origin", ["origin": request.header("origin") ?? ""])
            return .response(.text(403, "requests from other sites' pages are not served"))
        }
        log.debug("request", ["method": request.method, "target": request.target])
        return await handler(request)
    }

    /// Returns once the client's queue is under the high-water mark (or the connection closed).
    private func waitForRoom(_ connection: TCPConnection) async {
        guard connection.outboundBufferedBytes > configuration.outboundHighWater else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            connection.whenOutboundAtMost(configuration.outboundHighWater) { done.resume() }
        }
    }
}
