import DashportDigest
import DashportMessages
package import DashportTLS
import DashportLog

/// Setup, phone side: dispatch, version exchange, TLS, AUTH_COMPLETE, discovery (aap-protocol.md §2.2).
extension PhoneLink {
    func dispatch(_ message: InboundMessage, now: Duration, _ out: inout Outbox) {
        if logger.level <= .trace {
            logger.trace(
                "received",
                [
                    "channel": "\(message.channel)", "message": Hex.id(message.messageId),
                    "bytes": "\(message.body.count)", "encrypted": "\(message.encrypted)",
                ])
        }
        switch phase {
        case .versionExchange:
            handleVersionRequest(message, &out)
        case .closing:
            handleWhileClosing(message, &out)
        case .closed:
            return
        case .tlsHandshake, .authentication, .discovery, .running:
            if message.channel != 0 {
                handleChannelMessage(message, now: now, &out)
            } else {
                handleControl(message, now: now, &out)
            }
        }
    }

    private func handleControl(_ message: InboundMessage, now: Duration, _ out: inout Outbox) {
        switch message.messageId {
        case ControlID.encapsulatedSSL where phase == .tlsHandshake && !message.encrypted:
            handleHandshake(message, &out)
        case ControlID.authComplete where phase == .authentication:
            handleAuthComplete(message, &out)
        case ControlID.serviceDiscoveryResponse where phase == .discovery:
            handleDiscoveryResponse(message, now: now, &out)
        case ControlID.pingRequest:
            answerPing(message, &out)
        case ControlID.pingResponse:
            handlePingResponse(message, now: now, &out)
        case ControlID.byeByeRequest:
            handlePeerByeBye(message, &out)
        case ControlID.byeByeResponse:
            logger.debug("unsolicited BYEBYE_RESPONSE ignored")
        case ControlID.audioFocusNotification where phase == .running:
            // The media audio sink service keeps the car's focus state (aap-audio.md §A.0 steps 4, 9).
            out.event(.message(channel: 0, messageId: message.messageId, body: Array(message.body)))
        case ControlID.versionRequest...ControlID.channelOpenResponse:
            // A setup message out of order (a second VERSION_REQUEST, AUTH_COMPLETE before TLS
            // finished, a discovery response we did not ask for, a channel open on channel 0).
            close(.unexpectedMessage(channel: 0, messageId: message.messageId, phase: phase), &out)
        case let id where phase == .running || ControlID.ignorableNotifications.contains(id):
            // aasdk ignores unknown control ids too; focus/voice/battery notifications need no answer.
            logger.debug("control message ignored", ["message": Hex.id(id), "phase": phase.rawValue])
        default:
            close(.unexpectedMessage(channel: 0, messageId: message.messageId, phase: phase), &out)
        }
    }

    private func handleVersionRequest(_ message: InboundMessage, _ out: inout Outbox) {
        guard message.channel == 0, !message.encrypted, message.messageId == ControlID.versionRequest else {
            let what = "first message is \(Hex.id(message.messageId)) on channel \(message.channel), not VERSION_REQUEST"
            close(.notAAP(what), &out)
            return
        }
        guard let requested = VersionBody.parseRequest(message.body) else {
            close(.notAAP("VERSION_REQUEST body has \(message.body.count) bytes, not major and minor"), &out)
            return
        }
        let (answer, status) = VersionExchange.answer(to: requested, maxMinor: configuration.maxMinorVersion)
        sendControl(ControlID.versionResponse, VersionBody.response(answer, status: status), encrypted: false, &out)
        guard status == VersionBody.statusMatch else {
            close(.versionMismatch(requested: requested), &out)
            return
        }
        logger.info("version negotiated", ["requested": "\(requested)", "answered": "\(answer)"])
        version = answer
        phase = .tlsHandshake
        out.event(.versionNegotiated(answer))
    }

    private func handleHandshake(_ message: InboundMessage, _ out: inout Outbox) {
        // aasdk sends an empty ENCAPSULATED_SSL when its TLS engine has nothing to say (§2.4).
        guard !message.body.isEmpty else {
            logger.debug("empty ENCAPSULATED_SSL tolerated")
            return
        }
        let flight: [UInt8]
        do {
            flight = try wire.tls.handshake(received: Array(message.body))
        } catch {
            close(.tlsFailure(error), &out)
            return
        }
        // Each of our flights goes out whole in one message: headunit aborts on split flights.
        if !flight.isEmpty {
            sendControl(ControlID.encapsulatedSSL, flight, encrypted: false, &out)
        }
        guard wire.tls.isHandshakeComplete, phase == .tlsHandshake else { return }
        let summary = TLSSummary(session: wire.tls)
        phase = .authentication
        out.event(.tlsEstablished(summary))
    }

    private func handleAuthComplete(_ message: InboundMessage, _ out: inout Outbox) {
        // aasdk sends AUTH_COMPLETE in plaintext, others encrypted; an empty body means status 0.
        var status: Int32 = 0
        if !message.body.isEmpty {
            do {
                status = try AAP.AuthResponse(serializedBytes: Array(message.body)).status
            } catch {
                close(.undecodable(messageId: message.messageId, "\(error)"), &out)
                return
            }
        }
        guard status == 0 else {
            close(.authenticationFailed(status: status), &out)
            return
        }
        wire.pendingLimitBeforeAuthentication = nil  // authenticated: the frame limits alone apply
        wire.setupFramesOnly = false
        out.event(.authComplete)
        let request = AAP.ServiceDiscoveryRequest(labelText: configuration.labelText, deviceName: configuration.deviceName)
        sendControl(ControlID.serviceDiscoveryRequest, request.serializedBytes(), encrypted: true, &out)
        if phase != .closed { phase = .discovery }
    }

    private func handleDiscoveryResponse(_ message: InboundMessage, now: Duration, _ out: inout Outbox) {
        let response: AAP.ServiceDiscoveryResponse
        do {
            response = try AAP.ServiceDiscoveryResponse(serializedBytes: Array(message.body))
        } catch {
            close(.undecodable(messageId: message.messageId, "\(error)"), &out)
            return
        }
        let (car, problems) = CarDescription.parse(response)
        for problem in problems {
            logger.warning("discovery response entry skipped", ["problem": problem])
        }
        self.car = car
        var table = ChannelTable(car: car)
        phase = .running
        out.event(.discovered(car))
        let sink = car.mediaAudioSink
        for service in car.services where configuration.wantsService(service) && (!service.isAudioSink || service == sink) {
            let request = AAP.ChannelOpenRequest(priority: 0, serviceId: Int32(service.channel))
            sendMessage(
                channel: service.channel, ControlID.channelOpenRequest, request.serializedBytes(),
                encrypted: true, &out)
            table.markRequested(service.channel, deadline: now + configuration.channelOpenTimeout)
            logger.debug("channel open requested", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        }
        channels = table
        pings.start(now: now, interval: pingInterval(advertised: car.ping?.interval))
    }

    /// The head unit's advertised ping interval wins when present, clamped to a sane range.
    private func pingInterval(advertised: Duration?) -> Duration {
        guard let advertised, advertised > .zero else { return configuration.pingInterval }
        let range = configuration.pingIntervalRange
        return min(max(advertised, range.lowerBound), range.upperBound)
    }
}

extension TLSSummary {
    /// The negotiated version, cipher and peer fingerprint of an established session.
    package init(session: any RecordLayer) {
        self.init(
            version: session.negotiatedVersion ?? "unknown",
            cipher: session.negotiatedCipher ?? "unknown",
            peerFingerprint: session.peerFingerprintSHA256)
    }
}
