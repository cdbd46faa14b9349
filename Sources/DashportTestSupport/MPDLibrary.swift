// Sources/DashportTestSupport/MPDLibrary.swift - a small tagged music library for tests against a real mpd.

import Foundation

/// A generated library of tagged tones (sox, flac/metaflac, oggenc, lame from tools/setup):
///
/// - `Ann Artist/Alpha` — FLAC, 2001, Ambient, album artist Ann Artist, a `cover.jpg`; files named so
///   that their order on disk (Dusk, Noon, Dawn) is not the disc/track order (Dawn 1-1, Noon 1-2,
///   Dusk 2-1); Noon carries `REPLAYGAIN_TRACK_GAIN=-3.00 dB`.
/// - `Bob Band/Beta` — Ogg Vorbis, 2005, Rock: Rise (1), Fall (2); a `cover.jpg` that is not an
///   image (``unreadableCover``), so the album has no cover.
/// - `Various/Gamma` — 2010, Pop, album artist Various Artists: Spark (1, FLAC by Cat Singer, with an
///   embedded picture), Ember (2, MP3 by Ann Artist).
/// - `Misc/broken.flac` — bytes no decoder takes.
/// - the stored playlist `Road Trip`: Fall, then Dawn.
///
/// Every tone is 30 s of a sine at its own frequency (``Track/hertz``), 8 kHz mono: small files, long
/// enough that nothing ends during a test.
public enum MPDLibrary {
    public struct Track: Sendable, Hashable {
        public var path: String
        public var title: String
        public var artist: String
        public var album: String
        public var albumArtist: String
        public var disc: Int
        public var track: Int
        public var year: Int
        public var genre: String
        public var hertz: Int
    }

    public static let tracks: [Track] = [
        Track(
            path: "Ann Artist/Alpha/a-Dusk.flac", title: "Dusk", artist: "Ann Artist", album: "Alpha", albumArtist: "Ann Artist",
            disc: 2, track: 1, year: 2001, genre: "Ambient", hertz: 330),
        Track(
            path: "Ann Artist/Alpha/b-Noon.flac", title: "Noon", artist: "Ann Artist", album: "Alpha", albumArtist: "Ann Artist",
            disc: 1, track: 2, year: 2001, genre: "Ambient", hertz: 275),
        Track(
            path: "Ann Artist/Alpha/c-Dawn.flac", title: "Dawn", artist: "Ann Artist", album: "Alpha", albumArtist: "Ann Artist",
            disc: 1, track: 1, year: 2001, genre: "Ambient", hertz: 220),
        Track(
            path: "Bob Band/Beta/01 Rise.ogg", title: "Rise", artist: "Bob Band", album: "Beta", albumArtist: "Bob Band",
            disc: 1, track: 1, year: 2005, genre: "Rock", hertz: 440),
        Track(
            path: "Bob Band/Beta/02 Fall.ogg", title: "Fall", artist: "Bob Band", album: "Beta", albumArtist: "Bob Band",
            disc: 1, track: 2, year: 2005, genre: "Rock", hertz: 495),
        Track(
            path: "Various/Gamma/01 Spark.flac", title: "Spark", artist: "Cat Singer", album: "Gamma", albumArtist: "Various Artists",
            disc: 1, track: 1, year: 2010, genre: "Pop", hertz: 550),
        Track(
            path: "Various/Gamma/02 Ember.mp3", title: "Ember", artist: "Ann Artist", album: "Gamma", albumArtist: "Various Artists",
            disc: 1, track: 2, year: 2010, genre: "Pop", hertz: 605),
    ]

    /// The stored playlist's name and songs.
    public static let playlistName = "Road Trip"
    public static let playlistSongs = ["Bob Band/Beta/02 Fall.ogg", "Ann Artist/Alpha/c-Dawn.flac"]
    public static let brokenFile = "Misc/broken.flac"
    /// What Beta's `cover.jpg` holds: no image format.
    public static let unreadableCover = "this is not a picture"

    /// The demo covers used as the folder cover and the embedded picture (Fixtures/demo/covers).
    public static var folderCover: String { fixtures + "/demo/covers/night-drive.jpg" }
    public static var embeddedCover: String { fixtures + "/demo/covers/harbour-sessions.jpg" }

