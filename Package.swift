// swift-tools-version:6.0
// Dashport: the phone side of an Android-Auto-style link.
//
// The target list is the layer diagram (see README "How bytes flow"). A target imports only
// targets listed above it in its own layer or in the layers below:
//
//   C wrappers      CDashportSSL  CDashportZlib  CDashportLinux  CDashportVips  CAAPProto (protoc-c output)
//   Support         DashportLog  DashportClock (the one time seam)
//                   DashportFiles (atomic writes, non-blocking state-file reads, 0700 directories)
//                   DashportDigest (SHA-256 from libcrypto, CRC-32 from zlib, hex renderings)
//                   DashportCommandLine (the option table behind every command line, --help and config file)
//   Messages        DashportMessages   (generated Swift wrappers over CAAPProto)
//   Frames          DashportFrames
//   TLS             DashportTLS
//   Link            DashportLink       (phone role)      DashportHeadUnit (car role, for tools and tests)
//   Core            DashportBrowse  DashportArtwork  DashportSession
//   Services        DashportServices   (sans-IO AAP + Dashport media channel services)
//   Transport       DashportTransport  (TCP over epoll; moves bytes only)
//   Server          DashportServer     (wires a transport connection to the sans-IO stack and the core)
//                   DashportEmulator   (the same for the car role: HeadUnitClient, the emulator's shell)
//   Executables     dashport (Sources/dashport), dashport-hu (tools/dashport-hu)
//   Test support    DashportTestSupport (manual clock, TLS identities, loopback server fixture, polling),
//                   DashportFuzzDrivers (tools/fuzz/Drivers: the fuzz drivers the tests replay)
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

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
        // libvips through a C target of Dashport's own wrappers, not `.systemLibrary(pkgConfig: "vips")`:
        // vips' pkg-config flags carry `-pthread`, which SwiftPM rejects with a warning. Only the .c file
        // sees glib's headers; the public header has plain C types.
        .target(
            name: "CDashportVips",
            cSettings: [
                .unsafeFlags([
                    "-I/usr/include/glib-2.0",
                    "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include",
                    "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
                    "-I/usr/lib/arm-linux-gnueabihf/glib-2.0/include",
                ]),
            ],
            linkerSettings: [.linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        .target(
            name: "CAAPProto",
            linkerSettings: [.linkedLibrary("protobuf-c")]
        ),

        // MARK: Support
        .target(name: "DashportLog", swiftSettings: strict),
        .target(name: "DashportClock", swiftSettings: strict),
        .target(name: "DashportFiles", swiftSettings: strict),
        .target(name: "DashportCommandLine", swiftSettings: strict),
        .target(name: "DashportDigest", dependencies: ["CDashportSSL", "CDashportZlib"], swiftSettings: strict),

        // MARK: Sans-IO protocol stack
        .target(name: "DashportMessages", dependencies: ["CAAPProto"], swiftSettings: strict),
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

        // MARK: Core (async Swift behind a narrow seam)
        .target(name: "DashportBrowse", dependencies: ["DashportClock", "DashportLog", "DashportFiles", "DashportDigest"], swiftSettings: strict),
        .target(name: "DashportArtwork", dependencies: ["CDashportVips", "DashportClock", "DashportLog", "DashportFiles", "DashportDigest"], swiftSettings: strict),
        .target(name: "DashportSession", dependencies: ["DashportBrowse", "DashportClock", "DashportLog", "DashportFiles"], swiftSettings: strict),

        // MARK: Services (sans-IO, on top of the link, asking the core through events)
        .target(
            name: "DashportServices",
            dependencies: ["DashportLink", "DashportMessages", "DashportBrowse", "DashportSession", "DashportClock", "DashportLog", "DashportDigest"],
            swiftSettings: strict
        ),

        // MARK: Transport and server
        .target(name: "DashportTransport", dependencies: ["CDashportLinux", "DashportLog"], swiftSettings: strict),
        .target(
            name: "DashportServer",
            dependencies: [
                "DashportTransport", "DashportLink", "DashportServices", "DashportTLS",
                "DashportBrowse", "DashportArtwork", "DashportSession", "DashportClock", "DashportLog",
                "DashportFiles", "DashportDigest", "DashportCommandLine",
            ],
            swiftSettings: strict
        ),

        // MARK: Executables
        .executableTarget(name: "dashport", dependencies: ["DashportServer", "DashportCommandLine"], swiftSettings: strict),
        .target(
            // The head-unit emulator's IO half: HeadUnitClient drives the sans-IO car-role link over a
            // transport; the browse shell, scripts and screens of `dashport-hu` sit on it.
            name: "DashportEmulator",
            dependencies: ["DashportHeadUnit", "DashportTransport", "DashportTLS", "DashportMessages", "DashportLink", "DashportLog", "DashportFiles", "DashportDigest"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-hu",
            dependencies: ["DashportEmulator", "DashportHeadUnit", "DashportTransport", "DashportLink", "DashportLog", "DashportCommandLine"],
            path: "tools/dashport-hu",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-link",
            dependencies: [
                "DashportServer", "DashportHeadUnit", "DashportLink", "DashportMessages", "DashportTLS",
                "DashportTransport", "DashportBrowse", "DashportLog", "DashportCommandLine",
            ],
            path: "tools/bench/link",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "dashport-bench-artwork",
            dependencies: ["DashportArtwork", "CDashportVips", "DashportCommandLine"],
            path: "tools/bench/artwork",
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
            dependencies: ["DashportFrames"],
            path: "tools/fuzz/FuzzFrames",
            swiftSettings: strict
        ),
        // The drivers the fuzz targets run and the replay tests replay: one copy, imported by both.
        .target(
            name: "DashportFuzzDrivers",
            dependencies: [
                "DashportLink", "DashportHeadUnit", "DashportTLS", "DashportFrames", "DashportMessages",
                "DashportServices", "DashportSession", "DashportBrowse", "DashportClock",
            ],
            path: "tools/fuzz/Drivers",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzLink",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzLink",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzServices",
            dependencies: ["DashportFuzzDrivers"],
            path: "tools/fuzz/FuzzServices",
            swiftSettings: strict
        ),

        // MARK: Test support (one target every test suite shares)
        .target(
            name: "DashportTestSupport",
            dependencies: ["DashportFuzzDrivers", "DashportClock", "DashportTLS", "DashportServer", "DashportBrowse", "DashportArtwork", "DashportLog"],
            swiftSettings: strict
        ),

        // MARK: Tests (Swift Testing only)
        .testTarget(
            name: "DashportMessagesTests",
            dependencies: ["DashportMessages"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportFramesTests",
            dependencies: ["DashportFrames"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            // The option tables of the tools (the executables' modules, imported for testing).
            name: "DashportToolsTests",
            dependencies: ["dashport-hu", "dashport-bench-link", "DashportCommandLine"],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportCommandLineTests", dependencies: ["DashportCommandLine"], swiftSettings: strict),
        .testTarget(name: "DashportDigestTests", dependencies: ["DashportDigest"], swiftSettings: strict),
        .testTarget(
            name: "DashportFilesTests",
            dependencies: ["DashportTestSupport", "DashportFiles", "DashportServer", "DashportTLS", "DashportSession"],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportTLSTests", dependencies: ["DashportTestSupport", "DashportClock", "DashportTLS", "DashportLog", "CDashportSSL", "DashportDigest"], swiftSettings: strict),
        .testTarget(
            name: "DashportLinkTests",
            dependencies: ["DashportFuzzDrivers", "DashportTestSupport", "DashportClock", "DashportLink", "DashportHeadUnit", "DashportTLS", "DashportFrames", "DashportMessages", "DashportDigest"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DashportHeadUnitTests",
            dependencies: ["DashportTestSupport", "DashportClock", "DashportHeadUnit", "DashportEmulator", "DashportTransport", "DashportMessages", "DashportTLS", "DashportLink", "DashportServer", "DashportLog", "DashportDigest"],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportBrowseTests", dependencies: ["DashportTestSupport", "DashportClock", "DashportBrowse"], swiftSettings: strict),
        .testTarget(name: "DashportArtworkTests", dependencies: ["DashportTestSupport", "DashportClock", "DashportArtwork", "DashportFiles"], swiftSettings: strict),
        .testTarget(name: "DashportSessionTests", dependencies: ["DashportTestSupport", "DashportClock", "DashportSession", "DashportBrowse", "DashportLog"], swiftSettings: strict),
        .testTarget(
            name: "DashportServicesTests",
            dependencies: ["DashportFuzzDrivers", "DashportTestSupport", "DashportClock", "DashportServices", "DashportMessages", "DashportSession", "DashportBrowse", "DashportLog"],
            exclude: ["FuzzCrashes"],
            swiftSettings: strict
        ),
        .testTarget(name: "DashportTransportTests", dependencies: ["DashportTransport"], swiftSettings: strict),
        .testTarget(
            name: "DashportServerTests",
            dependencies: ["DashportTestSupport", "DashportClock", "DashportServer", "DashportHeadUnit", "DashportTransport", "DashportArtwork", "DashportMessages", "DashportLink", "DashportLog", "DashportTLS", "DashportFrames", "DashportBrowse", "DashportFiles", "DashportCommandLine"],
            swiftSettings: strict
        ),
    ]
)
