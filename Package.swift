// swift-tools-version:6.0
// Dashport: the phone side of an Android-Auto-style link.
//
// The target list is the layer diagram (see README "How bytes flow"). A target imports only
// targets listed above it in its own layer or in the layers below:
//
//   C wrappers      CDashportSSL  CDashportZlib  CDashportLinux  CDashportVips  CDashportCurl  CAAPProto (protoc-c output)
//                   CDashportGLib + CDashportVipsCheck (vips' declarations checked against its headers, tests only)
//                   CDashportFunctionFS (kernel headers)  CDashportUSB (libusb-1.0)
//   Support         DashportThread (the one way to start a thread: pthreads, no Foundation)
//                   DashportLog  DashportClock (the one time seam)
//                   DashportFiles (atomic writes, non-blocking state-file reads, 0700 directories)
//                   DashportDigest (SHA-256 from libcrypto, CRC-32 from zlib, hex renderings)
//                   DashportCommandLine (the option table behind every command line, --help and config file)
//                   DashportRandom (SplitMix64: the one seeded generator of shuffles, fuzz splits and tests)
//   Messages        DashportMessages   (generated Swift wrappers over CAAPProto)
//   Frames          DashportFrames
//   TLS             DashportTLS
//   Link            DashportLink       (phone role)      DashportHeadUnit (car role, for tools and tests)
//                   DashportRecording  (session recordings: format, recorder tap, comparison)
//   Core            DashportBrowse  DashportArtwork  DashportSession
//   Services        DashportServices   (sans-IO AAP + Dashport media channel services)
//                   DashportControl    (sans-IO line protocol of the local control socket, `dashport ctl`)
//                   DashportMPD        (MPD's line protocol, sans-IO codec + connections on the transport's reactor)
//                   DashportMPDSource  (MPD's database as the browse provider, MPD as the session's player)
//   Transport       DashportTransport  (TCP over epoll; moves bytes only)
//                   DashportUSB        (USB gadget over FunctionFS: AOA on ep0, bulk byte streams)
//                   DashportUSBHost    (the car's USB side over libusb, for the emulator)
//                   DashportHTTP       (a small HTTP/1.1 server on the reactor: sans-IO parser, SSE, fixed routes)
//   Server          DashportServer     (wires a transport connection to the sans-IO stack and the core)
//                   DashportEmulator   (the same for the car role: HeadUnitClient, the emulator's shell)
//                   DashportWebEmulator (`dashport-hu web`: the emulator's car behind a page, over DashportHTTP)
//   Executables     dashport (Sources/dashport), dashport-hu (tools/dashport-hu)
//   Test support    DashportTestSupport (manual clock, TLS identities, loopback server fixture, waits, emulated shell,
//                   headless Chromium over the DevTools pipe),
//                   DashportFuzzSupport (tools/fuzz/Support: how a driver reports a broken invariant, its input reader),
//                   DashportFuzzLinkDrivers (tools/fuzz/Link: the link's fuzz drivers) and
//                   DashportFuzzDrivers (tools/fuzz/Drivers: the others), which the fuzz targets run and the tests replay
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // Keep the code honest about what it depends on, as hummingbird does: every existential says
    // `any`, an import is internal unless it says `public`/`package`, and a member is visible only
    // where its module is imported.
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The link fuzz targets' sanitizer build only (`tools/fuzz/run` sets DASHPORT_FUZZ_LEAN_MESSAGES
/// for FuzzLink, FuzzLinkRunning and FuzzLinkStream, building them apart in .build-fuzz/link):
/// DashportMessages' generated wrappers get a coverage counter per function rather than per edge
/// and no comparison hooks. libFuzzer scans and resets every counter of the binary after each
/// input, and the wrappers had 81,903 of the link targets' counters, the link's own code a small
/// part of them (issue 23 item 8). FuzzMessages, which fuzzes the wrappers, keeps their edges;
/// every other build is unchanged.
let leanMessagesCoverage: [SwiftSetting] =
    Context.environment["DASHPORT_FUZZ_LEAN_MESSAGES"] == "1"
    ? [.unsafeFlags(["-sanitize-coverage=func,inline-8bit-counters,pc-table"])] : []

