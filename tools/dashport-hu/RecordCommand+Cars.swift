import DashportClock
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportRecording
import Foundation

/// Scripts for `dashport-hu record` that drive several cars in one session. A line
/// `car N [browse options]` starts a section run by car N (connected, with those options, the
/// first time it appears); a line `leave` ends the current car's connection with a bye-bye (a
/// later `car N` connects it again: a reconnect). Sections run one after another, in file order.
/// `car N --stock` is a car that lists only the stock AAP services; its sections may only
/// `key` and `wait`.
enum MultiCarScript {
    struct Section {
        var car: Int
        var arguments: [String]
        var leave: Bool
        var text: String
    }

    /// `nil` when the script has no `car` line (a one-car script for `browse`).
    static func sections(_ text: String) throws(UsageError) -> [Section]? {
        var sections: [Section] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            if words.first == "car" {
                guard words.count >= 2, let car = Int(words[1]), car >= 1 else {
                    throw UsageError("line \(number + 1): say car N [browse options]")
                }
                sections.append(Section(car: car, arguments: Array(words.dropFirst(2)), leave: false, text: ""))
            } else if line == "leave" {
                guard let current = sections.last?.car else { throw UsageError("line \(number + 1): leave before any car line") }
                sections.append(Section(car: current, arguments: [], leave: true, text: ""))
            } else if !sections.isEmpty {
                sections[sections.count - 1].text += line + "\n"
            } else if !line.isEmpty && !line.hasPrefix("#") {
                return nil
            }
        }
        return sections.isEmpty ? nil : sections
    }

    struct Car {
        var client: HeadUnitClient
        var shell: BrowseShell
        var session: MediaChannelSession
        var stock: Bool
        var printer: Task<Void, Never>
    }

    /// Runs the sections against `address`; every car's link reports to `recorder`.
    static func run(_ sections: [Section], base: [String], recorder: SessionRecorder) async -> Int32 {
        var cars: [Int: Car] = [:]
        var status: Int32 = 0
        for section in sections where status == 0 {
            do {
                if section.leave {
                    if let car = cars.removeValue(forKey: section.car) { await leave(car) }
                    continue
                }
                if cars[section.car] == nil {
                    let stock = section.arguments.contains("--stock")
                    let parsed = try Arguments(base + section.arguments.filter { $0 != "--stock" }, spec: BrowseCommand.spec)
                    guard var setup = try BrowseCommand.parse(parsed) else { continue }
                    if stock {
                        // Only the stock AAP services: input (media keys), playback status, media browser.
                        setup.configuration.car.services.removeAll {
                            if case .vendorExtension = $0.kind { true } else { false }
                        }
                    }
                    guard let address = setup.address else {
                        throw UsageError("record drives a car over TCP: give HOST:PORT, not --usb")
                    }
                    let client = try await HeadUnitClient.connect(
                        to: address, configuration: setup.configuration, timeout: setup.timeout, logger: setup.logger,
                        tap: recorder.tap(car: recorder.addCar()))
                    let session =
                        stock
                        ? MediaChannelSession.startStock(client: client, timeout: setup.timeout)
                        : try MediaChannelSession.start(client: client, timeout: setup.timeout)
                    let transcript = Transcript { Console.out("[car \(section.car)] " + $0) }
                    let printer = transcript.printNotices(of: session)
                    let shell = BrowseShell(session: session, transcript: transcript, options: setup.options)
                    if stock {
                        try await waitForInputChannel(client, timeout: setup.timeout)
                    } else {
                        try await shell.start()
                    }
                    cars[section.car] = Car(client: client, shell: shell, session: session, stock: stock, printer: printer)
                }
                guard let car = cars[section.car] else { continue }
                let script = try EmulatorScript.parse(section.text)
                if car.stock {
                    try await runStock(script, on: car.session)
                } else {
                    try await car.shell.run(script)
                }
            } catch {
                Console.err("dashport-hu record: car \(section.car): \(error)")
                status = 1
            }
        }
        for car in cars.values { await leave(car) }
        return status
    }

    /// A stock car has nothing to browse: only `key` and `wait` mean something.
    private static func runStock(_ script: EmulatorScript, on session: MediaChannelSession) async throws {
        for step in script.steps {
            switch step.command {
            case .key(let keycode): try await session.pressKey(keycode)
            case .wait(let milliseconds): try await session.client.clock.sleep(for: .milliseconds(milliseconds))
            default: throw UsageError("line \(step.line): a stock car (--stock) only presses keys and waits")
            }
        }
    }

    /// A stock car has no hello to wait for: it is ready once the phone opened its input channel.
    private static func waitForInputChannel(_ client: HeadUnitClient, timeout: Duration) async throws {
        guard let input = client.configuration.channel(where: { if case .input = $0 { true } else { false } }) else { return }
        let clock = client.clock
        let deadline = clock.now + timeout
        while await !client.openChannels.contains(input) {
            guard clock.now < deadline else { throw UsageError("the phone did not open the input channel within \(timeout)") }
            try await clock.sleep(for: .milliseconds(10))
        }
    }

    private static func leave(_ car: Car) async {
        await car.client.byeBye()
        if await car.client.closed(within: .seconds(5)) == nil { await car.client.close() }
        _ = await car.printer.value
    }
}
