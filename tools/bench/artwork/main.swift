// dashport-bench-artwork: what a cover costs through ArtworkService, next to the usual tools.
//
//   swift run -c release dashport-bench-artwork [--runs N]
//
// Makes a 3000x3000 JPEG (ImageMagick plasma:fractal), serves it from a loopback HTTP server,
// and measures, in one run, side by side:
//   - ArtworkService cold: registry + download + libvips shrink-on-load to 256 px + encode (the
//     answer; the cache writes follow it on another thread, awaited between rounds, not timed)
//   - ArtworkService warm: the same request again, answered from the disk cache
//   - libvips in process (the C wrapper ArtworkService uses, file to 256 px JPEG, no download)
//   - `vipsthumbnail` and ImageMagick `convert -thumbnail` as processes on the same file
// and prints medians and ratios as a Markdown table. Needs libvips-tools and imagemagick
// (`tools/setup --bench`). Speed is measured here, never in tests.
import CDashportVips
import DashportArtwork
import DashportCommandLine
import Foundation

let spec = CommandSpec(
    name: "dashport-bench-artwork",
    summary: "What a cover costs through ArtworkService, next to libvips, vipsthumbnail and ImageMagick.",
    options: [.value("runs", "N", "requests per method; medians are reported (default 11)")],
    epilogue: "Needs libvips-tools and imagemagick: tools/setup --bench")

let runs = ParsedCommand.parseOrExit(program: "dashport-bench-artwork", as: spec) { parsed throws(CommandLineError) in
    try parsed.integer("runs") ?? 11
}
let workDirectory = NSTemporaryDirectory() + "dashport-bench-artwork-\(getpid())"
try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)

/// The real ImageMagick (a stand-in `convert` may come first on PATH).
let convert = ["/usr/bin/convert", "/usr/local/bin/convert"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "convert"
let vipsthumbnail = "/usr/bin/vipsthumbnail"

@discardableResult
func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return milliseconds(ContinuousClock.now - start)
}

// MARK: The test image and a loopback server for it

let big = workDirectory + "/big.jpg"
guard try run(convert, ["-size", "3000x3000", "plasma:fractal", "-quality", "90", big]) == 0,
    let original = FileManager.default.contents(atPath: big)
else {
    print("dashport-bench-artwork: cannot make the test image with \(convert); run tools/setup --bench")
    exit(1)
}
let server = try BenchHTTPServer(body: Array(original))

// MARK: Measurements

var configuration = ArtworkConfiguration(roots: [workDirectory], cacheDirectory: workDirectory + "/cache")
configuration.allowPlainHTTP = true  // loopback only
let service = ArtworkService(configuration: configuration)

// One request first so libvips' start-up (~20 ms, once per process) is not counted as "cold".
guard let primer = await service.register("http://127.0.0.1:\(server.port)/primer.jpg"),
    let warmKey = await service.register("http://127.0.0.1:\(server.port)/warm.jpg")
else {
    print("dashport-bench-artwork: the service refused the loopback URL")
    exit(1)
}
_ = try await service.image(for: primer, width: 256, height: 256)

// The methods take turns within each round, so a busy moment on a shared machine hits them alike.
var request = 0
var cold: [Double] = []
var inProcess: [Double] = []
var checked: [Double] = []
var thumbnailer: [Double] = []
var magick: [Double] = []
var magickHinted: [Double] = []
for _ in 0..<runs {
    request += 1  // a new URI each time: a new key, so a new download and resize
    guard let key = await service.register("http://127.0.0.1:\(server.port)/cover-\(request).jpg") else { exit(1) }
    cold.append(try await time { _ = try await service.image(for: key, width: 256, height: 256) })
    // The cover was answered before its cache files were written (on another thread): that
    // write finishes here, outside the timing, so it does not run into the next method's.
    await service.settled()
    inProcess.append(
        await time {
            var out = dashport_vips_thumbnail_result()
            var error = [CChar](repeating: 0, count: 256)
            if dashport_vips_thumbnail_file(big, 256, 256, 85, &out, &error, error.count) == DASHPORT_VIPS_OK {
                dashport_vips_free(out.bytes)
            }
        })
    checked.append(
        await time {
            var probe = dashport_vips_probe_result()
            var out = dashport_vips_thumbnail_result()
            var error = [CChar](repeating: 0, count: 256)
            let fd = open(big, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            if dashport_vips_thumbnail_descriptor(fd, 100_000_000, 256, 256, 85, &probe, &out, &error, error.count) == DASHPORT_VIPS_OK {
                dashport_vips_free(out.bytes)
            }
        })
    thumbnailer.append(try await time { try run(vipsthumbnail, [big, "-s", "256x256", "-o", workDirectory + "/vips.jpg[Q=85]"]) })
    magick.append(try await time { try run(convert, [big, "-thumbnail", "256x256", "-quality", "85", workDirectory + "/magick.jpg"]) })
    magickHinted.append(
        try await time {
            try run(
                convert, ["-define", "jpeg:size=512x512", big, "-thumbnail", "256x256", "-quality", "85", workDirectory + "/hinted.jpg"])
        })
}
_ = try await service.image(for: warmKey, width: 256, height: 256)
await service.settled()  // warm means from the disk cache: its file is in
var warm: [Double] = []
for _ in 0..<max(runs, 1000) {
    warm.append(try await time { _ = try await service.image(for: warmKey, width: 256, height: 256) })
}
server.stop()
try? FileManager.default.removeItem(atPath: workDirectory)

// MARK: Report

let reference = median(cold)
let rows: [(String, [Double])] = [
    ("ArtworkService, cold (loopback download + downscale; the cache write follows the answer)", cold),
    ("ArtworkService, warm (disk cache hit)", warm),
    ("libvips in process (file → 256 px, the wrapper ArtworkService uses)", inProcess),
    ("libvips in process, header check and thumbnail on one descriptor (what ArtworkService calls)", checked),
    ("`vipsthumbnail` process", thumbnailer),
    ("ImageMagick `convert -thumbnail` process", magick),
    ("ImageMagick `convert -define jpeg:size=512x512 -thumbnail` process", magickHinted),
]
print(
    "3000×3000 JPEG (\(original.count / 1024) KiB) → 256 px JPEG Q85, release build, median of \(runs) interleaved runs (warm: \(max(runs, 1000)))\n"
)
print("| what | median | × ArtworkService cold |")
print("|---|---:|---:|")
for (name, samples) in rows {
    let value = median(samples)
    let shown = value < 1 ? String(format: "%.3f ms", value) : String(format: "%.1f ms", value)
    print("| \(name) | \(shown) | \(String(format: "%.2f", value / reference)) |")
}
// Each round's cold request over the libvips call right after it: a busy moment of a shared
// machine hits both of one round, so this ratio moves less than the ratio of the medians.
let ratios = zip(cold, inProcess).map { $0 / $1 }.sorted()
if !ratios.isEmpty {
    let quartile = { (fraction: Double) in ratios[min(ratios.count - 1, Int(Double(ratios.count) * fraction))] }
    print(
        "\nArtworkService cold ÷ libvips in process, per round: median \(String(format: "%.2f", median(ratios)))×"
            + " (quartiles \(String(format: "%.2f", quartile(0.25)))–\(String(format: "%.2f", quartile(0.75))))")
}
