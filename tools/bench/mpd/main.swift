// dashport-bench-mpd: what serving a large MPD library costs, next to the demo catalog, in one run.
//
//   swift build -c release --product dashport && swift run -c release dashport-bench-mpd [--help]
//
// A library of 20,000 songs in 2,000 albums (tiny tagged FLAC files, GeneratedLibrary) is written
// into a temporary folder and scanned by a real mpd (null output, real time). Then, each next to
// the same with the demo catalog:
// 1. connect → root tabs, and → root tabs plus the first page of Albums (in-process servers, the
//    two taking turns; the first car after start apart);
// 2. server CPU per GET_CHILDREN (process CPU minus the cars' thread), over every album once
//    (nothing cached yet), and over 50 albums again (cached), against the demo's lists; mpd's CPU
//    per request beside it;
// 3. time from MPD's `next` (any client: what `mpc next` sends) to every car's metadata, several
//    cars, against the demo player's NEXT from a car to every car's;
// 4. `dashport serve` memory (a child process) with that library, against the demo's.
// Speed is measured here, never in tests.
import DashportBenchSupport
import DashportCommandLine
import DashportMPD
import DashportMPDSource
import DashportMessages
import DashportServer
import Foundation

let spec = CommandSpec(
    name: "dashport-bench-mpd",
    summary: "A 20,000-song MPD library served to cars, next to the demo catalog, in one run.",
    options: [
        .value("albums", "N", "albums in the library, ten songs each (default 2000)"),
        .value("rounds", "N", "connects per library (default 20)"),
        .value("cars", "N", "cars told of each skip (default 8)"),
        .value("skips", "N", "skips per player (default 20)"),
        .value("dashport", "PATH", "the dashport executable for the memory phase (default: next to this one)"),
    ],
    epilogue: "Release build: swift build -c release --product dashport && swift run -c release dashport-bench-mpd")

let (albumCount, rounds, carCount, skips, dashportOption) = ParsedCommand.parseOrExit(program: "dashport-bench-mpd", as: spec) {
    parsed throws(CommandLineError) in
    (
        try parsed.integer("albums") ?? 2000, try parsed.integer("rounds") ?? 20, try parsed.integer("cars") ?? 8,
        try parsed.integer("skips") ?? 20, parsed.value("dashport")
    )
}

func progress(_ message: String) { FileHandle.standardError.write(Data("· \(message)\n".utf8)) }

