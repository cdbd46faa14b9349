import Foundation
import Synchronization
import Testing

/// The real end-to-end USB test: tools/usb-vm/run boots a stock Debian kernel under QEMU (TCG)
/// where dummy_hcd gives one machine both ends of a USB bus; inside, `dashport serve --usb-gadget`
/// and `dashport-hu --usb` do the AOA switch, the link, a browse with a cover, play, an
/// unplug/replug and a new session. This test runs it and reads its result file. Where QEMU,
/// busybox or the kernel package cannot be had, it is skipped and says why (on standard error).
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

    @Test(
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
