import DashportTestSupport
import DashportClock
import DashportLog
import Synchronization
import Testing
@testable import DashportSession

@Suite struct SubscriptionTests {
    @Test func aNewSubscriberGetsTheCurrentStateFirst() async throws {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        #expect(await core.perform(.playFromMediaId("a2"), from: .local) == .accepted)
        let snapshot = await core.snapshot
        let updates = await first(3, of: await core.subscribe())
        #expect(updates == [.queue(snapshot.queue), .mediaItem(snapshot.mediaItem), .playbackState(snapshot.playbackState)])
        #expect(snapshot.mediaItem.item?.id == "a2")
    }

    @Test func twoSubscribersSeeIdenticalSequences() async throws {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        let one = await core.subscribe()
        let two = await core.subscribe()
        _ = await core.perform(.playFromMediaId("a1"), from: .dashportCar(id: "car-1"))
        await clock.advance(by: .seconds(30))
        _ = await core.perform(.pause, from: .aapKey(car: "car-2"))
        _ = await core.perform(.skipToNext, from: .dashportCar(id: "car-1"))
        _ = await core.perform(.setRepeatMode(.all), from: .aapPlaybackInput(car: "car-2"))
        await core.report(SessionError(code: .artworkFailed, severity: .degraded, message: "cover failed"))
        _ = await core.perform(.play, from: .local)
        await clock.advance(by: .seconds(200))  // a2 ends, a3 starts
        await core.close()
        let seenByOne = await drain(one)
        let seenByTwo = await drain(two)
        #expect(seenByOne == seenByTwo)
        #expect(seenByOne.count > 10)
        #expect(seenByOne.contains(.error(SessionError(code: .artworkFailed, severity: .degraded, message: "cover failed"))))
        #expect(seenByOne.last?.playbackState?.queueIndex == 2)
    }

    @Test func theStateChannelCarriesAnchorsNotTicks() async throws {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        _ = await core.perform(.playFromMediaId("a3"), from: .local)
        let updates = await core.subscribe()
        for _ in 0..<10 { await clock.advance(by: .seconds(1)) }
        _ = await core.perform(.pause, from: .local)
        let seen = await first(4, of: updates)
        // Ten seconds of playing broadcast nothing; the pause is the next state, anchored at 10 s.
        #expect(seen.dropFirst(3).first?.playbackState?.status == .paused)
        #expect(seen.dropFirst(3).first?.playbackState?.position == PositionAnchor(valueMs: 10_000, at: clock.now))
    }

    @Test func closingEndsStreamsAndLaterSubscriptionsAreEmpty() async {
        let core = makeDemoCore(clock: ManualClock())
        let before = await core.subscribe()
        await core.close()
        #expect(await drain(before).count == 3)
        #expect(await drain(await core.subscribe()).isEmpty)
    }

    @Test func reportedErrorsReachSubscribersAndTheLog() async {
        let sink = CollectingSink()
        let core = SessionCore(
            handler: RecordingHandler(), clock: ManualClock(), configuration: testConfiguration,
            logger: .init(label: "session", level: .info, sink: sink))
        let updates = await core.subscribe()
        let error = SessionError(code: .browseRootRejected, severity: .degraded, message: "tab 'Extra' is over the cap of 4")
        await core.report(error)
        await core.report(SessionError(code: .playbackFailed, severity: .fatal, message: "decoder died"))
        await core.close()
        #expect(await drain(updates).compactMap(\.error).map(\.code) == [.browseRootRejected, .playbackFailed])
        #expect(sink.contains(.warning, "tab 'Extra' is over the cap of 4"))
        #expect(sink.contains(.error, "decoder died"))
    }

    @Test func aHandlerSeesExactlyWhatAStreamSeesStartingWithTheSnapshot() async throws {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        _ = await core.perform(.playFromMediaId("a2"), from: .local)
        let expectedSnapshot = await core.snapshot
        let stream = await core.subscribe()
        let seen = Mutex<(snapshot: SessionSnapshot?, updates: [SessionUpdate])>((nil, []))
        let id = await core.subscribe(started: { snapshot in seen.withLock { $0.snapshot = snapshot } }) { update in
            seen.withLock { $0.updates.append(update) }
            return true
        }
        #expect(await core.subscriberCount == 2)
        _ = await core.perform(.pause, from: .local)
        await clock.advance(by: .seconds(5))
        _ = await core.perform(.skipToNext, from: .local)
        await core.report(SessionError(code: .artworkFailed, severity: .degraded, message: "cover failed"))
        await core.close()
        let fromStream = await drain(stream)
        let fromHandler = seen.withLock { $0 }
        #expect(fromHandler.snapshot == expectedSnapshot)
        #expect(fromHandler.updates == fromStream)
        #expect(fromHandler.updates.count > 5)
        await core.unsubscribe(id)  // after close: harmless
    }

    @Test func aHandlerThatReturnsFalseIsDroppedAndUnsubscribeEndsOne() async {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        let count = Mutex(0)
        // Wants the three replayed updates and one more, then no more.
        _ = await core.subscribe { _ in
            count.withLock { seen in
                seen += 1
                return seen < 4
            }
        }
        let kept = Mutex(0)
        let id = await core.subscribe { _ in
            kept.withLock { $0 += 1 }
            return true
        }
        #expect(await core.subscriberCount == 2)
        _ = await core.perform(.playFromMediaId("a1"), from: .local)
        #expect(await core.subscriberCount == 1)
        #expect(count.withLock { $0 } == 4)
        await core.unsubscribe(id)
        #expect(await core.subscriberCount == 0)
        let before = kept.withLock { $0 }
        _ = await core.perform(.pause, from: .local)
        #expect(kept.withLock { $0 } == before)
    }

    @Test func aHandlerSubscribedAfterCloseHearsNothing() async {
        let core = makeDemoCore(clock: ManualClock())
        await core.close()
        let heard = Mutex(0)
        _ = await core.subscribe(started: { _ in heard.withLock { $0 += 1 } }) { _ in
            heard.withLock { $0 += 1 }
            return true
        }
        #expect(heard.withLock { $0 } == 0)
        #expect(await core.subscriberCount == 0)
    }
}
