import Dispatch
import Foundation
public import DashportLog
import DashportTransport
public import DashportUSB

/// The car's side of a USB session: a ``USBSessionStream`` over an accessory's bulk pipe, with a
/// reader thread (16 KiB transfers, 0-byte reads ignored, short timeouts so an unplug is noticed)
/// and a writer thread (at most 16 KiB per transfer, a zero-length packet after a transfer that is
/// a whole number of max-size packets and shorter than 16 KiB).
public enum USBHostStream {
    /// How long one bulk write may wait for the phone to take it (aasdk: 10 s).
    public static let sendTimeout: Duration = .seconds(10)

    /// Starts the threads and returns the stream; the pipe is closed when the stream ends, once
    /// both threads have stopped using it, and then `whenReleased` runs.
    public static func open(
        _ pipe: any USBBulkPipe, peer: String, logger: Logger = .silent, whenReleased: (@Sendable () -> Void)? = nil
    ) -> USBSessionStream {
        let wake = DispatchSemaphore(value: 0)
        let stream = USBSessionStream(peerDescription: peer, writerWake: wake)
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            defer { done.leave() }
            while !stream.isFinished {
                let (bytes, result) = pipe.read(count: AccessoryProtocol.maxTransfer, timeout: .milliseconds(500))
                switch result {
                case .transferred: stream.deliver(bytes)  // 0 bytes: a zero-length packet, ignored
                case .timedOut: continue
                case .unplugged:
                    logger.warning("the phone was unplugged", ["peer": peer])
                    stream.linkLost(.io("the USB device was unplugged"))
                case .failed(let reason):
                    stream.linkLost(.io("USB read failed: \(reason)"))
                }
            }
        }
        done.enter()
        Thread.detachNewThread {
            defer { done.leave() }
            while !stream.isFinished {
                _ = wake.wait(timeout: .now() + 0.5)
                while let chunk = stream.takeChunk(limit: AccessoryProtocol.maxTransfer) {
                    var result = pipe.write(chunk, timeout: sendTimeout)
                    if result == .transferred(chunk.count),
                        AccessoryProtocol.needsZeroLengthPacket(length: chunk.count, maxPacket: pipe.maxPacket)
                    {
                        result = pipe.write([], timeout: sendTimeout)
                    }
                    switch result {
                    case .transferred: stream.chunkSent()
                    case .timedOut: stream.linkLost(.io("the phone did not take \(chunk.count) bytes within \(sendTimeout)"))
                    case .unplugged: stream.linkLost(.io("the USB device was unplugged"))
                    case .failed(let reason): stream.linkLost(.io("USB write failed: \(reason)"))
                    }
                }
            }
        }
        done.notify(queue: .global()) {
            pipe.close()
            whenReleased?()
        }
        return stream
    }
}
