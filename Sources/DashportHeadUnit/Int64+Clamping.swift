import DashportLink
import DashportMessages

extension Int64 {
    /// Rounds toward zero, saturating at the type's bounds.
    package init(clamping value: Double) {
        if value >= Double(Int64.max) { self = .max } else if value <= Double(Int64.min) { self = .min } else { self = Int64(value) }
    }
}