let package = Package(
    name: "Dashport",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "dashport", targets: ["dashport"]),
        .executable(name: "dashport-hu", targets: ["dashport-hu"]),
    ],
    targets: [
        // MARK: C libraries from Debian, each behind one Swift wrapper target.
        .systemLibrary(name: "CDashportSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CDashportZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDashportLinux"),
        .systemLibrary(name: "CDashportFunctionFS"),
        .systemLibrary(name: "CDashportUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        // libcurl through a C target of Dashport's own wrappers that opens it (dlopen) before the
        // first download instead of linking it: an idle server does not map it and its ~25
        // dependencies (issue 10, item 6). Its headers come from libcurl4-openssl-dev (tools/setup).
        .target(name: "CDashportCurl"),
        // libvips through a C target of Dashport's own wrappers, not `.systemLibrary(pkgConfig: "vips")`:
        // vips' pkg-config flags carry `-pthread`, which SwiftPM rejects with a warning. libvips is not
        // linked: the wrapper opens it (dlopen) when the first cover is scaled, so an idle server does
        // not map it and its ~100 dependencies (issue 10, item 6). The functions it calls are
        // declared by hand (vips_abi.h), not from vips' headers: those need GLib's include paths from
        // pkg-config, and with them SwiftPM links GLib, GObject, libffi and PCRE2 into the server.
        // CDashportVipsCheck compiles those declarations against the real headers (through
        // CDashportGLib) when the tests are built.
        .systemLibrary(name: "CDashportGLib", pkgConfig: "gobject-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "CDashportVips"),
        .target(name: "CDashportVipsCheck", dependencies: ["CDashportGLib"]),
        .target(
            name: "CAAPProto",
            linkerSettings: [.linkedLibrary("protobuf-c")]
        ),

        // MARK: Support
        .target(name: "DashportThread", dependencies: ["CDashportLinux"], swiftSettings: strict),
        .target(name: "DashportLog", dependencies: ["DashportThread", "DashportClock"], swiftSettings: strict),
        .target(name: "DashportClock", swiftSettings: strict),
        .target(name: "DashportFiles", swiftSettings: strict),
        .target(name: "DashportCommandLine", swiftSettings: strict),
        .target(name: "DashportRandom", swiftSettings: strict),
        .target(name: "DashportDigest", dependencies: ["CDashportSSL", "CDashportZlib"], swiftSettings: strict),

        // MARK: Sans-IO protocol stack
        .target(name: "DashportMessages", dependencies: ["CAAPProto"], swiftSettings: strict + leanMessagesCoverage),
        .target(name: "DashportFrames", swiftSettings: strict),
        .target(name: "DashportTLS", dependencies: ["CDashportSSL", "DashportLog", "DashportDigest"], swiftSettings: strict),
        .target(
            name: "DashportLink",
            dependencies: ["DashportFrames", "DashportTLS", "DashportMessages", "DashportLog", "DashportDigest"],
            swiftSettings: strict
        ),
        .target(
            name: "DashportHeadUnit",
            dependencies: ["DashportFrames", "DashportTLS", "DashportMessages", "DashportLink", "DashportLog", "DashportDigest"],
            swiftSettings: strict
        ),

        .target(
            // Session recordings (issue 9): the JSON-lines format, the recorder behind a link tap,
            // volatile fields and body comparison. Sans-IO apart from reading and writing a file.
            name: "DashportRecording",
            dependencies: ["DashportMessages", "DashportLink", "DashportClock", "DashportDigest", "DashportFiles"],
            swiftSettings: strict
        ),

        // MARK: Core (async Swift behind a narrow seam)
        .target(
            name: "DashportBrowse", dependencies: ["DashportClock", "DashportLog", "DashportFiles", "DashportDigest", "CDashportLinux"],
            swiftSettings: strict
        ),
        .target(
            name: "DashportArtwork",
            dependencies: ["CDashportVips", "CDashportCurl", "DashportClock", "DashportLog", "DashportFiles", "DashportDigest"],
            swiftSettings: strict),
        .target(
            name: "DashportSession", dependencies: ["DashportBrowse", "DashportClock", "DashportLog", "DashportFiles", "DashportRandom"],
            swiftSettings: strict),

        // MARK: Services (sans-IO, on top of the link, asking the core through events)
        .target(
            name: "DashportServices",
            dependencies: [
                "DashportLink", "DashportMessages", "DashportBrowse", "DashportSession", "DashportClock", "DashportLog", "DashportDigest",
            ],
            swiftSettings: strict
        ),

        .target(name: "DashportControl", dependencies: ["DashportSession"], swiftSettings: strict),

        // MARK: MPD client (issue 19): sans-IO codec of MPD's line protocol + connections on the reactor
        .target(
            name: "DashportMPD", dependencies: ["DashportTransport", "DashportClock", "DashportLog"], swiftSettings: strict),
        .target(
            // MPD's database as the browse provider and MPD as the session's player (issue 19).
            name: "DashportMPDSource",
            dependencies: [
                "DashportMPD", "DashportBrowse", "DashportSession", "DashportClock", "DashportLog", "DashportDigest", "DashportFiles",
            ],
            swiftSettings: strict),

        // MARK: Transport and server
        .target(name: "DashportTransport", dependencies: ["CDashportLinux", "DashportThread", "DashportLog"], swiftSettings: strict),
        .target(
            // A small HTTP/1.1 server on the reactor (issue 20): sans-IO request parser, response
            // and server-sent-event encoders, a fixed route table; loopback only unless allowed.
            name: "DashportHTTP", dependencies: ["DashportTransport", "DashportLog"], swiftSettings: strict),
        .target(
            name: "DashportUSB",
            dependencies: ["CDashportFunctionFS", "DashportTransport", "DashportThread", "DashportClock", "DashportLog"],
            swiftSettings: strict),
        .target(
            name: "DashportUSBHost", dependencies: ["CDashportUSB", "DashportUSB", "DashportTransport", "DashportClock", "DashportLog"],
            swiftSettings: strict),
        .target(
            name: "DashportServer",
            dependencies: [
                "CDashportLinux", "DashportTransport", "DashportUSB", "DashportLink", "DashportServices", "DashportControl", "DashportTLS",
                "DashportRecording",
                "DashportBrowse", "DashportArtwork", "DashportSession", "DashportClock", "DashportLog",
                "DashportFiles", "DashportDigest", "DashportCommandLine", "DashportMPD", "DashportMPDSource", "DashportThread",
            ],
            swiftSettings: strict
        ),

        // MARK: Executables
        .executableTarget(
            name: "dashport",
            dependencies: ["DashportServer", "DashportBrowse", "DashportControl", "DashportCommandLine", "DashportFiles"],
            swiftSettings: strict,
            // An idle server's resident pages (issue 10, item 6; the server's DocC, *Memory*): lld
            // (shipped with the toolchain) packs the ~49,000 relative relocations of the PIE into
            // DT_RELR (10 KiB instead of a 1.1 MiB table read at every start; needs glibc 2.36,
            // Debian 12), and the executable exports no symbols (--static-swift-stdlib's link
            // arguments export all of ours: 12,000 symbols, 1 MiB of tables).
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])
            ]),
        .target(
            // The head-unit emulator's IO half: HeadUnitClient drives the sans-IO car-role link over a
            // transport; the browse shell, scripts and screens of `dashport-hu` sit on it.
            name: "DashportEmulator",
            dependencies: [
                "DashportHeadUnit", "DashportRecording", "DashportTransport", "DashportTLS", "DashportMessages", "DashportLink",
                "DashportClock", "DashportLog", "DashportFiles", "DashportDigest", "DashportThread",
            ],
            swiftSettings: strict
        ),
        .target(
            // `dashport-hu web` (issue 20): the car-role stack behind a page served by DashportHTTP,
            // its pushes as server-sent events, the page's files embedded.
            name: "DashportWebEmulator",
            dependencies: [
                "DashportEmulator", "DashportHTTP", "DashportHeadUnit", "DashportRecording", "DashportMessages", "DashportLink",
                "DashportLog",
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-hu",
            dependencies: [
                "DashportWebEmulator", "DashportHTTP", "DashportEmulator", "DashportHeadUnit", "DashportTransport", "DashportUSBHost",
                "DashportLink", "DashportClock",
                "DashportLog", "DashportCommandLine", "DashportRecording", "DashportTLS",
            ],
            path: "tools/dashport-hu",
            swiftSettings: strict
        ),
        .target(
            // What the benchmarks share: the Dashport car that connects and browses over TCP,
            // CPU time by thread, resident memory, statistics and the machine's description.
            name: "DashportBenchSupport",
            dependencies: ["DashportHeadUnit", "DashportLink", "DashportMessages", "DashportTLS", "DashportTransport"],
            path: "tools/bench/support",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-link",
            dependencies: [
                "DashportBenchSupport", "DashportServer", "DashportHeadUnit", "DashportLink", "DashportMessages", "DashportTLS",
                "DashportTransport", "DashportBrowse", "DashportLog", "DashportCommandLine",
            ],
            path: "tools/bench/link",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-audio",
            dependencies: [
                "DashportBenchSupport", "DashportServer", "DashportHeadUnit", "DashportLink", "DashportMessages", "DashportTLS",
                "DashportTransport", "DashportSession", "DashportServices", "DashportClock", "DashportLog", "DashportCommandLine",
                "CDashportLinux",
            ],
            path: "tools/bench/audio",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-codec",
            dependencies: ["DashportMessages", "CAAPProto", "DashportCommandLine"],
            path: "tools/bench/codec",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-search",
            dependencies: ["DashportBrowse", "DashportCommandLine"],
            path: "tools/bench/search",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-mpd",
            dependencies: [
                "DashportBenchSupport", "DashportServer", "DashportHeadUnit", "DashportMessages", "DashportTLS", "DashportTransport",
                "DashportMPD", "DashportMPDSource", "DashportClock", "DashportCommandLine", "DashportLink", "DashportLog",
            ],
            path: "tools/bench/mpd",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-artwork",
            dependencies: ["DashportArtwork", "CDashportVips", "DashportCommandLine"],
            path: "tools/bench/artwork",
            swiftSettings: strict
        ),

        // MARK: Soak (tools/soak): emulated cars cycling against a server, sampling its resources
        .target(
            name: "DashportSoak",
            dependencies: ["DashportEmulator", "DashportHeadUnit", "DashportMessages", "DashportTLS", "DashportTransport"],
            path: "tools/soak/DashportSoak",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-soak",
            dependencies: ["DashportSoak", "DashportTransport"],
            path: "tools/soak/dashport-soak",
            swiftSettings: strict
        ),

        // MARK: Fuzz targets (libFuzzer entry points; no-op programs in a plain build)
        .executableTarget(
            name: "FuzzMessages",
            dependencies: ["DashportMessages"],
            path: "tools/fuzz/FuzzMessages",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzFrames",
            dependencies: ["DashportFrames", "DashportRandom"],
            path: "tools/fuzz/FuzzFrames",
            swiftSettings: strict
        ),
        // The drivers the fuzz targets run and the replay tests replay: one copy, imported by both.
        // One library per area, so that a target links only the modules it fuzzes: libFuzzer scans
        // and resets every coverage counter of the binary after each input (issue 23 item 8).
        .target(name: "DashportFuzzSupport", path: "tools/fuzz/Support", swiftSettings: strict),
        .target(
            name: "DashportFuzzLinkDrivers",
            dependencies: [
                "DashportFuzzSupport", "DashportLink", "DashportHeadUnit", "DashportTLS", "DashportFrames", "DashportMessages",
                "DashportRandom",
            ],
            path: "tools/fuzz/Link",
            swiftSettings: strict
        ),
        // The browse layer's (catalog reading, search): FuzzBrowse and FuzzSearch link DashportBrowse
        // and what it imports, not the services' modules (DashportMessages' generated wrappers alone
        // had 81,903 of their counters).
        .target(
            name: "DashportFuzzBrowseDrivers",
            dependencies: ["DashportFuzzSupport", "DashportBrowse"],
            path: "tools/fuzz/Browse",
            swiftSettings: strict
        ),
        .target(
            name: "DashportFuzzDrivers",
            dependencies: [
                "DashportFuzzSupport", "DashportMessages", "DashportServices", "DashportSession", "DashportBrowse", "DashportClock",
                "DashportControl", "DashportRandom", "DashportMPD", "DashportHTTP",
            ],
            path: "tools/fuzz/Drivers",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzLink",
            dependencies: ["DashportFuzzLinkDrivers"],
            path: "tools/fuzz/FuzzLink",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzLinkRunning",
            dependencies: ["DashportFuzzLinkDrivers"],
            path: "tools/fuzz/FuzzLinkRunning",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzLinkStream",
            dependencies: ["DashportFuzzLinkDrivers"],
            path: "tools/fuzz/FuzzLinkStream",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzServices",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzServices",
            swiftSettings: strict
        ),
        .executableTarget(name: "FuzzUSB", dependencies: ["DashportUSB"], path: "tools/fuzz/FuzzUSB", swiftSettings: strict),

        .executableTarget(
            name: "FuzzBrowse",
            dependencies: ["DashportFuzzBrowseDrivers"],
            path: "tools/fuzz/FuzzBrowse",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzControl",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzControl",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzSession",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzSession",
            swiftSettings: strict
        ),

        .executableTarget(
            name: "FuzzMPD",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzMPD",
            swiftSettings: strict
        ),

        .executableTarget(
            name: "FuzzHTTP",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzHTTP",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzSearch",
            dependencies: ["DashportFuzzBrowseDrivers"],
            path: "tools/fuzz/FuzzSearch",
            swiftSettings: strict
        ),

        // MARK: Test support (one target every test suite shares)
        .target(
            name: "DashportTestSupport",
            dependencies: [
                "DashportFuzzSupport", "DashportClock", "DashportTLS", "DashportServer", "DashportEmulator", "DashportHeadUnit",
                "DashportBrowse", "DashportArtwork", "DashportLog", "DashportMPD", "DashportSession", "DashportTransport",
                "DashportThread", "CDashportLinux", "DashportBenchSupport",
            ],
            swiftSettings: strict
        ),

        // MARK: Tests (Swift Testing only)
        .testTarget(
            name: "DashportMessagesTests",
            dependencies: ["DashportTestSupport", "DashportMessages"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportFramesTests",
            dependencies: ["DashportTestSupport", "DashportFrames", "DashportRandom"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            // The option tables of the tools (the executables' modules, imported for testing).
            name: "DashportToolsTests",
            dependencies: [
                "dashport-hu", "dashport-bench-link", "dashport-bench-audio", "DashportBenchSupport", "DashportCommandLine",
                "DashportUSBHost", "DashportEmulator", "DashportHeadUnit", "DashportLog",
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportCommandLineTests", dependencies: ["DashportCommandLine"], swiftSettings: strict),
        .testTarget(name: "DashportDigestTests", dependencies: ["DashportDigest"], swiftSettings: strict),
        .testTarget(
            name: "DashportFilesTests",
            dependencies: ["DashportTestSupport", "DashportFiles", "DashportServer", "DashportTLS", "DashportSession"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportTLSTests",
            dependencies: ["DashportTestSupport", "DashportClock", "DashportTLS", "DashportLog", "CDashportSSL", "DashportDigest"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportLinkTests",
            dependencies: [
                "DashportFuzzLinkDrivers", "DashportTestSupport", "DashportClock", "DashportLink", "DashportHeadUnit", "DashportTLS",
                "DashportFrames", "DashportMessages", "DashportDigest", "DashportRandom",
            ],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportHeadUnitTests",
            dependencies: [
                "DashportTestSupport", "DashportClock", "DashportHeadUnit", "DashportEmulator", "DashportTransport", "DashportMessages",
                "DashportTLS", "DashportLink", "DashportServer", "DashportLog", "DashportDigest", "DashportRecording",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportLogTests", dependencies: ["DashportLog", "DashportClock", "DashportTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DashportBrowseTests",
            dependencies: ["DashportTestSupport", "DashportClock", "DashportBrowse", "DashportFiles", "DashportFuzzBrowseDrivers"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportArtworkTests",
            dependencies: ["DashportTestSupport", "DashportClock", "DashportArtwork", "DashportFiles", "CDashportVipsCheck"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportSessionTests",
            dependencies: [
                "DashportFuzzDrivers", "DashportTestSupport", "DashportClock", "DashportSession", "DashportBrowse", "DashportLog",
                "DashportRandom",
            ],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportServicesTests",
            dependencies: [
                "DashportFuzzDrivers", "DashportTestSupport", "DashportClock", "DashportServices", "DashportMessages", "DashportSession",
                "DashportBrowse", "DashportLog", "DashportRandom",
            ],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportRecordingTests", dependencies: ["DashportRecording", "DashportMessages"], swiftSettings: strict),
        .testTarget(
            name: "DashportSoakTests",
            dependencies: ["DashportSoak", "DashportServer", "DashportTransport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportHTTPTests",
            dependencies: ["DashportFuzzDrivers", "DashportTestSupport", "DashportHTTP", "DashportTransport", "DashportLog"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportWebEmulatorTests",
            dependencies: [
                "DashportTestSupport", "DashportWebEmulator", "DashportHTTP", "DashportEmulator", "DashportHeadUnit", "DashportTransport",
                "DashportServer",
                "DashportLog",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DashportTransportTests", dependencies: ["DashportTestSupport", "DashportTransport", "CDashportLinux"],
            swiftSettings: strict),
        .testTarget(
            name: "DashportUSBTests",
            dependencies: [
                "DashportUSB", "DashportUSBHost", "DashportTransport", "DashportServer", "DashportHeadUnit", "DashportBrowse",
                "DashportEmulator", "DashportLink", "DashportLog", "DashportTLS", "DashportClock", "DashportTestSupport",
            ],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportControlTests",
            dependencies: ["DashportFuzzDrivers", "DashportTestSupport", "DashportControl", "DashportSession"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportMPDTests",
            dependencies: [
                "DashportFuzzDrivers", "DashportTestSupport", "DashportBenchSupport", "DashportBrowse", "DashportMPD", "DashportMPDSource",
                "DashportSession", "DashportClock",
                "DashportLog",
                "DashportTransport",
            ],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            // Headless Chromium over the DevTools pipe (DashportTestSupport's BrowserHarness): the
            // harness itself, and the web head-unit emulator's page against a real server (issue 20).
            name: "DashportWebTests",
            dependencies: [
                "DashportTestSupport", "DashportWebEmulator", "DashportHTTP", "DashportEmulator", "DashportHeadUnit", "DashportServer",
                "DashportArtwork", "DashportTransport", "DashportLog",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportServerTests",
            dependencies: [
                "DashportTestSupport", "DashportClock", "DashportServer", "DashportEmulator", "DashportRecording", "DashportHeadUnit",
                "DashportTransport", "DashportArtwork", "DashportMessages", "DashportLink", "DashportLog", "DashportTLS", "DashportFrames",
                "DashportBrowse", "DashportFiles", "DashportCommandLine", "DashportControl", "DashportSession", "DashportMPD",
                "DashportMPDSource", "DashportThread",
            ],
            swiftSettings: strict
        ),
    ]
)
