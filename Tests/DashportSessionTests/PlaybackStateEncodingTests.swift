import Foundation
import Testing
@testable import DashportSession

/// The persisted session is byte-stable: sets are written in their sorted order, not in the
/// order of a hash seed that differs in every process.
@Suite struct PlaybackStateEncodingTests {
    @Test func capabilitySetsAreWrittenSorted() throws {
        let all = Set(SessionCapability.allCases)
        let state = PlaybackState(controls: all, capabilities: all)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(state)) as? [String: Any])
        let expected = all.sorted().map(\.rawValue)
        #expect(object["controls"] as? [String] == expected)
        #expect(object["capabilities"] as? [String] == expected)
        // And it still reads back as the same state.
        #expect(try JSONDecoder().decode(PlaybackState.self, from: encoder.encode(state)) == state)
    }
}
