import Foundation

/// A /proc file read to its end (they report a size of 0, and smaps is longer than one read).
package func readWhole(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
}

/// Resident memory of one process, from /proc/<pid>/status, in KiB.
package struct MemorySample: Sendable {
    package var rss: Int
    package var peak: Int
    /// Private memory (heap, stacks) and file-backed pages (the binary, shared libraries, ICU data).
    package var anonymous: Int
    package var file: Int

    package init(rss: Int, peak: Int, anonymous: Int, file: Int) {
        self.rss = rss
        self.peak = peak
        self.anonymous = anonymous
        self.file = file
    }

    package static func read(pid: Int32) throws -> MemorySample {
        guard let status = readWhole("/proc/\(pid)/status") else { throw BenchFailure("cannot read /proc/\(pid)/status") }
        func field(_ name: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
                .flatMap { Int($0) } ?? 0
        }
        return MemorySample(rss: field("VmRSS"), peak: field("VmHWM"), anonymous: field("RssAnon"), file: field("RssFile"))
    }

    /// The mapped files with the most resident KiB (/proc/<pid>/smaps), largest first.
    package static func largestFiles(pid: Int32, count: Int) -> [(name: String, kib: Int)] {
        guard let smaps = readWhole("/proc/\(pid)/smaps") else { return [] }
        var byFile: [String: Int] = [:]
        var current = ""
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                current = fields.count >= 6 ? String(fields[5]) : ""
            } else if fields.first == "Rss:", current.hasPrefix("/"), fields.count >= 2, let kib = Int(fields[1]) {
                byFile[current, default: 0] += kib
            }
        }
        return byFile.sorted { $0.value > $1.value }.prefix(count).map { (String($0.key.split(separator: "/").last ?? ""), $0.value) }
    }
}

extension MemorySample {
    /// Private (anonymous) KiB by kind of mapping, from /proc/<pid>/smaps: glibc's main heap
    /// (`[heap]`), unnamed mappings (other malloc arenas, large allocations, thread stacks,
    /// Dispatch's and the runtime's own), and file mappings made private by writes (relocations).
    package static func anonymousByKind(pid: Int32) -> [(kind: String, mappings: Int, kib: Int)] {
        guard let smaps = readWhole("/proc/\(pid)/smaps") else { return [] }
        var totals: [String: (mappings: Int, kib: Int)] = [:]
        var kind = ""
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                let name = fields.count >= 6 ? String(fields[5]) : ""
                kind = name.hasPrefix("/") ? "written pages of mapped files" : name.isEmpty ? "unnamed mappings" : name
            } else if fields.first == "Anonymous:", fields.count >= 2, let kib = Int(fields[1]), kib > 0 {
                totals[kind, default: (0, 0)].mappings += 1
                totals[kind, default: (0, 0)].kib += kib
            }
        }
        return totals.map { ($0.key, $0.value.mappings, $0.value.kib) }.sorted { $0.kib > $1.kib }
    }
}
