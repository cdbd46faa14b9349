import DashportFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArtworkError {
    /// A file error as the artwork pipeline reports it (a file over its cap stays ``tooLarge(bytes:limit:)``).
    init(_ error: FileError) {
        if case .tooLarge(let bytes, let limit) = error.cause {
            self = .tooLarge(bytes: bytes, limit: limit)
        } else {
            self = .io(error.description)
        }
    }
}

/// The artwork cache's last-use times, kept as file modification times. Everything else on disk
/// goes through ``Files`` (atomic writes, reads that refuse non-regular files, 0700 directories).
enum CacheFileTimes {
    /// Sets the modification time of `path`.
    static func setModified(_ path: String, nanoseconds: Int64) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = (time, time)
        _ = withUnsafePointer(to: &times) { pair in
            pair.withMemoryRebound(to: timespec.self, capacity: 2) { utimensat(AT_FDCWD, path, $0, 0) }
        }
    }

    /// The wall clock in nanoseconds, at full resolution (file times are only as fine as a tick).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
