// The load phase of dashport-bench-search: each catalog loaded in a fresh process of its own (this
// program again, with `--load-one PATH`), which reports what loading it cost: resident memory
// before and after, the peak while loading (VmHWM), and the load time. A fresh process, so the
// peak is this load's and nothing else's, and freed memory the allocator kept counts as resident.
import DashportBrowse
import Foundation

/// What one load in a fresh process measured, in KiB and ms.
struct LoadFigures {
    var items: Int
    var before: Int
    var after: Int
    var peak: Int
    var milliseconds: Double
    /// The loading thread's CPU time (the wall time above waits for the CPU on a loaded machine).
    var cpuMilliseconds: Double

    var line: String {
        "\(items) \(before) \(after) \(peak) \(milliseconds) \(cpuMilliseconds)"
    }

    init(items: Int, before: Int, after: Int, peak: Int, milliseconds: Double, cpuMilliseconds: Double) {
        (self.items, self.before, self.after, self.peak) = (items, before, after, peak)
        (self.milliseconds, self.cpuMilliseconds) = (milliseconds, cpuMilliseconds)
    }

    init?(line: Substring) {
        let parts = line.split(separator: " ")
        guard parts.count == 6, let items = Int(parts[0]), let before = Int(parts[1]), let after = Int(parts[2]),
            let peak = Int(parts[3]), let milliseconds = Double(parts[4]), let cpu = Double(parts[5])
        else { return nil }
        self.init(items: items, before: before, after: after, peak: peak, milliseconds: milliseconds, cpuMilliseconds: cpu)
    }
}

func statusKiB(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// The child's side: loads `path` through `CatalogProvider`, prints the figures, and exits.
func loadOne(_ path: String) -> Never {
    let before = statusKiB("VmRSS")
    let start = now()
    let cpuStart = cpuNow()
    do {
        let provider = try CatalogProvider(contentsOf: path)
        let milliseconds = Double(now() - start) / 1e6
        let cpuMilliseconds = Double(cpuNow() - cpuStart) / 1e6
        let figures = LoadFigures(
            items: provider.itemCount, before: before, after: statusKiB("VmRSS"), peak: statusKiB("VmHWM"),
            milliseconds: milliseconds, cpuMilliseconds: cpuMilliseconds)
        print(figures.line)
        withExtendedLifetime(provider) {}
        exit(0)
    } catch {
        print("cannot load \(path): \(error)")
        exit(1)
    }
}

/// The parent's side: `path` loaded in a fresh process.
func loadInFreshProcess(_ path: String) throws -> LoadFigures {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["--load-one", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0, let figures = LoadFigures(line: output.split(separator: "\n").last ?? "") else {
        throw BenchError("the load of \(path) failed: \(output)")
    }
    return figures
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Loads each catalog `rounds` times, each in a fresh process, catalogs taking turns; prints each
/// one's median figures and the large one's over the demo's.
func loadPhase(demo: String, large: String, rounds: Int) throws {
    var runs: [[LoadFigures]] = [[], []]
    for _ in 0..<rounds {
        for (index, path) in [demo, large].enumerated() { runs[index].append(try loadInFreshProcess(path)) }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func mib(_ kib: Double) -> String { String(format: "%.1f MiB", kib / 1024) }
    var medians: [(resident: Double, peak: Double, ms: Double)] = []
    for (name, figures) in zip(["demo", "large"], runs) {
        let resident = median(figures.map { Double($0.after - $0.before) })
        let peak = median(figures.map { Double($0.peak - $0.before) })
        let total = median(figures.map { Double($0.after) })
        let totalPeak = median(figures.map { Double($0.peak) })
        let ms = median(figures.map(\.milliseconds))
        let cpu = median(figures.map(\.cpuMilliseconds))
        medians.append((resident, peak, ms))
        print(
            "load \(name) in a fresh process (median of \(figures.count)): \(figures[0].items) items, "
                + "\(String(format: "%.0f", ms)) ms (CPU \(String(format: "%.0f", cpu)) ms), "
                + "+\(mib(resident)) resident (process \(mib(total))), peak +\(mib(peak)) (VmHWM \(mib(totalPeak)))")
    }
    print(
        "load, large − demo: +\(mib(medians[1].resident - medians[0].resident)) resident, "
            + "peak +\(mib(medians[1].peak - medians[0].peak)), peak ÷ resident \(String(format: "%.2f", medians[1].peak / medians[1].resident))"
    )
}
