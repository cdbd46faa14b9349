import DashportThread

extension EventLoop {
    /// Empties the reactor thread's malloc cache and returns once it is done (at rest: it makes
    /// 448 mallocs and starts a thread, so the loop pauses for about a millisecond).
    ///
    /// glibc keeps up to 7 freed blocks of each of 64 small sizes per thread for that thread's
    /// next mallocs (its tcache), and `malloc_trim` cannot give back a page holding one. The
    /// reactor runs the cars' workers (``EventLoop`` is their task executor), so after a crowd its
    /// cache pointed all over the heap: 446 blocks after a 100-car soak, on the 1.7 MiB of pages the
    /// idle server kept (issue 23 item 7). The server calls this before its idle trims.
    public func releaseThreadCache() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            execute {
                OSThread.releaseMallocCache()
                done.resume()
            }
        }
    }
}
