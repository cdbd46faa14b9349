import DashportBrowse
import DashportCommandLine

// `dashport catalog check FILE...`: validates catalogs as `dashport serve` would load them,
// without serving; for an editor's save hook or CI.

let catalogSpec = CommandSpec(
    name: "dashport catalog",
    synopsis: "check FILE... [options]",
    summary: """
        `check` reads each catalog FILE exactly as `dashport serve --catalog FILE` would load it:
        every key known, every value of its kind, ids unique, children present, no cycles, artwork
        files there. Prints `FILE: ok (...)` on standard output per sound file; for a bad one, the
        problem as `FILE:LINE:COLUMN: ...` on standard error. Exits 0 when every file is sound,
        1 when one is not, 2 on a usage error. The format: README, "The catalog format", and
        Fixtures/catalog.schema.json.
        """,
    positionals: ["check", "FILE..."],
    options: [])

/// Runs `dashport catalog` with the arguments after `catalog`; returns the exit status.
func runCatalog(_ arguments: [String]) -> Int32 {
    func usageError(_ text: String) -> Int32 {
        writeError("dashport catalog: \(text) (see dashport catalog --help)\n")
        return 2
    }
    if arguments.contains("--help") || arguments.contains("-h") {
        print(catalogSpec.help)
        return 0
    }
    guard let command = arguments.first else { return usageError("no command given") }
    guard command == "check" else { return usageError("unknown command '\(command)' (commands: check)") }
    let files = Array(arguments.dropFirst())
    if let option = files.first(where: { $0.hasPrefix("-") && $0 != "-" }) { return usageError("unknown option \(option)") }
    guard !files.isEmpty else { return usageError("check needs at least one catalog FILE") }
    var status: Int32 = 0
    for file in files {
        do {
            let summary = try CatalogCheck.check(path: file)
            print(
                "\(file): ok (\"\(summary.title)\": \(summary.items) items, \(summary.rootEntries) root entries"
                    + (summary.errorItems > 0 ? ", \(summary.errorItems) with an error screen" : "") + ")")
        } catch {
            writeError("\(error)\n")
            status = 1
        }
    }
    return status
}
