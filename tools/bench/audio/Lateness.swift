/// How late DATA messages arrived against their ideal send times: a fixed histogram of 0.1-ms
/// bins up to 250 ms (the last bin holds everything later), the exact maximum and the count, so
/// measuring costs no memory that grows with the run (the long run's RSS is a figure of its own).
struct LatenessHistogram: Sendable {
    static let binWidth = 0.1
    static let bins = 2500

    private(set) var counts = [Int32](repeating: 0, count: LatenessHistogram.bins)
    private(set) var count = 0
    private(set) var maximum = 0.0
    private(set) var sum = 0.0
    /// Arrivals before the ideal time (the server's clock counts whole milliseconds, so a packet
    /// may leave up to 1 ms before the exact frame-counted time); they count as 0 in the bins.
    private(set) var early = 0

    mutating func add(_ milliseconds: Double) {
        if milliseconds < 0 { early += 1 }
        let value = max(0, milliseconds)
        counts[min(Self.bins - 1, Int(value / Self.binWidth))] += 1
        count += 1
        sum += value
        maximum = max(maximum, value)
    }

    mutating func merge(_ other: LatenessHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
        sum += other.sum
        early += other.early
        maximum = max(maximum, other.maximum)
    }

    /// Arrivals later than `milliseconds`.
    func later(than milliseconds: Double) -> Int {
        let first = min(Self.bins, Int((milliseconds / Self.binWidth).rounded(.up)))
        return counts[first...].reduce(0) { $0 + Int($1) }
    }

    /// The upper edge of the bin holding the sample at `fraction` (nearest rank); the exact
    /// maximum for the last sample; NaN when empty.
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return .nan }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        if rank >= count { return maximum }
        var seen = 0
        for (index, binCount) in counts.enumerated() {
            seen += Int(binCount)
            if seen >= rank { return min(maximum, Double(index + 1) * Self.binWidth) }
        }
        return maximum
    }

    var mean: Double { count > 0 ? sum / Double(count) : .nan }
}
