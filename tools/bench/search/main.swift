// dashport-bench-search: what one catalog search costs over the 100,000-item maximum, next to the
// same search over the demo catalog, in the same run.
//
//   swift run -c release dashport-bench-search [--rounds N] [--catalog PATH]
//
// A catalog of 99,999 playable items and one tab (the documented maximum, `CatalogLoader.maxItems`)
// is generated into a temporary folder: titles, artists and albums from small word lists with
// accents and mixed case, so common words match thousands of items and rare ones a few. Both
// catalogs are loaded through `CatalogProvider` (the load time and the resident memory it added
// are printed; before that, each is loaded in fresh processes of its own, `LoadPhase.swift`,
// reporting resident memory, the peak and the load time), then every round asks each catalog
// every query of a fixed list (prefixes, whole
// words, several words, one character, no match), catalogs taking turns, for the page the browse
// core asked before it could count (`BrowseConfiguration.maxChildrenPerNode` items, the whole list),
// and as it asks now (`searchPage`: the car's page, `--car-page`, and the list's length up to that
// many: what `BrowseCore.search` needs); before them, `--linear-rounds` rounds
// of the large catalog's search as it was before the index (every item compared), for the before. Reported: p50 and p99 of one search
// per catalog, in µs of the thread's CPU time and of wall time, and the CPU ratio of the large catalog's to the demo's. Speed is
// measured here, never in tests.
@_spi(SearchReference) import DashportBrowse
import DashportCommandLine
import Foundation

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--load-one" { loadOne(CommandLine.arguments[2]) }

let spec = CommandSpec(
    name: "dashport-bench-search",
    summary: "One catalog search over the 100,000-item maximum, next to one over the demo catalog.",
    options: [
        .value("rounds", "N", "rounds; every query runs once per catalog per round (default 20)"),
        .value("catalog", "PATH", "the demo catalog (default Fixtures/demo/catalog.json)"),
        .value("page-size", "N", "items asked per whole-list search (default the browse core's, 2000)"),
        .value("car-page", "N", "items of the page a car asks for (default the core's default page, 100)"),
        .value("linear-rounds", "N", "rounds of the search before the index, every item compared (default 1)"),
        .value("load-rounds", "N", "loads of each catalog, each in a fresh process (default 5; 0 skips them)"),
        .value(
            "write-catalog", "FOLDER",
            "only write the 100,000-item catalog into FOLDER and print its path (for dashport-bench-link --catalog)"),
    ])

let (rounds, demoPath, linearRounds, pageSizeOption, loadRounds, carPageOption, writeFolder) = ParsedCommand.parseOrExit(
    program: "dashport-bench-search", as: spec
) { parsed throws(CommandLineError) in
    (
        try parsed.integer("rounds") ?? 20, parsed.value("catalog") ?? "Fixtures/demo/catalog.json",
        try parsed.integer("linear-rounds", minimum: 0) ?? 1, try parsed.integer("page-size"),
        try parsed.integer("load-rounds", minimum: 0) ?? 5, try parsed.integer("car-page", minimum: 1),
        parsed.value("write-catalog")
    )
}

let artists = [
    "Beyoncé", "Sigur Rós", "MOTÖRHEAD", "Dvořák", "Björk", "Ólafur Arnalds", "Zoë Keating", "The Beatles",
    "Straße Band", "Ελληνικά", "Mötley Crüe", "Café Tacvba",
]
let words = [
    "midnight", "Sun", "harbour", "DÉJÀ", "vu", "Über", "Alles", "naïve", "façade", "Tōkyō", "river", "Ærø",
    "fine", "the", "Theme", "love", "night", "blue", "road", "home", "light", "dance", "heart", "rain",
    "summer", "winter", "dream", "city", "fire", "ocean",
]
let queries = [
    "midnight", "mid", "sun", "beyonce", "deja vu", "the", "a", "e", "love night", "zzz", "harbour 1",
    "ocean blue", "tokyo", "12", "album fire", "s", "night", "dream city summer", "ros", "aurora",
]

