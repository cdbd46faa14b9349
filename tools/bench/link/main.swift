// dashport-bench-link: what a car's link costs, next to references measured in the same run.
//
//   swift build -c release --product dashport && swift run -c release dashport-bench-link [--help]
//
// 1. Connect to root tabs: an in-process DashportServer on 127.0.0.1:0 whose browse cache is
//    warm; a car connects over TCP and runs version, TLS 1.2, auth, discovery, channel opens,
//    the Dashport media channel hello and GET_CHILDREN of the root. Reference: a bare TCP
//    connect + TLS 1.2 handshake + one 100-byte round trip with the same DashportTLS contexts.
// 2. GET_CHILDREN throughput, pipelined on one connection and on many at once. Reference: raw
//    TCP request/response of the same wire sizes (no TLS, no AAP).
// 3. Hostile peers: the many-connection load alone and beside a peer flooding before it
//    authenticates and a linked car that never reads; the server's queued and held bytes sampled.
// 3b. Hostile linked cars (ping, GET_CHILDREN and search floods) and a connect thrash, each
//    beside the same good cars, as ratios against alone.
// 4. Memory: VmRSS/VmHWM of a `dashport serve` child process, idle and with many cars.
//
// Methods alternate within every round (a busy moment on a shared machine hits them alike);
// medians are reported, with ratios to the reference. Every phase is bounded in count and
// time. Speed and memory are measured here, never in tests.
import DashportBenchSupport
import Foundation
import DashportServer

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--idle-reference", arguments.count == 2 {
    MemoryPhase.idleReference(readyFile: arguments[1])
}
let options = Options.parse(arguments)
let ownExecutable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let dashport = options.dashport ?? URL(fileURLWithPath: ownExecutable).deletingLastPathComponent().appendingPathComponent("dashport").path
let loadBefore = Machine.load()
let began = ContinuousClock.now

let bench = try await Bench.make(options)
defer { bench.cleanUp() }
if let address = options.hold {
    do {
        try await MemoryPhase.hold(bench, address: address, until: options.holdUntil)
    } catch {
        FileHandle.standardError.write(Data("dashport-bench-link: \(error)\n".utf8))
        bench.cleanUp()
        exit(1)
    }
    bench.cleanUp()
    exit(0)
}
do {
    var connect: ConnectReport?
    var throughput: [Pair]?
    var hostile: HostilePhase.Report?
    var linkedFloods: LinkedFloodPhase.Report?
    if !options.onlyMemory && !options.onlyHostile {
        let (connected, server) = try await ConnectPhase.run(bench)
        connect = connected
        throughput = try await ThroughputPhase.run(bench, server: server)
        await server.stop(grace: .seconds(1))
    }
    if options.onlyHostile || (!options.onlyMemory && !options.skipHostile) {
        // A server of its own with the default limits: what the hostile phases measure.
        let server = try await bench.startServer(stateDirectory: bench.workDirectory + "/state", limits: .defaults)
        hostile = try await HostilePhase.run(bench, server: server)
        linkedFloods = try await LinkedFloodPhase.run(bench, server: server)
        await server.stop(grace: .seconds(1))
    }
    var memory: MemoryReport?
    if options.skipMemory || options.onlyHostile {
        progress("memory: skipped (--skip-memory)")
    } else if FileManager.default.isExecutableFile(atPath: dashport) {
        memory = try await MemoryPhase.run(bench, executable: dashport, referenceExecutable: ownExecutable)
    } else {
        progress("memory: skipped, no executable at \(dashport); build it: swift build -c release --product dashport")
    }

    print(
        "Machine: \(Machine.summary()); load average \(loadBefore) before, \(Machine.load()) after; "
            + String(format: "%.0f s in all.", milliseconds(ContinuousClock.now - began) / 1000) + "\n")
    if let connect, let throughput {
        ConnectPhase.print(connect, options)
        print()
        ThroughputPhase.print(throughput, options)
    }
    if let hostile {
        print()
        HostilePhase.print(hostile, options)
    }
    if let linkedFloods {
        print()
        LinkedFloodPhase.print(linkedFloods, options)
    }
    if let memory {
        print()
        MemoryPhase.print(memory)
    }
} catch {
    FileHandle.standardError.write(Data("dashport-bench-link: \(error)\n".utf8))
    bench.cleanUp()
    exit(1)
}
