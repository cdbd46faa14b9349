public import Foundation

/// A fresh, private (0700) directory under the system temporary directory: every test that needs
/// files uses one. Removed by ``remove()`` (say `defer { directory.remove() }`), or at the latest
/// when the last reference goes (a suite's stored property lives as long as its test).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Removes the directory and everything in it; removing twice does nothing.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` (which may name a subdirectory: `music/cover.png`) inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` (its directory must exist).
    public func write(_ name: String, _ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(bytes))
    }

    /// Names and sizes of the entries directly inside `subdirectory` (or the directory itself).
    public func files(in subdirectory: String? = nil) -> [String: Int] {
        let directory = subdirectory.map(file) ?? path
        var result: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            result[name] = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        }
        return result
    }

    /// The names directly inside the directory, sorted.
    public var fileNames: [String] { files().keys.sorted() }

    deinit { remove() }
}
