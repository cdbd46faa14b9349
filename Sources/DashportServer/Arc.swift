/// A reference to a non-copyable value (an `Atomic`), so several closures can share it.
final class Arc<Value: ~Copyable>: Sendable where Value: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}
