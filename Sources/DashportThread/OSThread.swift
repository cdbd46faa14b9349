internal import CDashportLinux
import Glibc

/// Dashport's one way to start a thread of its own: a detached POSIX thread running a closure.
///
/// The reactor, the log writer and the USB gadget's endpoint threads are long-lived threads that
/// block in `epoll_wait`, `read` or a semaphore; they must not borrow the Swift concurrency pool.
/// Foundation's `Thread` started them before, but importing `Foundation` maps Foundation's
/// internationalization layer and ICU into every server (issue 10, item 6: 8 MiB of an idle
/// `dashport serve`); this is the part of it Dashport used, on `pthread_create`.
public enum OSThread {
    /// Starts a detached thread named `name` (cut to the 15 bytes Linux keeps) that runs `body` and ends.
    ///
    /// Failing to create a thread means the process is out of memory or of its thread limit, which
    /// no caller can recover from: it stops the process with the system's reason.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { context in
                // Safe: `start` passed a retained `ThreadBody` as the context; this takes that reference back.
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            fatalError("cannot start thread \(name): \(String(cString: strerror(result)))")
        }
    }

    /// Empties the calling thread's malloc cache (glibc's tcache) into malloc's free lists, so that
    /// a later `malloc_trim` can give the pages those blocks were on back to the system. A
    /// long-lived thread calls it at rest; it makes 448 mallocs and starts a short thread, about a
    /// millisecond (see `cdashport_release_thread_cache`).
    public static func releaseMallocCache() {
        _ = cdashport_release_thread_cache()
    }

    /// Blocks the calling thread for `duration`: a plain sleep for threads of their own (the USB
    /// gadget's); async code waits through `DashportClock`.
    public static func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

/// What a new thread runs: carried through `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        cdashport_set_thread_name(String(decoding: name.utf8.prefix(15), as: UTF8.self))
        body()
    }
}
