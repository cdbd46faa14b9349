import DashportServices
import DashportSession

/// The media channel's session updates not handed in yet, oldest first. An update goes in once
/// the artwork URIs it names are registered (so the car can fetch the covers it is told about);
/// one that names none goes in at once unless an earlier one still waits. At most one
/// registration is under way: the oldest waiting update's.
///
/// Bounded like the subscription stream it replaced: past `limit` waiting updates the oldest are
/// dropped (the one whose keys are being registered keeps its place: they are its keys), so a car
/// whose covers register slowly holds at most `limit` updates, and the newest state always wins.
struct MediaUpdateQueue {
    /// Updates held at most (the session's subscriber buffer).
    let limit: Int
    private(set) var waiting: [SessionUpdate] = []
    /// The oldest waiting update's artwork is being registered.
    private(set) var keysPending = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// What to do next with the queue.
    struct Step {
        /// Updates to hand in now, in order, with no artwork keys.
        var ready: [SessionUpdate] = []
        /// Register these URIs for the oldest waiting update, then call ``keysArrived()``.
        var register: Set<String>?
    }

    /// Adds an update; returns what is ready and whether a registration must start.
    mutating func append(_ update: SessionUpdate) -> Step {
        waiting.append(update)
        let excess = waiting.count - limit
        if excess > 0 {
            let first = keysPending ? 1 : 0
            waiting.removeSubrange(first..<first + excess)
        }
        return takeReady()
    }

    /// The registration for the oldest waiting update is done: that update, to hand in with its
    /// keys, and what is ready after it.
    mutating func keysArrived() -> (update: SessionUpdate?, next: Step) {
        keysPending = false
        guard !waiting.isEmpty else { return (nil, Step()) }
        return (waiting.removeFirst(), takeReady())
    }

    private mutating func takeReady() -> Step {
        var step = Step()
        while !keysPending, let update = waiting.first {
            let uris = MediaChannelService.artworkURIs(in: update)
            if uris.isEmpty {
                waiting.removeFirst()
                step.ready.append(update)
                continue
            }
            keysPending = true
            step.register = uris
        }
        if waiting.isEmpty { waiting = [] }  // an idle car keeps no room for a burst
        return step
    }
}
