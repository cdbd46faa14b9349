import Foundation
import Synchronization
import Testing

/// The real end-to-end USB test: tools/usb-vm/run boots a stock Debian kernel under QEMU (TCG)
/// where dummy_hcd gives one machine both ends of a USB bus; inside, `dashport serve --usb-gadget`
/// and `dashport-hu --usb` do the AOA switch, the link, a browse with a cover, play, an
/// unplug/replug and a new session, and the car saves a few seconds of the demo track's audio,
/// checked here (``HeardAudio``) for rate and tone. This test runs it and reads its result files.
/// Where QEMU, busybox or the kernel package cannot be had, it is skipped and says why (on
/// standard error).
@Suite struct USBBusVMTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("tools/usb-vm/run").path

    /// `tools/usb-vm/run --check`: exit 0 when it can run here; otherwise print its reason.
    static func ready() async -> Bool {
        let (status, output) = await run([script, "--check"])
        if status != 0 {
            FileHandle.standardError.write(Data("USBBusVMTests skipped: \(output.trimmingCharacters(in: .whitespacesAndNewlines))\n".utf8))
        }
        return status == 0
    }

    /// The VM (TCG, one vCPU at nice 10) needs a core to itself: beside `stress --cpu 4` it got a
    /// few percent of one, and the phone inside could not answer a car's VERSION_REQUEST within
    /// seconds. So it runs on request, alone (`.ci/run` does, after the other heavy tests).
    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["DASHPORT_HEAVY_TESTS"] == "1", "a VM that needs a core: DASHPORT_HEAVY_TESTS=1"),
        .enabled("needs qemu-system-x86, busybox-static, cpio, kmod and a Debian kernel package (tools/setup --usb-vm)") {
            await USBBusVMTests.ready()
        },
        .timeLimit(.minutes(10)))
    func aCarSwitchesLinksBrowsesAndSurvivesAnUnplugOnARealUSBBus() async throws {
        let (status, output) = await Self.run([Self.script])
        let resultFile = Self.root.appendingPathComponent(".build/usb-vm/result").path
        let result = (try? String(contentsOfFile: resultFile, encoding: .utf8)) ?? "(no result file)"
        FileHandle.standardError.write(Data("USB VM test: \(result)".utf8))
        #expect(status == 0, "tools/usb-vm/run exited \(status): \(output.suffix(3000))")
        #expect(result.hasPrefix("PASS"), "\(result)")
        guard result.hasPrefix("PASS") else { return }
        try await Self.checkHeardAudio()
    }

    /// What the car heard over the gadget: the demo track's tone, at the real-time rate.
    static func checkHeardAudio() async throws {
        let guest = root.appendingPathComponent(".build/usb-vm/guest").path
        let heard: HeardAudio
        do {
            heard = try HeardAudio(times: guest + "/heard.times", wav: guest + "/heard.wav")
        } catch {
            Issue.record("USB audio: \(error)")
            return
        }
        let tones = await DemoTones.load(catalog: root.appendingPathComponent("Fixtures/demo/catalog.json").path)
        let toneHz = try #require(tones[heard.item], "the demo catalog gives \(heard.item) no toneHz extra")
        FileHandle.standardError.write(
            Data("USB VM audio: \(heard.samples.count / 2) frames saved, \(Int(heard.rate)) bytes/s, \(heard.views)\n".utf8))
        let problems = heard.problems(toneHz: toneHz, candidates: Array(Set(tones.values)).sorted())
        #expect(problems.isEmpty, "USB audio of \(heard.item) (\(toneHz) Hz): \(problems.joined(separator: "; "))")
    }

    /// Runs a program without blocking a thread of the test pool; its exit status and output.
    static func run(_ arguments: [String]) async -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = root
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let collected = OutputCollector()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        let status: Int32 = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: -1)
            }
        }
        output.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        return (status, collected.text)
    }
}

final class OutputCollector: Sendable {
    private let data = Mutex(Data())
    func append(_ more: Data) { data.withLock { $0.append(more) } }
    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
}
