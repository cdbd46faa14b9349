import CDashportSSL

/// How many TLS records a session wrote and read since `TLSSession.countRecords()`: its
/// sequence numbers, which OpenSSL does not expose. For the link fuzzer only (`tools/fuzz/Link`,
/// whose sessions live across inputs and must be known to be in step); Dashport's sessions
/// never count.
package final class TLSRecordCounter {
    /// Records written (sealed) and read (their header parsed, whether they then opened or not).
    package private(set) var sealed = 0
    package private(set) var opened = 0

    fileprivate func count(written: Bool) {
        if written { sealed += 1 } else { opened += 1 }
    }
}

extension TLSSession {
    /// Starts counting this session's records from zero (OpenSSL's message callback, which sees
    /// every record header written and read) and returns the counter, which the session keeps.
    package func countRecords() -> TLSRecordCounter {
        let counter = TLSRecordCounter()
        recordCounter = counter
        SSL_set_msg_callback(ssl) { written, _, contentType, _, _, _, argument in
            guard contentType == SSL3_RT_HEADER, let argument else { return }
            // The session holds the counter (`recordCounter`) as long as the callback can run.
            Unmanaged<TLSRecordCounter>.fromOpaque(argument).takeUnretainedValue().count(written: written == 1)
        }
        _ = SSL_ctrl(ssl, SSL_CTRL_SET_MSG_CALLBACK_ARG, 0, Unmanaged.passUnretained(counter).toOpaque())
        return counter
    }
}
