import Foundation

/// One reading of a process's resources from `/proc/<pid>`.
public struct ProcessSample: Sendable, Hashable {
    /// Resident set size (VmRSS), KiB.
    public var rssKiB: Int
    /// Anonymous resident memory (RssAnon: heap, stacks; not mapped files), KiB.
    public var rssAnonKiB: Int
    /// Open file descriptors (entries of /proc/<pid>/fd).
    public var fds: Int
    /// Threads (Threads: in /proc/<pid>/status).
    public var threads: Int

    public init(rssKiB: Int, rssAnonKiB: Int, fds: Int, threads: Int) {
        self.rssKiB = rssKiB
        self.rssAnonKiB = rssAnonKiB
        self.fds = fds
        self.threads = threads
    }

    /// Reads `/proc/<pid>/status` and counts `/proc/<pid>/fd`; nil when the process is gone.
    public static func read(pid: Int32) -> ProcessSample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        return parse(status: status, fds: fds.count)
    }

    /// Why ``read(pid:)`` returned nil, for an error message.
    public static func readProblem(pid: Int32) -> String {
        do {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            _ = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            return parse(status: status, fds: 0) == nil ? "VmRSS, RssAnon or Threads missing in /proc/\(pid)/status" : "none"
        } catch {
            return "\(error)"
        }
    }

    /// The fields this needs from a `/proc/<pid>/status` text; nil if one is missing.
    public static func parse(status: String, fds: Int) -> ProcessSample? {
        var fields: [String: Int] = [:]
        for line in status.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            guard ["VmRSS", "RssAnon", "Threads"].contains(key) else { continue }
            let number = line[line.index(after: colon)...].split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
            fields[key] = number
        }
        guard let rss = fields["VmRSS"], let anon = fields["RssAnon"], let threads = fields["Threads"] else { return nil }
        return ProcessSample(rssKiB: rss, rssAnonKiB: anon, fds: fds, threads: threads)
    }
}

/// A ``ProcessSample`` taken during a soak, with the run's counters at that moment.
public struct SoakSample: Sendable, Hashable {
    /// Time since the run started.
    public var elapsed: Duration
    public var process: ProcessSample
    /// Car sessions completed so far (connected, browsed, fetched, commanded, dropped).
    public var cycles: Int
    /// Requests answered and checked so far.
    public var answers: Int
    /// Wrong or missing answers so far.
    public var failures: Int

    /// `  60 s  rss 48.1 MiB  anon 12.0 MiB  fds 23  threads 6  cycles 812  answers 4060  failures 0`
    public var line: String {
        func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }
        return String(format: "%5d s", Int(elapsed.components.seconds))
            + "  rss \(mib(process.rssKiB))  anon \(mib(process.rssAnonKiB))  fds \(process.fds)"
            + "  threads \(process.threads)  cycles \(cycles)  answers \(answers)  failures \(failures)"
    }
}