let ownExecutable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let dashport = dashportOption ?? URL(fileURLWithPath: ownExecutable).deletingLastPathComponent().appendingPathComponent("dashport").path
let loadBefore = Machine.load()
let began = ContinuousClock.now
let work = NSTemporaryDirectory() + "dashport-bench-mpd-\(getpid())"
try FileManager.default.createDirectory(atPath: work + "/mpd", withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

func seconds(since start: ContinuousClock.Instant) -> Double { milliseconds(ContinuousClock.now - start) / 1000 }

do {
    progress("writing \(albumCount * 10) songs in \(albumCount) albums")
    var start = ContinuousClock.now
    let written = try GeneratedLibrary.generate(into: work + "/music", albums: albumCount, tracks: 10, scratch: work)
    let generateSeconds = seconds(since: start)
    start = ContinuousClock.now
    let mpd = try await BenchMPD.start(directory: work + "/mpd", music: work + "/music")
    defer { mpd.stop() }
    try await mpd.update()
    let scanSeconds = seconds(since: start)
    let mpdIdle = try MemorySample.read(pid: mpd.process.processIdentifier)
    progress("mpd scanned it in \(String(format: "%.1f", scanSeconds)) s")

    let cars = try await Cars.make()
    let library = try await Subject.start(name: "MPD, \(written.files) songs", state: work + "/state-mpd", mpd: mpd.socket)
    let demo = try await Subject.start(name: "demo catalog", state: work + "/state-demo", mpd: nil)

    progress("connect → root tabs → first page of Albums, \(rounds) rounds each, taking turns")
    let connect = try await connectPhase([library, demo], cars: cars, rounds: rounds)

    progress("CPU per browse request")
    let albumIds = (0..<albumCount).map {
        MPDLibraryId.album(albumArtist: GeneratedLibrary.artist($0), album: GeneratedLibrary.album($0)).id
    }
    let cold = try await cpuPerRequest(library.server, parents: albumIds, cars: cars, mpd: mpd)
    let warmIds = Array(albumIds.prefix(50))
    _ = try await cpuPerRequest(library.server, parents: warmIds, cars: cars, mpd: mpd)
    let warm = try await cpuPerRequest(library.server, parents: Array(repeating: warmIds, count: 10).flatMap { $0 }, cars: cars, mpd: mpd)
    let demoLists = try await browsableIds(demo.server, cars: cars, limit: 50)
    _ = try await cpuPerRequest(demo.server, parents: demoLists, cars: cars, mpd: nil)
    let demoCPU = try await cpuPerRequest(
        demo.server, parents: Array(repeating: demoLists, count: max(1, 500 / max(1, demoLists.count))).flatMap { $0 }, cars: cars,
        mpd: nil)

    progress("MPD's next → every car's metadata, \(carCount) cars, \(skips) skips")
    var mpdCars: [BenchCar] = []
    for _ in 0..<carCount { mpdCars.append(try await cars.connect(library.server.address)) }
    let control = try await mpd.connect()
    _ = try await control.run(list: [MPDCommand("clear"), MPDCommand("add", GeneratedLibrary.directory(0)), MPDCommand("repeat", "1")])
    _ = try await control.run(MPDCommand("play", "0"))
    let mpdSkips = try await skipPhase(cars: mpdCars, loop: cars.loop, skips: skips) {
        _ = try await control.run(MPDCommand("next"))
    }
    _ = try await control.run(MPDCommand("stop"))
    control.close()
    mpdCars.forEach { $0.abort() }

    progress("the demo player's NEXT from a car → every car's metadata")
    var demoCars: [BenchCar] = []
    for _ in 0..<carCount { demoCars.append(try await cars.connect(demo.server.address)) }
    // An album whose queue wraps (repeat all), so every NEXT moves to another song.
    demoCars[0].sendMedia(
        messageId: UInt16(DashportMedia.MessageId.playFromMediaId.rawValue),
        body: DashportMedia.PlayFromMediaId(requestId: 1_000_000, mediaId: "album-northern-lights").serializedBytes())
    demoCars[0].sendMedia(
        messageId: UInt16(DashportMedia.MessageId.playbackCommand.rawValue),
        body: DashportMedia.PlaybackCommand(requestId: 1_000_001, command: .setRepeatMode(.all)).serializedBytes())
    var requestId: UInt32 = 1_000_001
    let demoSkips = try await skipPhase(cars: demoCars, loop: cars.loop, skips: skips) {
        requestId += 1
        demoCars[0].sendMedia(
            messageId: UInt16(DashportMedia.MessageId.playbackCommand.rawValue),
            body: DashportMedia.PlaybackCommand(requestId: requestId, command: .skipToNext(DashportMedia.Empty())).serializedBytes())
    }
    demoCars.forEach { $0.abort() }
    await library.server.stop(grace: .seconds(1))
    await demo.server.stop(grace: .seconds(1))

    var memory: (mpd: ServeMemory, demo: ServeMemory)?
    if FileManager.default.isExecutableFile(atPath: dashport) {
        progress("memory of dashport serve (child processes)")
        let mpdMemory = try await serveMemory(
            executable: dashport, state: work + "/serve-mpd", mpd: mpd.socket, albums: Array(albumIds.prefix(50)),
            albumsTab: MPDLibraryId.tab(.albums).id, artistsTab: MPDLibraryId.tab(.artists).id, cars: cars)
        let demoMemory = try await serveMemory(
            executable: dashport, state: work + "/serve-demo", mpd: nil, albums: demoLists, albumsTab: "tab-albums",
            artistsTab: "tab-artists", cars: cars)
        memory = (mpdMemory, demoMemory)
    } else {
        progress("memory: skipped, no executable at \(dashport); build it: swift build -c release --product dashport")
    }

    print(
        "Machine: \(Machine.summary()); load average \(loadBefore) before, \(Machine.load()) after; "
            + String(format: "%.0f s in all.", seconds(since: began)))
    print(
        String(
            format: "Library: %d files (%.1f MB) written in %.2f s; mpd's scan %.1f s; mpd's RSS with it %@.\n", written.files,
            Double(written.bytes) / 1e6, generateSeconds, scanSeconds, formatMiB(kilobytes: mpdIdle.rss)))
    let (m, d) = (connect[0], connect[1])
    #if DEBUG
    let build = "debug build: figures for checking the benchmark only"
    #else
    let build = "release build"
    #endif
    print("| what (loopback, \(build)) | MPD library | demo catalog | × demo |")
    print("|---|---:|---:|---:|")
    func row(_ name: String, _ a: Double, _ b: Double) {
        print("| \(name) | \(formatMilliseconds(a)) | \(formatMilliseconds(b)) | \(formatRatio(a / b)) |")
    }
    row("connect → root tabs, first car after start", m.firstRoot, d.firstRoot)
    row(
        "connect → root tabs → first page of Albums (\(m.firstAlbumCount) / \(d.firstAlbumCount) rows), first car after start",
        m.firstAlbums, d.firstAlbums)
    row("connect → root tabs, median of \(rounds)", median(m.root), median(d.root))
    row(
        "connect → root tabs → first page of Albums (at least \(m.albumCount ?? 0) / \(d.albumCount ?? 0) rows), median", median(m.albums),
        median(d.albums))
    row("same, p90", percentile(m.albums, 0.9), percentile(d.albums, 0.9))
    row("server CPU per GET_CHILDREN, every album once (\(albumIds.count), uncached)", cold.server, demoCPU.server)
    row("server CPU per GET_CHILDREN, 50 albums again and again (cached)", warm.server, demoCPU.server)
    print("| mpd's CPU per GET_CHILDREN, uncached / cached | \(formatMilliseconds(cold.mpd)) / \(formatMilliseconds(warm.mpd)) | – | – |")
    row("skip → every car's metadata (\(carCount) cars), median of \(skips)", median(mpdSkips.last), median(demoSkips.last))
    row("same, p90", percentile(mpdSkips.last, 0.9), percentile(demoSkips.last, 0.9))
    row("skip → the first car's metadata, median", median(mpdSkips.first), median(demoSkips.first))
    if let memory {
        func mib(_ a: Int, _ b: Int) -> String {
            "| \(formatMiB(kilobytes: a)) | \(formatMiB(kilobytes: b)) | \(formatRatio(Double(a) / Double(b))) |"
        }
        print("| dashport serve RSS, connected to its library, idle " + mib(memory.mpd.idle.rss, memory.demo.idle.rss))
        print(
            "| dashport serve RSS after a car browsed Albums, Artists and 50 albums "
                + mib(memory.mpd.browsed.rss, memory.demo.browsed.rss))
        print("| dashport serve private (anonymous) memory, same " + mib(memory.mpd.browsed.anonymous, memory.demo.browsed.anonymous))
    }
    print(
        "\nSkip: MPD's `next` from another client (what `mpc next` sends) against the demo player's NEXT from a car; "
            + "CPU: the server's process minus the cars' reactor thread; the demo's lists are its \(demoLists.count) browsable ones, cached."
    )
} catch {
    FileHandle.standardError.write(Data("dashport-bench-mpd: \(error)\n".utf8))
    try? FileManager.default.removeItem(atPath: work)
    exit(1)
}
