import DashportSession
import Testing

@testable import DashportServer

/// The media channel's waiting session updates: order, one registration at a time, the bound.
@Suite struct MediaUpdateQueueTests {
    static func item(_ id: String, cover: String? = nil) -> SessionUpdate {
        .mediaItem(MediaItemState(item: MediaItem(id: id, artworkUri: cover)))
    }

    @Test("an update without artwork goes in at once; one with artwork waits for its keys, and those after it wait behind it")
    func orderIsKeptAcrossARegistration() {
        var queue = MediaUpdateQueue(limit: 8)
        #expect(queue.append(Self.item("a")).ready == [Self.item("a")])
        let withCover = queue.append(Self.item("b", cover: "https://covers.example/b.jpg"))
        #expect(withCover.ready.isEmpty)
        #expect(withCover.register == ["https://covers.example/b.jpg"])
        // Behind the one being registered, even an update without artwork waits.
        let behind = queue.append(Self.item("c"))
        #expect(behind.ready.isEmpty && behind.register == nil)
        let (update, next) = queue.keysArrived()
        #expect(update == Self.item("b", cover: "https://covers.example/b.jpg"))
        #expect(next.ready == [Self.item("c")] && next.register == nil)
        #expect(queue.waiting.isEmpty && !queue.keysPending)
    }

    @Test("only one registration is under way: the next update with artwork asks once the first is in")
    func oneRegistrationAtATime() {
        var queue = MediaUpdateQueue(limit: 8)
        #expect(queue.append(Self.item("a", cover: "u1")).register == ["u1"])
        #expect(queue.append(Self.item("b", cover: "u2")).register == nil)
        let (first, next) = queue.keysArrived()
        #expect(first == Self.item("a", cover: "u1"))
        #expect(next.ready.isEmpty && next.register == ["u2"])
        let (second, last) = queue.keysArrived()
        #expect(second == Self.item("b", cover: "u2"))
        #expect(last.ready.isEmpty && last.register == nil)
    }

    @Test("past the limit the oldest waiting updates are dropped, not the one whose keys are being registered")
    func theBoundDropsTheOldestButKeepsTheOneRegistering() {
        var queue = MediaUpdateQueue(limit: 3)
        _ = queue.append(Self.item("registering", cover: "u"))
        for index in 0..<10 { _ = queue.append(Self.item("\(index)")) }
        #expect(queue.waiting.count == 3)
        #expect(queue.waiting == [Self.item("registering", cover: "u"), Self.item("8"), Self.item("9")])
        let (update, next) = queue.keysArrived()
        #expect(update == Self.item("registering", cover: "u"))
        #expect(next.ready == [Self.item("8"), Self.item("9")])
    }

    @Test("keys arriving for an empty queue (its update dropped or the channel reset) hand in nothing")
    func keysForNothing() {
        var queue = MediaUpdateQueue(limit: 2)
        let (update, next) = queue.keysArrived()
        #expect(update == nil && next.ready.isEmpty && next.register == nil)
    }
}
