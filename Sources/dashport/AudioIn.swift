import DashportCommandLine
import DashportFiles
import DashportServer
import Glibc

// `dashport audio-in`: MPD's pipe output runs it (`command "dashport audio-in --state-dir DIR"`)
// and writes raw 48000:16:2 PCM to its standard input; it copies that to the running server's
// audio input socket. Errors and reconnections go to standard error, one line each.

let audioInSpec = CommandSpec(
    name: "dashport audio-in",
    summary: """
        Copies standard input (raw S16LE PCM, 48000 Hz, 2 channels: MPD's pipe output with
        format "48000:16:2") to a running `dashport serve`'s audio input socket
        (STATE-DIR/audio-in.sock, mode 0600, or where the server had to put it; the same
        --state-dir or --config as the server finds it). The server plays it to the cars' media
        audio sinks at the pace they are fed. Without a server (not running, restarting, or
        already fed by another writer) the input is read and discarded at real-time pace while
        audio-in tries again, so its writer never blocks. Exits 0 when standard input ends.
        """,
    options: ConfigurationParser.serveOptions.filter { $0.name == "state-dir" || $0.name == "config" }
        + [.value("socket", "PATH", "the audio input socket itself (default: found from the state directory)")])

/// Runs `dashport audio-in` with the arguments after `audio-in`; returns the exit status.
func runAudioIn(_ arguments: [String]) -> Int32 {
    let options: ParsedCommand
    do {
        options = try ParsedCommand.parse(arguments, as: audioInSpec)
    } catch {
        writeError("dashport audio-in: \(error)\n")
        return 2
    }
    if options.wantsHelp {
        print(audioInSpec.help)
        return 0
    }
    let path: String
    if let socket = options.value("socket") {
        path = socket
    } else {
        var serverSide: [String] = []
        if let directory = options.value("state-dir") { serverSide += ["--state-dir", directory] }
        if let config = options.value("config") { serverSide += ["--config", config] }
        do {
            let configuration = try ConfigurationParser.parse(arguments: serverSide, as: ConfigurationParser.fingerprint)
            path = AudioInputLocation.find(stateDirectory: configuration.stateDirectory)
        } catch {
            writeError("dashport audio-in: \(error)\n")
            return 2
        }
    }
    let summary = AudioInputClient(socketPath: path).run(input: 0) { line in writeError("dashport audio-in: \(line)\n") }
    _ = summary
    return 0
}
