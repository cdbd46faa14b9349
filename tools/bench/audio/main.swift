// dashport-bench-audio: what streaming media audio to many cars costs the server, next to a
// write-only reference measured in the same run (issue 18).
//
//   swift build -c release --product dashport && swift run -c release dashport-bench-audio [--help]
//   .build/release/dashport-bench-audio --minutes 10 --cars 20      # the long run (memory growth)
//
// One process: an in-process DashportServer with the embedded demo library, and cars over TCP
// loopback, each the car-role link with a PCM media sink (CONFIG READY, focus answered at once,
// an ACK per DATA), on reactor threads of the benchmark's own so that their CPU is told apart
// from the server's.
//
// 1. PLAY; a streaming window (default 60 s): server CPU, every car's underflows (a strict
//    playout model), each DATA's lateness against its ideal send time, RSS sampled.
// 2. The same stream beside cars browsing at full rate (GET_CHILDREN, one in flight each).
// 3. PAUSE → STOP and PLAY → first DATA at every car, a few times.
// 4. Reference: the same number of plain TCP sockets, one timer on the server's reactor at the
//    same cadence writing buffers of a DATA frame's size; its CPU per connection per second.
// 5. The server alone: `dashport serve` as a child process with the same cars streaming, its
//    VmRSS and RssAnon (the in-process figures hold the cars' memory too).
//
// Speed and memory are measured here, never in tests (a test runs this core for a couple of
// cars and checks only that it measured something).
import CDashportLinux
import DashportBenchSupport
import Foundation

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
// Two glibc malloc arenas, as `dashport serve` sets at start (ServerMain.limitMallocArenas), so
// the memory figures are those of the allocator the server runs with.
if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { _ = cdashport_set_malloc_arena_max(2) }
let loadBefore = Machine.load()
let began = ContinuousClock.now
let bench = try await AudioBench.make(options)
do {
    let report = try await bench.measure()
    bench.cleanUp()
    print(
        "Machine: \(Machine.summary()); load average \(loadBefore) before, \(Machine.load()) after; "
            + String(format: "%.0f s in all.", milliseconds(ContinuousClock.now - began) / 1000) + "\n")
    report.print(options: options)
} catch {
    FileHandle.standardError.write(Data("dashport-bench-audio: \(error)\n".utf8))
    bench.cleanUp()
    exit(1)
}
