// Tests/DashportBrowseTests/BrowseRulesTests.swift - tabs, errors per car, validation, paging, search.

import Testing
@testable import DashportBrowse

@Suite struct BrowseRulesTests {
    static let resolution = BrowseError.Resolution(label: "Sign in", url: "https://example.com/sign-in")

    @Test(arguments: BrowseError.Code.allCases)
    func errorScreenPerCar(code: BrowseError.Code) async {
        let error = BrowseError(code: code, message: "Cannot show \(code.rawValue)", resolution: Self.resolution)
        let provider = FakeProvider(tree: [BrowseItem.rootId: [tab("tab-a")]])
        provider.setError(error, for: "tab-a")
        let core = makeCore(provider)

        #expect(await core.children(of: "tab-a", page: 0, pageSize: 10, for: .full) == .error(error))
        let legacy = await core.children(of: "tab-a", page: 0, pageSize: 10, for: .legacy)
        if code == .authenticationExpired || code == .parentalControlRestricted {
            #expect(legacy == .error(error))
        } else {
            #expect(legacy == .empty)
            #expect(await core.reports.contains { $0.code == BrowseReportCode.errorHidden })
        }
    }

    @Test func fullCarGetsFiveScreensLegacyTwo() async {
        let provider = FakeProvider(tree: [:])
        for code in BrowseError.Code.allCases {
            provider.setError(BrowseError(code: code, message: code.rawValue), for: "p-\(code.rawValue)")
        }
        let core = makeCore(provider)
        var screens: [CarProfile.ErrorRendering: Int] = [:]
        var emptyLists: [CarProfile.ErrorRendering: Int] = [:]
        for car in [CarProfile.full, .legacy] {
            for code in BrowseError.Code.allCases {
                switch await core.children(of: "p-\(code.rawValue)", page: 0, pageSize: 10, for: car) {
                case .error: screens[car.errorRendering, default: 0] += 1
                case .items(let items, _, _) where items.isEmpty: emptyLists[car.errorRendering, default: 0] += 1
                case .items: Issue.record("an error became items")
                }
            }
        }
        #expect(screens == [.full: 5, .legacy: 2])
        #expect(emptyLists == [.legacy: 3])
    }

    /// 0 is the default, 4 (issue 11: it used to serve one tab).
    @Test(arguments: [(0, 4), (1, 1), (3, 3), (4, 4), (6, 4)])
    func tabCap(limit: Int, expected: Int) async throws {
        let core = makeCore(try Fixtures.demoProvider())
        let car = CarProfile(maxRootTabs: limit)
        let answer = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: car)
        let tabs = ["tab-recent", "tab-albums", "tab-artists", "tab-podcasts", "tab-radio"]
        #expect(answer.ids == Array(tabs.prefix(expected)))
        #expect(answer.total == expected)
        #expect(answer.items.allSatisfy { $0.browsable })

