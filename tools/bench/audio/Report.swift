import DashportBenchSupport
import DashportSession
import Foundation

extension AudioReport {
    static let cpuTargetRatio = 1.5
    /// 1% of one core per car.
    static let cpuTargetPerCar = 0.01
    static let pacingTargetMs = 5.0
    static let latencyTargetMs = 50.0

    func print(options: Options) {
        let packetMs = milliseconds(SessionAudioFormat.packetDuration)
        Swift.print(
            "Cars and server in one process over TCP loopback: the server is DashportServer (the embedded demo library, its tones) "
                + "on its reactor; \(cars) cars, each the emulator's car-role link with a PCM media sink (window \(window), \(ackless ? "no ACKs" : "an ACK per DATA"), "
                + "focus answered at once), on a reactor thread of the benchmark's own"
                + (options.carNice > 0 ? " at niceness \(options.carNice) (the cars stand for other machines)" : "")
                + ". Load average during the streaming window "
                + "\(String(format: "%.1f–%.1f", loads.min() ?? .nan, loads.max() ?? .nan)).\n")

        let serverPerCar = perCarCPUPerAudioSecond
        let referencePerCar = referencePerConnectionSecond
        Swift.print(
            "**Server CPU per second of audio per car** (getrusage of the process minus the cars' reactor threads, /proc/self/task/*/schedstat)\n"
        )
        Swift.print("| method | CPU per second per car | × reference | × 1% of a core target |")
        Swift.print("|---|---:|---:|---:|")
        Swift.print(
            "| reference: one timer on the server's reactor writes \(referencePacketBytes)-byte buffers to \(cars) plain TCP sockets "
                + "(\(referencePackets) each in \(String(format: "%.1f", referenceSeconds)) s; no TLS, AAP or ACKs) "
                + "| \(formatPercent(referencePerCar)) | 1.00 | \(formatRatio(referencePerCar / Self.cpuTargetPerCar)) |")
        Swift.print(
            "| Dashport: \(cars) cars streaming for \(String(format: "%.1f", alone.seconds)) s (pump, fan-out, DATA, TLS\(ackless ? "" : ", ACKs")) "
                + "| \(formatPercent(serverPerCar)) | \(formatRatio(serverPerCar / referencePerCar)) "
                + "| \(formatRatio(serverPerCar / Self.cpuTargetPerCar)) |")
        // The kernel's part alone: what no change to Dashport's own code can take away.
        let serverSystemPerCar = alone.audioSeconds > 0 ? serverSystemCPU / alone.audioSeconds / Double(max(cars, 1)) : .nan
        let referenceSystemPerCar = referenceSeconds > 0 ? referenceSystemCPU / referenceSeconds / Double(max(cars, 1)) : .nan
        Swift.print(
            "| … of which in the kernel (system time: the sends, the ACKs' reads, epoll; the reference's "
                + "\(formatPercent(referenceSystemPerCar))) | \(formatPercent(serverSystemPerCar)) "
                + "| \(formatRatio(serverSystemPerCar / referencePerCar)) | |")
        Swift.print(
            String(
                format: "\nTargets: ≤ %.1f× the reference, ≤ 1%% of a core per car. The cars' side meanwhile: %@ of a core per car.",
                Self.cpuTargetRatio, formatPercent(alone.seconds > 0 ? carsCPU / alone.seconds / Double(max(cars, 1)) : .nan)))

        Swift.print(
            "\n**Every car's stream** (strict playout model: a DATA after the audio received so far has played out is an underflow)\n")
        Swift.print(
            "| window | packets at the cars | per car (fewest–most) | underflows (cars) | missing at cars | skipped by the server |")
        Swift.print("|---|---:|---:|---:|---:|---:|")
        func streamRow(_ name: String, _ window: StreamWindow, dropped: String) {
            let expected = window.seconds / (packetMs / 1000)
            Swift.print(
                "| \(name) | \(formatCount(Double(window.packets))) | \(window.fewestPackets)–\(window.mostPackets) "
                    + "(\(String(format: "%.0f", expected)) in real time) | \(window.underflows) (\(window.carsWithUnderflow)) "
                    + "| \(window.missing) | \(dropped) |")
        }
        streamRow("\(cars) cars, \(String(format: "%.0f", alone.seconds)) s", alone, dropped: "\(serverDropped)")
        if let beside { streamRow("beside \(browsers) browsing cars, \(String(format: "%.0f", beside.seconds)) s", beside, dropped: "–") }

        Swift.print(
            "\n**Pacing**: each DATA against its ideal send time (its timestamp, which is when it plays, minus the pump's two packets "
                + "of lead; the first DATA of each car's stream is the PLAY latency below, not counted here), taken when the car's kernel "
                + "received it (SO_TIMESTAMPNS: on loopback, when the server's send delivered it) and, an upper bound, when the car's "
                + "reactor read it (before decrypting; the cars' one reactor thread queues them); 0.1-ms bins, target p99 < "
                + "\(formatMilliseconds(Self.pacingTargetMs))\n")
        Swift.print(
            "| window | DATA timed | sent: p50 | p99 | max | later than one packet (\(formatMilliseconds(packetMs))) "
                + "| at the car's read: p50 | p99 | max | server reactor runnable, waiting for a CPU |")
        Swift.print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        func pacingRow(_ name: String, _ window: StreamWindow) {
            let late = window.lateness
            let read = window.readLateness
            Swift.print(
                "| \(name) | \(formatCount(Double(late.count))) | \(formatMilliseconds(late.percentile(0.5))) "
                    + "| \(formatMilliseconds(late.percentile(0.99))) | \(formatMilliseconds(late.maximum)) | \(late.later(than: packetMs)) "
                    + "| \(formatMilliseconds(read.percentile(0.5))) | \(formatMilliseconds(read.percentile(0.99))) "
                    + "| \(formatMilliseconds(read.maximum)) "
                    + String(
                        format: "| %.2f s of %.0f s (%.1f%%) |", window.reactorWait, window.seconds,
                        100 * window.reactorWait / window.seconds)
            )
        }
        pacingRow("\(cars) cars streaming alone", alone)
        if let beside {
            pacingRow(
                "beside \(browsers) cars browsing at full rate (\(formatCount(Double(browseAnswers) / max(browseSeconds, 0.001))) GET_CHILDREN/s)",
                beside)
        }

        Swift.print(
            "\n**Latency** at every car, from just before the session command to the car's read (target ≤ \(formatMilliseconds(Self.latencyTargetMs)))\n"
        )
        Swift.print("| what | samples (cars × commands) | p50 | max |")
        Swift.print("|---|---:|---:|---:|")
        Swift.print(
            "| PLAY → first DATA (focus GAIN round trip, START) | \(playToData.count) | \(formatMilliseconds(median(playToData))) | \(formatMilliseconds(playToData.max() ?? .nan)) |"
        )
        Swift.print(
            "| PAUSE → STOP | \(pauseToStop.count) | \(formatMilliseconds(median(pauseToStop))) | \(formatMilliseconds(pauseToStop.max() ?? .nan)) |"
        )

        let streamingNow = streamingKiB.last?.kib ?? 0
        let firstSample = streamingKiB.first
        Swift.print(
            "\n**Memory**: VmRSS of the one process (the server and the cars both: an upper bound for the server's share; from the "
                + "first PLAY on it also maps libvips, which the first cover scaled loads, once per process)\n")
        Swift.print(
            "Idle server \(formatMiB(kilobytes: idleKiB)); \(cars) cars connected, not streaming \(formatMiB(kilobytes: connectedKiB)) "
                + "(\(kib(connectedKiB - idleKiB, per: cars)) per car); streaming \(formatMiB(kilobytes: streamingNow)) "
                + "(\(kib(streamingNow - idleKiB, per: cars)) per car from idle, \(kib(streamingNow - connectedKiB, per: cars)) per car for the streaming itself)."
        )
        if let firstSample {
            Swift.print(
                String(
                    format: "RSS across the streaming window: %@ at %.0f s, %@ at the end (%.0f s): %+d KiB; samples %@.",
                    formatMiB(kilobytes: firstSample.kib), firstSample.seconds, formatMiB(kilobytes: streamingNow),
                    streamingKiB.last?.seconds ?? 0, streamingNow - firstSample.kib,
                    streamingKiB.map { String(format: "%.0f s %.1f", $0.seconds, Double($0.kib) / 1024) }.joined(separator: ", ")))
        }
        if let child {
            child.print()
        } else if let childSkipped {
            Swift.print("\nThe server alone (a `dashport serve` child process): skipped, \(childSkipped).")
        }
        if !violations.isEmpty { Swift.print("\nCars that failed: \(violations.prefix(5).joined(separator: "; "))") }
    }

    private func kib(_ delta: Int, per count: Int) -> String {
        String(format: "%.0f KiB", Double(delta) / Double(max(count, 1)))
    }
}

/// "0.123%" of one core, from CPU seconds per second.
func formatPercent(_ fraction: Double) -> String {
    guard fraction.isFinite else { return "–" }
    return String(format: fraction < 0.001 ? "%.4f%%" : "%.3f%%", fraction * 100)
}
