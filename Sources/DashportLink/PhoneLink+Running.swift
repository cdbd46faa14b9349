import DashportDigest
import DashportMessages
import DashportTLS
import DashportLog

/// Running and closing, phone side: channel opens, service traffic, pings, bye-bye.
extension PhoneLink {
    /// A message on a service channel. Only channels the head unit listed exist at all; only
    /// channels it opened carry service traffic (aap-protocol.md §3.3).
    func handleChannelMessage(_ message: InboundMessage, now: Duration, _ out: inout Outbox) {
        let channel = message.channel
        guard var table = channels, table.service(channel) != nil else {
            close(.unlistedChannel(channel), &out)
            return
        }
        // Service traffic, the usual message, reads the table only: nothing to write back.
        if message.messageId != ControlID.channelOpenResponse && message.messageId != ControlID.channelCloseNotification {
            guard table.isOpen(channel) else {
                close(.channelNotOpen(channel: channel, messageId: message.messageId), &out)
                return
            }
            out.event(.message(channel: channel, messageId: message.messageId, body: Array(message.body)))
            return
        }
        defer { if phase != .closed { channels = table } }
        switch message.messageId {
        case ControlID.channelOpenResponse:
            let status: Int32
            do {
                status = try AAP.ChannelOpenResponse(serializedBytes: Array(message.body)).status.rawValue
            } catch {
                close(.undecodable(messageId: message.messageId, "\(error)"), &out)
                return
            }
            guard let service = table.answer(channel, success: status == 0) else {
                logger.debug("channel open response ignored", ["channel": "\(channel)", "status": "\(status)"])
                return
            }
            if status == 0 {
                out.event(.channelOpened(service))
            } else {
                out.event(.channelOpenFailed(service, .status(status)))
            }
        case ControlID.channelCloseNotification:
            if let service = table.close(channel) {
                out.event(.channelClosed(service))
            }
        default:
            break  // service traffic, handled above
        }
    }

    /// Answers a PING_REQUEST in kind: plain with plain, encrypted with encrypted (§2.10).
    func answerPing(_ message: InboundMessage, _ out: inout Outbox) {
        let request: AAP.PingRequest
        do {
            request = try AAP.PingRequest(serializedBytes: Array(message.body))
        } catch {
            // A ping is not needed to run the link: one we cannot read is dropped, not fatal.
            logger.warning("undecodable PING_REQUEST ignored", ["error": "\(error)"])
            return
        }
        sendControl(
            ControlID.pingResponse, AAP.PingResponse(timestamp: request.timestamp).serializedBytes(),
            encrypted: message.encrypted, &out)
    }

    func handlePingResponse(_ message: InboundMessage, now: Duration, _ out: inout Outbox) {
        guard let response = try? AAP.PingResponse(serializedBytes: Array(message.body)) else {
            logger.debug("undecodable PING_RESPONSE ignored")
            return
        }
        if let rtt = pings.answered(timestamp: response.timestamp, now: now) {
            out.event(.pingAnswered(rtt: rtt))
        } else {
            logger.debug("PING_RESPONSE for a ping we do not remember", ["timestamp": "\(response.timestamp)"])
        }
    }

    /// The head unit ends the session: answer BYEBYE_RESPONSE, then close (§2.9).
    func handlePeerByeBye(_ message: InboundMessage, _ out: inout Outbox) {
        // The reason is informational; an unreadable one must not stop us from answering.
        let reason = (try? AAP.ByeByeRequest(serializedBytes: Array(message.body)))?.reason.rawValue ?? 0
        sendControl(
            ControlID.byeByeResponse, AAP.ByeByeResponse().serializedBytes(),
            encrypted: wire.tls.isHandshakeComplete, &out)
        out.event(.byeByeReceived(reason: reason))
        close(.peerByeBye(reason: reason), &out)
    }

    /// After our BYEBYE_REQUEST only the answer matters; pings are still answered, everything
    /// else is dropped.
    func handleWhileClosing(_ message: InboundMessage, _ out: inout Outbox) {
        guard message.channel == 0 else { return }
        switch message.messageId {
        case ControlID.byeByeResponse:
            close(.byeBye(answered: true), &out)
        case ControlID.byeByeRequest:
            handlePeerByeBye(message, &out)
        case ControlID.pingRequest:
            answerPing(message, &out)
        default:
            logger.debug("message dropped while closing", ["message": Hex.id(message.messageId)])
        }
    }
}
