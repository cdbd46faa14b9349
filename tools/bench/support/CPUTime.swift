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

    /// System (kernel) seconds of the whole process so far: the part of ``process()`` spent in
    /// system calls and the network stack below them.
    package static func processSystem() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .nan }
        return Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// System seconds of this process's thread `tid` (`/proc/self/task/<tid>/stat`'s stime, in
    /// clock ticks: a hundredth of a second here, fine over a window of seconds); NaN if unreadable.
    package static func threadSystem(_ tid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        // After the command's closing parenthesis: state is field 3, stime field 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let ticks = Double(fields[12]) else { return .nan }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
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
    /// The part of ``server`` spent in the kernel (system time).
    package var serverSystem = 0.0

    package init() {}

    /// Runs `body` and adds the CPU each side spent meanwhile. `clientThreads` are further
    /// threads of the client side (the hostile phase's flooder loop), counted with the cars.
    package mutating func measure<T>(carThread: Int32, clientThreads: [Int32] = [], _ body: () async throws -> T) async rethrows -> T {
        let threads = [carThread] + clientThreads
        func clientSide() -> Double { threads.map(CPUTime.thread).reduce(0, +) }
        func clientSystem() -> Double { threads.map(CPUTime.threadSystem).reduce(0, +) }
        let (process0, cars0) = (CPUTime.process(), clientSide())
        let (system0, carsSystem0) = (CPUTime.processSystem(), clientSystem())
        let result = try await body()
        let (process1, cars1) = (CPUTime.process(), clientSide())
        let (system1, carsSystem1) = (CPUTime.processSystem(), clientSystem())
        cars += cars1 - cars0
        server += (process1 - process0) - (cars1 - cars0)
        serverSystem += (system1 - system0) - (carsSystem1 - carsSystem0)
        return result
    }
}
