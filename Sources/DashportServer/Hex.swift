/// A message id as log fields show it: `0x` and four lowercase hex digits.
func hex(_ id: UInt16) -> String {
    let digits = String(id, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
