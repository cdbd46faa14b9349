import Foundation

package func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

package func median(_ samples: [Double]) -> Double {
    percentile(samples, 0.5)
}

/// The sample at `fraction` of the sorted samples (nearest rank); NaN when there are none.
package func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// "4.21 ms", "0.085 ms": three significant digits for small values.
package func formatMilliseconds(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    return value < 1 ? String(format: "%.3f ms", value) : value < 100 ? String(format: "%.2f ms", value) : String(format: "%.0f ms", value)
}

package func formatRatio(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    return value < 0.1 ? String(format: "%.3f", value) : String(format: "%.2f", value)
}

/// 12,345 with thousands separators.
package func formatCount(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    let digits = String(Int(value.rounded()))
    var out = ""
    for (index, digit) in digits.reversed().enumerated() {
        if index > 0 && index % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return String(out.reversed())
}

package func formatMiB(kilobytes: Int) -> String {
    String(format: "%.1f MiB", Double(kilobytes) / 1024)
}

/// The machine, for the report: cores, CPU model, memory, kernel, load.
package enum Machine {
    package static func summary() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var system = utsname()
        uname(&system)
        let kernel = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return "\(cores) cores (nproc), \(model), \(String(format: "%.1f", Double(totalKB) / 1024 / 1024)) GiB RAM, Linux \(kernel)"
    }

    /// The 1-minute load average from /proc/loadavg.
    package static func load() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }
}
