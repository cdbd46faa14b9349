import DashportDigest
import DashportLink
import DashportMessages
import DashportTLS
import DashportLog

/// Inbound handling, car side: version answer, TLS client, discovery, channel opens, pings, bye-bye.
extension HeadUnitLink {
    func dispatch(_ message: InboundMessage, now: Duration, _ out: inout HeadUnitOutbox) {
        if logger.level <= .trace {
            logger.trace(
                "received",
                [
                    "channel": "\(message.channel)", "message": Hex.id(message.messageId),
                    "bytes": "\(message.body.count)", "encrypted": "\(message.encrypted)",
                ])
        }
        if phase == .closing {
            handleWhileClosing(message, now: now, &out)
        } else if message.channel != 0 {
            handleChannelMessage(message, now: now, &out)
        } else {
            handleControl(message, now: now, &out)
        }
    }

    private func handleControl(_ message: InboundMessage, now: Duration, _ out: inout HeadUnitOutbox) {
        switch message.messageId {
        case ControlID.versionResponse where phase == .versionExchange && !message.encrypted:
            handleVersionResponse(message, &out)
        case ControlID.encapsulatedSSL where phase == .tlsHandshake && !message.encrypted:
            handleHandshake(message, &out)
        case ControlID.serviceDiscoveryRequest where phase == .discovery:
            handleDiscoveryRequest(message, now: now, &out)
        case ControlID.pingRequest where phase != .versionExchange:
            let timestamp = (try? AAP.PingRequest(serializedBytes: Array(message.body)))?.timestamp ?? 0
            out.event(.pingReceived(timestamp: timestamp, encrypted: message.encrypted))
            if configuration.answersPings {
                sendControl(
                    ControlID.pingResponse, AAP.PingResponse(timestamp: timestamp).serializedBytes(),
                    encrypted: encryptsControl, &out)
            }
        case ControlID.pingResponse where phase != .versionExchange:
            if let response = try? AAP.PingResponse(serializedBytes: Array(message.body)),
                let rtt = pings.answered(timestamp: response.timestamp, now: now)
            {
                out.event(.pingAnswered(rtt: rtt, encrypted: message.encrypted))
            }
        case ControlID.audioFocusRequest where wire.tls.isHandshakeComplete && audio != nil:
            if let outputs = audio?.receiveFocusRequest(Array(message.body), now: now) { perform(outputs, &out) }
        case ControlID.byeByeRequest where wire.tls.isHandshakeComplete:
            handlePeerByeBye(message, &out)
        case let id where wire.tls.isHandshakeComplete && !(ControlID.versionRequest...ControlID.channelOpenResponse).contains(id):
            out.event(.controlMessage(messageId: id, body: Array(message.body), encrypted: message.encrypted))
        default:
            close(.unexpectedMessage(channel: 0, messageId: message.messageId, phase: phase), &out)
        }
    }

    private func handleVersionResponse(_ message: InboundMessage, _ out: inout HeadUnitOutbox) {
        guard let (answered, status) = VersionBody.parseResponse(message.body) else {
            close(.undecodable(messageId: message.messageId, "VERSION_RESPONSE body has \(message.body.count) bytes"), &out)
            return
        }
        guard status == VersionBody.statusMatch else {
            close(.versionRejected(answered: answered, status: status), &out)
            return
        }
        version = answered
        phase = .tlsHandshake
        out.event(.versionNegotiated(answered))
        let hello: [UInt8]
        do {
            hello = try wire.tls.startHandshake()
        } catch {
            close(.tlsFailure(error), &out)
            return
        }
        sendControl(ControlID.encapsulatedSSL, hello, encrypted: false, &out)
    }

    private func handleHandshake(_ message: InboundMessage, _ out: inout HeadUnitOutbox) {
        guard !message.body.isEmpty else { return }
        let flight: [UInt8]
        do {
            flight = try wire.tls.handshake(received: Array(message.body))
        } catch {
            close(.tlsFailure(error), &out)
            return
        }
        if !flight.isEmpty {
            sendControl(ControlID.encapsulatedSSL, flight, encrypted: false, &out)
        }
        guard wire.tls.isHandshakeComplete, phase == .tlsHandshake else { return }
        let summary = TLSSummary(session: wire.tls)
        logger.info("TLS established", ["tls": summary.description])
        out.event(.tlsEstablished(summary))
        let body = configuration.authCompleteBody ?? AAP.AuthResponse(status: 0).serializedBytes()
        sendControl(ControlID.authComplete, body, encrypted: encryptsControl, &out)
        if phase != .closed { phase = .discovery }
    }