func largeCatalog(in folder: String) throws -> String {
    let count = 99_999
    let items = (0..<count).map { n in
        let title = "\(words[n % words.count]) \(words[(n / 7) % words.count]) \(words[(n / 131) % words.count]) \(n)"
        let album = "Album \(words[(n / 13) % words.count]) \(n / 13)"
        let artist = "\(artists[n % artists.count]) \(n % 997)"
        return #"{"id":"i\#(n)","title":"\#(title)","artist":"\#(artist)","album":"\#(album)","playable":true}"#
    }
    let json =
        #"{"format":"dashport.catalog","version":1,"root":["t"],"items":[{"id":"t","title":"Tab","browsable":true},"#
        + items.joined(separator: ",") + "]}"
    let path = folder + "/catalog.json"
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func residentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

func load(_ path: String, _ name: String) throws -> CatalogProvider {
    let before = residentKiB()
    let start = now()
    let provider = try CatalogProvider(contentsOf: path)
    let milliseconds = Double(now() - start) / 1e6
    let added = Double(residentKiB() - before) / 1024
    print("\(name): \(provider.itemCount) items, loaded in \(Int(milliseconds)) ms, +\(String(format: "%.1f", added)) MiB resident")
    return provider
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

if let writeFolder {
    // Another benchmark's server reads it: `dashport-bench-link --catalog` (a car's browse latency
    // beside another's searches over the maximum catalog, issue 22 item 3).
    try FileManager.default.createDirectory(atPath: writeFolder, withIntermediateDirectories: true)
    print(try largeCatalog(in: writeFolder))
    exit(0)
}
let folder = NSTemporaryDirectory() + "dashport-bench-search-\(getpid())"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let largePath = try largeCatalog(in: folder)
if loadRounds > 0 { try loadPhase(demo: demoPath, large: largePath, rounds: loadRounds) }
let demo = try load(demoPath, "demo")
let large = try load(largePath, "large")
let pageSize = pageSizeOption ?? BrowseConfiguration().maxChildrenPerNode
let carPage = carPageOption ?? BrowseConfiguration().defaultPageSize

/// One search's thread CPU time and wall time, in µs. A search of a loaded catalog never suspends,
/// and a nonisolated async function called from one runs on the caller's thread, so the thread's
/// CPU clock read around it is the search's.
enum Call { case linear, whole, page }

func timed(_ provider: CatalogProvider, _ query: String, _ call: Call) async throws -> (cpu: Double, wall: Double, found: Int) {
    let wallStart = now()
    let cpuStart = cpuNow()
    let found: Int
    switch call {
    case .linear: found = try await provider.linearSearch(query: query, page: 0, pageSize: pageSize).count
    case .whole: found = try await provider.search(query: query, page: 0, pageSize: pageSize).count
    case .page:
        found = try await provider.searchPage(query: query, range: 0..<carPage, limit: pageSize)?.total ?? 0
    }
    return (Double(cpuNow() - cpuStart) / 1e3, Double(now() - wallStart) / 1e3, found)
}

func cpuNow() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

struct Samples {
    var cpu: [Double] = []
    var wall: [Double] = []
    var found = 0
    var slowest: [String: Double] = [:]
}

let samples = try await Task.detached { () async throws -> [Samples] in
    var samples = [Samples(), Samples(), Samples(), Samples(), Samples()]
    for _ in 0..<linearRounds {
        for query in queries {
            let (cpu, wall, found) = try await timed(large, query, .linear)
            samples[2].cpu.append(cpu)
            samples[2].wall.append(wall)
            samples[2].found += found
        }
    }
    for _ in 0..<rounds {
        for query in queries {
            for (index, (provider, call)) in [(demo, Call.whole), (large, .whole), (demo, .page), (large, .page)]
                .enumerated()
            {
                let index = index < 2 ? index : index + 1
                let (cpu, wall, found) = try await timed(provider, query, call)
                samples[index].cpu.append(cpu)
                samples[index].wall.append(wall)
                samples[index].found += found
                samples[index].slowest[query] = max(samples[index].slowest[query] ?? 0, cpu)
            }
        }
    }
    return samples
}.value

func format(_ value: Double) -> String { String(format: "%.1f", value) }
let names = [
    "demo, whole list", "large, whole list", "large, whole list before the index", "demo, page (counted)",
    "large, page (counted)",
]
for (name, sample) in zip(names, samples) where !sample.cpu.isEmpty {
    let cpu = sample.cpu.sorted()
    let wall = sample.wall.sorted()
    let what =
        name.contains("page")
        ? "pages of \(carPage) of \(pageSize) at most (\(sample.found) counted)"
        : "searches of \(pageSize) at most (\(sample.found) results)"
    print(
        "\(name): \(cpu.count) \(what): CPU p50 \(format(percentile(cpu, 0.5))) µs, "
            + "p99 \(format(percentile(cpu, 0.99))) µs; wall p50 \(format(percentile(wall, 0.5))) µs, p99 \(format(percentile(wall, 0.99))) µs"
    )
}
for (large, name) in [(1, "whole list"), (4, "page (counted)")] {
    let slowest = (samples[large].slowest.sorted { $0.value > $1.value }.prefix(3)).map { "'\($0.key)' \(format($0.value)) µs" }
    print("large, \(name), slowest queries (CPU, worst round): \(slowest.joined(separator: ", "))")
    let demoCPU = samples[large == 1 ? 0 : 3].cpu.sorted()
    let largeCPU = samples[large].cpu.sorted()
    print(
        "large ÷ demo, \(name), CPU: p50 \(format(percentile(largeCPU, 0.5) / percentile(demoCPU, 0.5)))×, "
            + "p99 \(format(percentile(largeCPU, 0.99) / percentile(demoCPU, 0.99)))×")
}
