import Synchronization
import DashportSession

/// Runs one car's requests to the core actors and posts each answer back into the car's input
/// stream. Commands run one at a time in the order the car sent them (two quick presses must not
/// swap); browse and artwork requests run concurrently. `stop()` cancels whatever is pending.
final class CoreBridge: Sendable {
    private let inputs: CarMailbox
    private let commands: AsyncStream<@Sendable () async -> Void>.Continuation
    private let commandWorker: Task<Void, Never>
    private let tasks = Mutex<(next: UInt64, running: [UInt64: Task<Void, Never>], stopped: Bool)>((0, [:], false))

    init(inputs: CarMailbox) {
        self.inputs = inputs
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.commands = continuation
        self.commandWorker = Task {
            for await work in stream { await work() }
        }
    }

    /// Performs `command` on the session after every earlier command of this car, then posts
    /// `answer(result)`.
    func perform(
        _ command: SessionCommand, from source: CommandSource, on session: SessionCore,
        answer: @escaping @Sendable (CommandResult) -> ServiceInput
    ) {
        let inputs = self.inputs
        commands.yield {
            let result = await session.perform(command, from: source)
            inputs.yield(.services(answer(result)))
        }
    }

    /// Runs `work` concurrently and posts what it returns (nothing when cancelled).
    func run(_ work: @escaping @Sendable () async -> ServiceInput?) {
        let inputs = self.inputs
        tasks.withLock { state in
            guard !state.stopped else { return }
            state.next += 1
            let id = state.next
            state.running[id] = Task { [weak self] in
                if let input = await work(), !Task.isCancelled { inputs.yield(.services(input)) }
                self?.finished(id)
            }
        }
    }

    /// Forwards every element of a core push stream (session updates, browse notifications),
    /// each turned into a service input by `wrap` (which may ask the core, e.g. for artwork keys).
    func forward<Element: Sendable>(_ stream: AsyncStream<Element>, as wrap: @escaping @Sendable (Element) async -> ServiceInput) {
        run {
            for await element in stream {
                if Task.isCancelled { break }
                self.post(await wrap(element))
            }
            return nil
        }
    }

    /// Posts an input to the car's stream now.
    func post(_ input: ServiceInput) {
        inputs.yield(.services(input))
    }

    private func finished(_ id: UInt64) {
        _ = tasks.withLock { $0.running.removeValue(forKey: id) }
    }

    var pendingCount: Int { tasks.withLock { $0.running.count } }

    func stop() {
        let running = tasks.withLock { state -> [Task<Void, Never>] in
            state.stopped = true
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        running.forEach { $0.cancel() }
        commands.finish()
        commandWorker.cancel()
    }
}
