import DashportTestSupport
import Foundation
import Testing
import DashportMessages
@testable import DashportServer

/// The AAP classic media browser over real TCP: a head unit asks for nodes by path and gets the
/// demo library's tabs, lists and songs, with covers, from the same browse core.
@Suite("Classic media browser over TCP", .serialized)
struct ClassicBrowserOverTCPTests {
    static let browserChannel: UInt8 = 15

    func node<M: WireMessage>(_ type: M.Type, id: UInt16, path: String, start: Int32? = nil, art: Bool = true, car: TestCar) async throws
        -> M
    {
        let before = await car.messages(on: Self.browserChannel).count
        let request = AAP.MediaGetNode(path: path, start: start, getAlbumArt: art)
        await car.sendUnchecked(channel: Self.browserChannel, messageId: 0x8005, body: request.serializedBytes())
        try await car.waitUntil("node for \(path)") { $0.messages(on: Self.browserChannel).count > before }
        let answer = try #require(await car.messages(on: Self.browserChannel).last)
        #expect(answer.id == id)
        return try M(serializedBytes: answer.body)
    }

    /// The server's time stands still, so the source node waits for its list covers (up to the
    /// artwork deadline, which never comes) however long scaling them takes on a loaded machine.
    @Test func aHeadUnitWalksRootSourceListAndSong() async throws {
        try await TestServer.with(clock: ManualClock()) { server in
            let car = try await TestCar.connect(to: server.server.address)
            try await car.waitUntil("channels open") { $0.openedChannels.contains(Self.browserChannel) }

            let root = try await node(AAP.MediaRootNode.self, id: 0x8001, path: "/", car: car)
            #expect(root.mediaSources.count == 4)
            #expect(root.mediaSources.allSatisfy { !$0.name.isEmpty && !$0.path.isEmpty })

            let albums = try #require(root.mediaSources.first { $0.name.lowercased().contains("album") })
            let source = try await node(AAP.MediaSourceNode.self, id: 0x8002, path: albums.path, car: car)
            #expect((source.total ?? 0) > 0)
            let list = try #require(source.lists.first)
            #expect(list.albumArt.map { !$0.isEmpty } == true)

            let listNode = try await node(AAP.MediaListNode.self, id: 0x8003, path: list.path, art: false, car: car)
            let song = try #require(listNode.songs.first)
            #expect(!song.name.isEmpty)

            let songNode = try await node(AAP.MediaSongNode.self, id: 0x8004, path: song.path, art: false, car: car)
            #expect(songNode.song.name == song.name)
            #expect((songNode.durationSeconds ?? 0) > 0)
            #expect(songNode.albumArt == nil)
            await car.abort()  // the server's time stands still: its bye-bye grace would never end
        }
    }
}
