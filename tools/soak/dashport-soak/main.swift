// dashport-soak: N emulated cars connect, browse, fetch covers, send commands and drop, for a while,
// against `dashport serve` (a child on loopback, or a running server), reporting the server's RSS,
// RssAnon, descriptors and threads every 10 s. Exit status 1 on a wrong answer or on growth.
import DashportSoak
import DashportTransport
import Foundation

let usage = """
    usage: dashport-soak [--cars N] [--minutes M | --seconds S] [--interval S] [--pause S]
                         [--server PATH | --attach HOST:PORT --pid PID]
      --cars N          cars cycling at once (default 10)
      --minutes M       how long (default 1); --seconds S for short runs
      --interval S      seconds between samples (default 10)
      --pause S         seconds each car waits between its sessions (default 0)
      --server PATH     the dashport binary to run as a child (default: the one next to this tool)
      --attach ADDR     soak a server that is already running at ADDR; --pid names its process
    """

/// One unbuffered write per line, so a run in the background shows each sample as it is taken.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("dashport-soak: \(text)\n".utf8))
    exit(2)
}

func required<T>(_ value: T?, _ text: String) -> T {
    guard let value else { fail(text) }
    return value
}

var options = SoakOptions()
var serverPath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("dashport").path
var attach: ListenAddress?
var pid: Int32?
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    if flag == "--help" || flag == "-h" {
        say(usage)
        exit(0)
    }
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
    switch flag {
    case "--cars": options.cars = required(Int(value).flatMap { $0 > 0 ? $0 : nil }, "--cars needs a positive number")
    case "--minutes": options.duration = .seconds(required(Double(value), "--minutes needs a number") * 60)
    case "--seconds": options.duration = .seconds(required(Double(value), "--seconds needs a number"))
    case "--pause": options.pause = .seconds(required(Double(value), "--pause needs a number"))
    case "--interval": options.sampleInterval = .seconds(required(Double(value), "--interval needs a number"))
    case "--server": serverPath = value
    case "--attach": attach = required(try? ListenAddress.parse(value), "--attach \(value): not HOST:PORT")
    case "--pid": pid = required(Int32(value), "--pid needs a process id")
    default: fail("unknown option \(flag)\n\(usage)")
    }
}

var child: ServerChild?
let address: ListenAddress
let serverPid: Int32
if let attach {
    guard let pid else { fail("--attach needs --pid to sample the server") }
    address = attach
    serverPid = pid
} else {
    do {
        child = try await ServerChild.start(executable: serverPath, extraArguments: ServerChild.arguments(forCars: options.cars))
    } catch {
        fail("\(error)")
    }
    address = child!.address  // set just above; the catch exits
    serverPid = child!.pid
    say("server: \(serverPath) pid \(serverPid) on \(address), log \(child!.logFile)")
}
say("soak: \(options.cars) cars for \(options.duration), a sample every \(options.sampleInterval)")
func describe(_ sample: ProcessSample) -> String {
    String(
        format: "rss %.1f MiB, anon %.1f MiB, fds %d, threads %d",
        Double(sample.rssKiB) / 1024, Double(sample.rssAnonKiB) / 1024, sample.fds, sample.threads)
}
let report: SoakReport
do {
    report = try await SoakRun(address: address, pid: serverPid, options: options).run(
        onIdleBefore: { say("idle before the first car: \(describe($0))") }, onSample: { say($0.line) })
} catch {
    _ = await child?.stop()
    fail("\(error)")
}
say("idle before: \(describe(report.idleBefore))")
say("idle after:  \(describe(report.idleAfter))")
if let reference = report.reference { say("reference:   \(reference.line)  (median RSS of 60–120 s)") }
if let final = report.final { say("final:       \(final.line)  (median RSS of the last minute)") }
say(
    String(
        format:
            "sessions %d, answers checked %d, failures %d, RSS drift (median to median) %+.2f%% (peak to peak %+.2f%%, last sample against the first after a minute %+.2f%%), idle private memory %+.2f MiB, fd growth %d, thread growth %d",
        report.cycles, report.answers, report.failures, report.rssDrift * 100, report.peakDrift * 100, report.lastSampleDrift * 100,
        Double(report.idleAnonGrowthKiB) / 1024,
        report.fdGrowth, report.threadGrowth))
report.firstFailures.forEach { say("failure: \($0)") }
if let child {
    let status = await child.stop()
    say("server stopped: \(status.map { "exit \($0)" } ?? "killed after the grace")")
}
let problems = report.problems()
// The verdict: PASS, or FAIL with every bound passed (and exit status 1).
if problems.isEmpty {
    say(
        "soak: PASS (median RSS of the last minute within 5 % of the second minute's, idle private memory within 1 MiB of before, no fd or thread growth, every answer right)"
    )
} else {
    problems.forEach { say("soak: FAIL: \($0)") }
    exit(1)
}
