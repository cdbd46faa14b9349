// tools/bench/support/GeneratedLibrary.swift - many tagged FLAC albums, written fast (dashport-bench-mpd and the MPD tests).

import Foundation
import Glibc

/// Why the library could not be written.
public struct GeneratedLibraryError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The generated library: `albums` albums of `tracks` songs, ten albums per album artist, each
/// song a copy of one tiny FLAC (20 s of digital silence, 8 kHz mono, about 0.5 KB) made once by
/// sox and flac, with its own Vorbis comment (title, artist, album, album artist, disc, track,
/// year, genre) written here: the template's STREAMINFO and frames, a new VORBIS_COMMENT block,
/// nothing spawned per file, so 20,000 files take a second or two.
public enum GeneratedLibrary {
    public static func artist(_ album: Int) -> String { String(format: "Artist %03d", album / 10) }
    public static func album(_ index: Int) -> String { String(format: "Album %04d", index) }
    public static func title(album: Int, track: Int) -> String { String(format: "Song %04d-%02d", album, track) }
    public static func directory(_ index: Int) -> String { artist(index) + "/" + album(index) }

    /// Writes the library into `music`; returns the files written and their bytes.
    public static func generate(into music: String, albums: Int, tracks: Int, scratch: String) throws -> (files: Int, bytes: Int) {
        let template = try templateFLAC(scratch: scratch)
        let (streamInfo, frames) = try split(template)
        var files = 0
        var bytes = 0
        for albumIndex in 0..<albums {
            let folder = music + "/" + directory(albumIndex)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for track in 1...tracks {
                let comment = vorbisComment([
                    ("TITLE", title(album: albumIndex, track: track)), ("ARTIST", artist(albumIndex)), ("ALBUM", album(albumIndex)),
                    ("ALBUMARTIST", artist(albumIndex)), ("DISCNUMBER", "1"), ("TRACKNUMBER", "\(track)"),
                    ("DATE", "\(1970 + albumIndex % 50)"), ("GENRE", ["Rock", "Pop", "Jazz", "Ambient"][albumIndex % 4]),
                ])
                var file: [UInt8] = Array("fLaC".utf8)
                file += blockHeader(type: 0, last: false, length: streamInfo.count) + streamInfo
                file += blockHeader(type: 4, last: true, length: comment.count) + comment
                file += frames
                let path = folder + (track < 10 ? "/0\(track) Song.flac" : "/\(track) Song.flac")
                try write(file, to: path)
                files += 1
                bytes += file.count
            }
        }
        return (files, bytes)
    }

    /// One plain open/write/close (Foundation's `createFile` writes a temporary file and renames it).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GeneratedLibraryError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw GeneratedLibraryError("short write to \(path)") }
    }

    /// 20 s of silence as FLAC, without padding or seek table.
    static func templateFLAC(scratch: String) throws -> [UInt8] {
        let wav = scratch + "/silence.wav"
        let flac = scratch + "/silence.flac"
        try run("/usr/bin/sox", ["-D", "-n", "-r", "8000", "-c", "1", "-b", "16", wav, "synth", "20", "sine", "0", "vol", "0"])
        try run("/usr/bin/flac", ["-s", "-f", "--no-padding", "--no-seektable", "-o", flac, wav])
        return Array(try Data(contentsOf: URL(fileURLWithPath: flac)))
    }

    /// The STREAMINFO block's body and the audio frames after the metadata blocks.
    static func split(_ flac: [UInt8]) throws -> (streamInfo: [UInt8], frames: [UInt8]) {
        guard flac.count > 8, Array(flac[0..<4]) == Array("fLaC".utf8) else { throw GeneratedLibraryError("the template is not FLAC") }
        var offset = 4
        var streamInfo: [UInt8]?
        while offset + 4 <= flac.count {
            let header = flac[offset]
            let length = Int(flac[offset + 1]) << 16 | Int(flac[offset + 2]) << 8 | Int(flac[offset + 3])
            let body = offset + 4
            guard body + length <= flac.count else { throw GeneratedLibraryError("the template's metadata is cut short") }
            if header & 0x7F == 0 { streamInfo = Array(flac[body..<body + length]) }
            offset = body + length
            if header & 0x80 != 0 { break }
        }
        guard let streamInfo else { throw GeneratedLibraryError("the template has no STREAMINFO") }
        return (streamInfo, Array(flac[offset...]))
    }

    static func blockHeader(type: UInt8, last: Bool, length: Int) -> [UInt8] {
        [(last ? 0x80 : 0) | type, UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }

    static func vorbisComment(_ tags: [(String, String)]) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
        let vendor = Array("dashport-bench-mpd".utf8)
        var out = le32(vendor.count) + vendor + le32(tags.count)
        for (key, value) in tags {
            let field = Array("\(key)=\(value)".utf8)
            out += le32(field.count) + field
        }
        return out
    }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw GeneratedLibraryError("\(executable) failed (sox and flac come from tools/setup)")
        }
    }
}