        let rejected = await core.reports.filter { $0.code == BrowseReportCode.rootRejected }
        let overCap = tabs.dropFirst(expected)
        #expect(Set(rejected.compactMap(\.itemId)) == Set(overCap).union(["track-welcome"]))
        for id in overCap {
            #expect(rejected.contains { $0.itemId == id && $0.message.contains("over the cap of \(expected) tabs") })
        }
        #expect(
            rejected.contains {
                $0.itemId == "track-welcome" && $0.message.contains("Welcome to Dashport") && $0.message.contains("not browsable")
            })
    }

    @Test func unknownParentIsAnEmptyList() async throws {
        for provider in [try Fixtures.demoProvider() as any BrowseProvider, FakeProvider(tree: [:])] {
            let core = makeCore(provider)
            for car in [CarProfile.full, .legacy] {
                #expect(await core.children(of: "no-such-id", page: 0, pageSize: 10, for: car) == .empty)
            }
        }
    }

    @Test func depthCutAtTheCarsMaxDepth() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        let car = CarProfile(maxDepth: 3)
        _ = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: car)
        let artists = await core.children(of: "tab-artists", page: 0, pageSize: 10, for: car)
        #expect(artists.items.allSatisfy { $0.browsable })  // depth 2: still opens
        let albums = await core.children(of: "artist-aurora-fields", page: 0, pageSize: 10, for: car)
        // Depth 3 is the car's max: the albums still play but do not open.
        #expect(albums.ids == ["album-northern-lights", "album-paper-planes"])
        #expect(albums.items.allSatisfy { !$0.browsable && $0.playable })
        #expect(await core.depth(of: "album-northern-lights") == 3)
        let cuts = await core.reports.filter { $0.code == BrowseReportCode.depthCut }
        #expect(Set(cuts.compactMap(\.itemId)) == ["album-northern-lights", "album-paper-planes"])

        // Asking anyway (an id the car kept): beyond the depth, an empty list, reported.
        #expect(await core.children(of: "album-northern-lights", page: 0, pageSize: 10, for: car) == .empty)
        #expect(
            await core.reports.contains {
                $0.code == BrowseReportCode.depthCut && $0.message.contains("children of 'album-northern-lights'")
            })

        // The Albums tab reaches the same album at depth 2: the shallowest path counts.
        _ = await core.children(of: "tab-albums", page: 0, pageSize: 10, for: car)
        #expect(await core.depth(of: "album-northern-lights") == 2)
        let tracks = await core.children(of: "album-northern-lights", page: 0, pageSize: 10, for: car)
        #expect(tracks.ids == ["nl-1", "nl-2", "nl-3", "nl-4"])

        // Without a max depth nothing is cut.
        let open = await core.children(of: "artist-aurora-fields", page: 0, pageSize: 10, for: .full)
        #expect(open.items.allSatisfy { $0.browsable })
    }

    @Test func browsableOnlyItemAtMaxDepthIsDropped() async {
        let provider = FakeProvider(tree: [
            BrowseItem.rootId: [tab("t")],
            "t": [tab("folder"), track("song")],
        ])
        let core = makeCore(provider)
        let car = CarProfile(maxDepth: 2)
        _ = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: car)
        let list = await core.children(of: "t", page: 0, pageSize: 10, for: car)
        #expect(list.ids == ["song"])
        #expect(await core.reports.contains { $0.code == BrowseReportCode.depthCut && $0.itemId == "folder" })
    }

    @Test func invalidItemsAreDroppedAndReported() async {
        var badCompletion = track("half")
        badCompletion.completion = 1.5
        var negative = track("negative")
        negative.completion = -0.1
        var notANumber = track("nan")
        notANumber.completion = .nan
        var done = track("done")
        done.completion = 1
        let list = [
            track("ok"), BrowseItem(id: "", title: "No id", playable: true), BrowseItem(id: "blank", title: "  ", playable: true),
            BrowseItem(id: "inert", title: "Inert"), badCompletion, negative, notANumber, track("ok", "Again"), done,
        ]
        let core = makeCore(FakeProvider(tree: ["list": list]))
        let answer = await core.children(of: "list", page: 0, pageSize: 50, for: .full)
        #expect(answer.ids == ["ok", "done"])
        #expect(answer.total == 2)
        let invalid = await core.reports.filter { $0.code == BrowseReportCode.itemInvalid }
        #expect(invalid.count == 7)
        #expect(invalid.contains { $0.itemId == nil && $0.message.contains("No id") && $0.message.contains("empty id") })
        #expect(invalid.contains { $0.itemId == "blank" && $0.message.contains("empty title") })
        #expect(invalid.contains { $0.itemId == "inert" && $0.message.contains("neither browsable nor playable") })
        #expect(invalid.contains { $0.itemId == "half" && $0.message.contains("outside 0…1") })
        #expect(invalid.contains { $0.itemId == "negative" && $0.message.contains("outside 0…1") })
        #expect(invalid.contains { $0.itemId == "nan" && $0.message.contains("outside 0…1") })
        #expect(invalid.contains { $0.itemId == "ok" && $0.message.contains("repeats an id") })

        // The same bad list asked again is not reported again.
        _ = await core.children(of: "list", page: 0, pageSize: 50, for: .full)
        #expect(await core.reports.filter { $0.code == BrowseReportCode.itemInvalid }.count == 7)
    }

    @Test func itemIsCheckedBeforeItIsSent() async {
        let core = makeCore(FakeProvider(tree: ["list": [track("good"), BrowseItem(id: "bad", title: "")]]))
        #expect(await core.item(id: "good", for: .full)?.id == "good")
        #expect(await core.item(id: "bad", for: .full) == nil)
        #expect(await core.item(id: "missing", for: .full) == nil)
        #expect(await core.reports.contains { $0.code == BrowseReportCode.itemInvalid && $0.itemId == "bad" })
    }

    @Test func pagingAndTotal() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        let first = await core.children(of: "tab-albums", page: 0, pageSize: 4, for: .full)
        let second = await core.children(of: "tab-albums", page: 1, pageSize: 4, for: .full)
        let beyond = await core.children(of: "tab-albums", page: 2, pageSize: 4, for: .full)
        #expect(first.ids.count == 4 && first.total == 6)
        #expect(second.ids.count == 2 && second.total == 6)
        #expect(beyond.ids.isEmpty && beyond.total == 6)
        #expect(Set(first.ids + second.ids).count == 6)
        #expect(await core.children(of: "tab-albums", page: -1, pageSize: 4, for: .full).ids.isEmpty)
        #expect(await core.children(of: "tab-albums", page: 0, pageSize: 0, for: .full).ids.count == 6)
    }

    @Test func listsAreCutToTheCarsLimit() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        let answer = await core.children(of: "tab-albums", page: 0, pageSize: 10, for: CarProfile(maxItemsPerList: 2))
        #expect(answer.ids == ["album-northern-lights", "album-harbour-sessions"])
        #expect(answer.total == 2)
        #expect(await core.reports.contains { $0.code == BrowseReportCode.listCut && $0.itemId == "tab-albums" })
    }

    @Test func providerWithoutSearch() async {
        let core = makeCore(FakeProvider(tree: [BrowseItem.rootId: [tab("t")]], searchable: false))
        #expect(!core.supportsSearch)
        let full = await core.search("anything", page: 0, pageSize: 10, for: .full)
        guard case .error(let error) = full else {
            Issue.record("expected a notSupported screen, got \(full)")
            return
        }
        #expect(error.code == .notSupported)
        #expect(await core.search("anything", page: 0, pageSize: 10, for: .legacy) == .empty)
        await #expect(throws: BrowseError.self) { try await core.searchForPlay("anything") }
        do {
            _ = try await core.searchForPlay("anything")
        } catch {
            #expect(error.code == .notSupported)
        }
    }

    @Test func catalogSearchIgnoresCase() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        #expect(core.supportsSearch)
        let lower = await core.search("aurora", page: 0, pageSize: 50, for: .full)
        let upper = await core.search("AURORA", page: 0, pageSize: 50, for: .full)
        #expect(lower == upper)
        #expect(lower.ids.contains("album-northern-lights") && lower.ids.contains("pp-2"))
        #expect(lower.items.allSatisfy { ($0.artist ?? $0.title).contains("Aurora") })
        // By album name: the album and its tracks.
        let byAlbum = await core.search("harbour", page: 0, pageSize: 50, for: .full)
        #expect(Set(byAlbum.ids) == ["album-harbour-sessions", "hs-1", "hs-2", "hs-3"])
        #expect(await core.search("   ", page: 0, pageSize: 50, for: .full).ids.isEmpty)
        // Tabs are not search results.
        #expect(await core.search("albums", page: 0, pageSize: 50, for: .full).ids.isEmpty)
        let play = try await core.searchForPlay("midnight sun")
        #expect(play.map(\.id) == ["nl-4"])
    }

    @Test func siblingsAreThePlayableChildrenOfTheLastParent() async throws {
        let core = makeCore(try Fixtures.demoProvider())
        #expect(await core.siblings(of: "nl-2") == nil)  // never listed yet
        _ = await core.children(of: "album-northern-lights", page: 0, pageSize: 10, for: .full)
        let queue = try #require(await core.siblings(of: "nl-2"))
        #expect(queue.items.map(\.id) == ["nl-1", "nl-2", "nl-3", "nl-4"])
        #expect(queue.index == 1)
        _ = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full)
        #expect(await core.siblings(of: "track-welcome") == nil)  // a root entry has no queue
    }
}
