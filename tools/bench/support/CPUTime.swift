import Foundation

/// CPU time spent by this process and by one of its threads, to split a run's CPU between the
/// cars (all on the benchmark's own reactor thread) and the server (everything else).
package enum CPUTime {
    /// User + system seconds of the whole process so far, exited threads included.
    package static func process() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .nan }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The kernel's id of the calling thread (`/proc/thread-self` is `<pid>/task/<tid>`); -1 if unknown.
    package static func currentThreadId() -> Int32 {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return link.split(separator: "/").last.flatMap { Int32($0) } ?? -1
    }

    /// On-CPU seconds of this process's thread `tid`, from its schedstat (nanoseconds); NaN when
    /// it cannot be read.
    package static func thread(_ tid: Int32) -> Double {
        schedstat(tid, field: 0)
    }

    /// Seconds this process's thread `tid` spent runnable but waiting for a CPU (schedstat's
    /// second field): how much a loaded machine held it back. NaN when it cannot be read.
    package static func waiting(_ tid: Int32) -> Double {
        schedstat(tid, field: 1)
    }

    private static func schedstat(_ tid: Int32, field: Int) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8),
            case let fields = stat.split(separator: " "), fields.count > field,
            let nanoseconds = Double(fields[field].trimmingCharacters(in: .whitespacesAndNewlines))
        else { return .nan }
        return nanoseconds / 1e9
    }
}

/// CPU seconds during one measured run: the cars' side, and the rest (the server's side).
package struct CPUSplit {
    package var cars = 0.0
    package var server = 0.0

    package init() {}

    /// Runs `body` and adds the CPU each side spent meanwhile. `clientThreads` are further
    /// threads of the client side (the hostile phase's flooder loop), counted with the cars.
    package mutating func measure<T>(carThread: Int32, clientThreads: [Int32] = [], _ body: () async throws -> T) async rethrows -> T {
        let threads = [carThread] + clientThreads
        func clientSide() -> Double { threads.map(CPUTime.thread).reduce(0, +) }
        let (process0, cars0) = (CPUTime.process(), clientSide())
        let result = try await body()
        let (process1, cars1) = (CPUTime.process(), clientSide())
        cars += cars1 - cars0
        server += (process1 - process0) - (cars1 - cars0)
        return result
    }
}
