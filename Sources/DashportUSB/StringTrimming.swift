extension StringProtocol {
    /// Without the leading and trailing characters for which `strip` is true: Foundation's
    /// `trimmingCharacters(in:)`, which `FoundationEssentials` lacks (the server does not import
    /// Foundation, whose ICU would cost every idle server megabytes; issue 10, item 6).
    func trimming(while strip: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !strip($0) }), let last = lastIndex(where: { !strip($0) }) else { return self[endIndex...] }
        return self[first...last]
    }
}
