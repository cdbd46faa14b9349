import DashportLink
import DashportMessages

/// `0x8003`-style rendering of a message id.
package func hexID(_ id: UInt16) -> String {
    let digits = String(id, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
