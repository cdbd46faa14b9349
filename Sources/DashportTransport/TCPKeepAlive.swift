import CDashportLinux
import Glibc

/// TCP keepalive on accepted connections, so that a peer that vanished without a FIN or a reset
/// (power cut, cable pulled, Wi-Fi gone) is noticed and its connection closed with an error.
///
/// It does not treat a *silent* car as dead: a live car's kernel answers the probes even when the
/// car sends nothing (design: no silence deadline once linked). The defaults notice a vanished peer
/// after about two minutes: probes start after `idle` seconds without traffic, repeat every
/// `interval`, and `probes` unanswered ones end the connection; `TCP_USER_TIMEOUT` is set to the same
/// total so that unacknowledged data we sent to a vanished car ends it in that time too.
public struct TCPKeepAlive: Sendable, Hashable {
    /// Seconds without traffic before the first probe (TCP_KEEPIDLE).
    public var idleSeconds: Int32
    /// Seconds between probes (TCP_KEEPINTVL).
    public var intervalSeconds: Int32
    /// Unanswered probes that end the connection (TCP_KEEPCNT).
    public var probes: Int32

    public init(idleSeconds: Int32, intervalSeconds: Int32, probes: Int32) {
        self.idleSeconds = idleSeconds
        self.intervalSeconds = intervalSeconds
        self.probes = probes
    }

    /// 60 s idle, then 6 probes 10 s apart: a vanished peer is closed after about 2 minutes.
    public static let `default` = TCPKeepAlive(idleSeconds: 60, intervalSeconds: 10, probes: 6)

    /// The time after which a vanished peer is given up, in milliseconds (TCP_USER_TIMEOUT).
    public var userTimeoutMilliseconds: Int32 { (idleSeconds + intervalSeconds * probes) * 1000 }

    /// Sets SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT and TCP_USER_TIMEOUT on `fd`;
    /// returns the errno of the first that failed, or nil.
    func apply(to fd: Int32) -> Int32? {
        let tcp = Int32(IPPROTO_TCP)
        return setSocketOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
            ?? setSocketOption(fd, tcp, TCP_KEEPIDLE, idleSeconds)
            ?? setSocketOption(fd, tcp, TCP_KEEPINTVL, intervalSeconds)
            ?? setSocketOption(fd, tcp, TCP_KEEPCNT, probes)
            ?? setSocketOption(fd, tcp, TCP_USER_TIMEOUT, userTimeoutMilliseconds)
    }
}
