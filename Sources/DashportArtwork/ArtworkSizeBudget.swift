/// Which box a request is answered in: the one asked for while the cover has fewer than
/// `maxPerKey` distinct sizes, else the nearest one already made.
///
/// Real head units ask for two or three sizes of a cover (a list row, a grid tile, now playing);
/// a peer asking for 400 sizes of one 3000 px cover would otherwise cost 400 decodes and 400
/// cache files. The nearest size is the smallest made box that covers the one asked for (the car
/// scales it down, as it would any larger cover), else the largest made. Sizes are remembered per
/// key, most recently used last; at most `maxKeys` keys are remembered (beyond, the table starts
/// afresh, which only lets a few more sizes be made).
struct ArtworkSizeBudget {
    let maxPerKey: Int
    let maxKeys: Int
    private var boxes: [ArtworkKey: [ArtworkBox]] = [:]

    init(maxPerKey: Int, maxKeys: Int) {
        self.maxPerKey = max(1, maxPerKey)
        self.maxKeys = max(1, maxKeys)
    }

    /// The box to make or serve for `asked`, and whether it is another than asked.
    mutating func box(for key: ArtworkKey, asked: ArtworkBox) -> (box: ArtworkBox, snapped: Bool) {
        if boxes[key] == nil, boxes.count >= maxKeys { boxes.removeAll(keepingCapacity: true) }
        var made = boxes[key] ?? []
        defer { boxes[key] = made }
        if let index = made.firstIndex(of: asked) {
            made.append(made.remove(at: index))
            return (asked, false)
        }
        guard made.count >= maxPerKey else {
            made.append(asked)
            return (asked, false)
        }
        let covering = made.filter { $0.width >= asked.width && $0.height >= asked.height }
        let area = { (box: ArtworkBox) in box.width * box.height }
        // `made` holds at least one box here (maxPerKey >= 1).
        let chosen = covering.min { area($0) < area($1) } ?? made.max { area($0) < area($1) } ?? asked
        if let index = made.firstIndex(of: chosen) { made.append(made.remove(at: index)) }
        return (chosen, true)
    }
}