    static var fixtures: String {
        // #filePath = <package>/Sources/DashportTestSupport/MPDLibrary.swift
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").path
    }

    /// Writes the library into `music` and the playlist into `playlists` (both made if missing).
    public static func generate(music: String, playlists: String) throws {
        var script =
            "set -e\ntones=$(mktemp -d)\ntrap 'rm -rf \"$tones\"' EXIT\ncd \(quoted(music))\nmkdir -p 'Ann Artist/Alpha' 'Bob Band/Beta' 'Various/Gamma' Misc\n"
        for track in tracks { script += commands(for: track) }
        script += "cp \(quoted(folderCover)) 'Ann Artist/Alpha/cover.jpg'\n"
        script += "metaflac --import-picture-from=\(quoted("3||Front cover||" + embeddedCover)) 'Various/Gamma/01 Spark.flac'\n"
        script += "metaflac --set-tag='REPLAYGAIN_TRACK_GAIN=-3.00 dB' 'Ann Artist/Alpha/b-Noon.flac'\n"
        script += "printf '%s' \(quoted(unreadableCover)) > 'Bob Band/Beta/cover.jpg'\n"
        script += "head -c 4096 /dev/zero | tr '\\0' 'x' > \(quoted(brokenFile))\n"
        script += "mkdir -p \(quoted(playlists))\n"
        script +=
            "printf '%s\\n' \(playlistSongs.map(quoted).joined(separator: " ")) > \(quoted(playlists + "/" + playlistName + ".m3u"))\n"
        try run(script)
    }

    /// `files` copies of one 20-s silent FLAC (about 0.5 KB, no tags) in `Bulk/`: many files for
    /// MPD to scan, quickly written (one sox and one flac run, then file copies).
    public static func generateBulk(music: String, files: Int) throws {
        try run(
            "set -e\ncd \(quoted(music))\nmkdir -p Bulk\nsox -D -n -r 8000 -c 1 -b 16 Bulk/silence.wav synth 20 sine 0 vol 0\n"
                + "flac -s -f --no-padding --no-seektable -o Bulk/0.flac Bulk/silence.wav\nrm Bulk/silence.wav\n")
        for index in 1..<files {
            try FileManager.default.copyItem(atPath: music + "/Bulk/0.flac", toPath: music + "/Bulk/\(index).flac")
        }
    }

    static func commands(for track: Track) -> String {
        let wav = "\"$tones/\(track.hertz).wav\""
        var line = "sox -n -r 8000 -c 1 -b 16 \(wav) synth 30 sine \(track.hertz)\n"
        let target = quoted(track.path)
        let tags: [(String, String)] = [
            ("TITLE", track.title), ("ARTIST", track.artist), ("ALBUM", track.album), ("ALBUMARTIST", track.albumArtist),
            ("DISCNUMBER", "\(track.disc)"), ("TRACKNUMBER", "\(track.track)"), ("DATE", "\(track.year)"), ("GENRE", track.genre),
        ]
        if track.path.hasSuffix(".flac") {
            line += "flac -s -f -o \(target) \(tags.map { "--tag=" + quoted("\($0)=\($1)") }.joined(separator: " ")) \(wav)\n"
        } else if track.path.hasSuffix(".ogg") {
            line += "oggenc -Q -o \(target) \(tags.map { "-c " + quoted("\($0)=\($1)") }.joined(separator: " ")) \(wav)\n"
        } else {
            line +=
                "lame --quiet -b 8 --tt \(quoted(track.title)) --ta \(quoted(track.artist)) --tl \(quoted(track.album))"
                + " --tn \(track.track) --ty \(track.year) --tg \(quoted(track.genre)) --tv \(quoted("TPE2=" + track.albumArtist))"
                + " --tv TPOS=\(track.disc) \(wav) \(target)\n"
        }
        return line + "rm -f \(wav)\n"
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `script` with /bin/sh; throws with its standard error when it fails.
    static func run(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MPDHarnessError("generating the library failed: \(text)") }
    }
}

/// A test's mpd could not be set up (a tool missing, mpd failing to start).
public struct MPDHarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