    private func handleDiscoveryRequest(_ message: InboundMessage, now: Duration, _ out: inout HeadUnitOutbox) {
        // Every field of the request is optional; one we cannot read still gets our answer.
        let request = try? AAP.ServiceDiscoveryRequest(serializedBytes: Array(message.body))
        out.event(.discoveryRequested(labelText: request?.labelText, deviceName: request?.deviceName))
        guard configuration.answersDiscovery else { return }
        let body =
            configuration.discoveryResponseBody
            ?? AAP.ServiceDiscoveryResponse(describing: configuration.car).serializedBytes()
        sendControl(ControlID.serviceDiscoveryResponse, body, encrypted: true, &out)
        guard phase != .closed else { return }
        phase = .running
        if let interval = configuration.pingInterval { pings.start(now: now, interval: interval) }
    }

    private func handleChannelMessage(_ message: InboundMessage, now: Duration, _ out: inout HeadUnitOutbox) {
        let channel = message.channel
        guard message.messageId == ControlID.channelOpenRequest else {
            guard phase == .running, configuration.car.service(onChannel: channel) != nil else {
                close(.unlistedChannel(channel), &out)
                return
            }
            guard openChannels.contains(channel) else {
                close(.channelNotOpen(channel: channel, messageId: message.messageId), &out)
                return
            }
            if audio?.channel == channel, let outputs = audio?.receive(messageId: message.messageId, body: Array(message.body), now: now) {
                perform(outputs, &out)
            } else {
                out.event(.message(channel: channel, messageId: message.messageId, body: Array(message.body)))
            }
            return
        }
        guard phase == .running else {
            close(.unexpectedMessage(channel: channel, messageId: message.messageId, phase: phase), &out)
            return
        }
        let request: AAP.ChannelOpenRequest
        do {
            request = try AAP.ChannelOpenRequest(serializedBytes: Array(message.body))
        } catch {
            close(.undecodable(messageId: message.messageId, "\(error)"), &out)
            return
        }
        out.event(
            .channelOpenRequested(
                channel: channel, priority: request.priority, serviceId: request.serviceId,
                encrypted: message.encrypted))
        guard let service = configuration.car.service(onChannel: channel) else {
            // aasdk queues requests for channels it has no handler for and never answers (§8.9).
            out.event(.channelOpenUnanswered(channel: channel, listed: false))
            return
        }
        if configuration.unansweredChannelOpens.contains(channel) {
            out.event(.channelOpenUnanswered(channel: channel, listed: true))
            return
        }
        let status = configuration.refusedChannelOpens[channel] ?? 0
        let response = AAP.ChannelOpenResponse(status: AAP.MessageStatus(rawValue: status))
        sendMessage(channel: channel, ControlID.channelOpenResponse, response.serializedBytes(), encrypted: true, &out)
        guard phase != .closed else { return }
        if status == 0 {
            openChannels.insert(channel)
            out.event(.channelOpened(service))
        } else {
            out.event(.channelOpenRefused(service, status: status))
        }
    }

    private func handlePeerByeBye(_ message: InboundMessage, _ out: inout HeadUnitOutbox) {
        let reason = (try? AAP.ByeByeRequest(serializedBytes: Array(message.body)))?.reason.rawValue ?? 0
        sendControl(ControlID.byeByeResponse, AAP.ByeByeResponse().serializedBytes(), encrypted: true, &out)
        out.event(.byeByeReceived(reason: reason))
        close(.peerByeBye(reason: reason), &out)
    }

    private func handleWhileClosing(_ message: InboundMessage, now: Duration, _ out: inout HeadUnitOutbox) {
        guard message.channel == 0 else { return }
        switch message.messageId {
        case ControlID.byeByeResponse: close(.byeBye(answered: true), &out)
        case ControlID.byeByeRequest: handlePeerByeBye(message, &out)
        default: logger.debug("message dropped while closing", ["message": Hex.id(message.messageId)])
        }
    }
}
