import DashportMessages
import Testing

/// The generated JSON form (session recordings' bodies): every message round-trips through JSON
/// text, the mapping is what the docs say, and bad JSON is refused naming the field.
@Suite struct JSONFormTests {
    /// Every message with every field set, through its JSON text and back.
    @Test(arguments: WireSamples.full)
    func everyMessageRoundTripsThroughJSONText(sample: WireSample) throws {
        let decoded = try roundTrip(sample.message)
        let same = isEqual(sample.message, decoded)
        #expect(same, "\(sample.name)")
    }

    @Test(arguments: WireSamples.empty)
    func emptyMessagesRoundTrip(sample: WireSample) throws {
        let decoded = try roundTrip(sample.message)
        let same = isEqual(sample.message, decoded)
        #expect(same, "\(sample.name)")
    }

    func roundTrip(_ message: any WireMessage) throws -> any WireMessage {
        let json = try #require(message as? any JSONMessage)
        return try reread(json)
    }

    func reread<M: JSONMessage>(_ message: M) throws -> any WireMessage {
        let text = message.jsonValue.description
        return try M(json: try JSONValue(parsing: text))
    }

    @Test func mappingFollowsTheDocumentedRules() {
        let request = DashportMedia.GetChildren(requestId: 7, parentId: "tab-albums", page: 2)
        #expect(request.jsonValue.description == #"{"requestId":7,"parentId":"tab-albums","page":2}"#)
        let command = DashportMedia.PlaybackCommand(requestId: 3, command: .setRepeatMode(.all))
        #expect(command.jsonValue.description == #"{"requestId":3,"setRepeatMode":"all"}"#)
        let ping = AAP.PingRequest(timestamp: Int64.min, data: [0, 0xFF, 0x10])
        #expect(ping.jsonValue.description == #"{"timestamp":-9223372036854775808,"data":"AP8Q"}"#)
        let unnamed = DashportMedia.PlaybackCommand(requestId: 1, command: .setRepeatMode(.init(rawValue: 99)))
        #expect(unnamed.jsonValue.description == #"{"requestId":1,"setRepeatMode":99}"#)
    }

    @Test(arguments: [
        (#"{"requestId":1,"nope":2}"#, "GetChildren.nope"),
        (#"{"requestId":"x"}"#, "GetChildren.requestId"),
        (#"{"requestId":4294967296}"#, "GetChildren.requestId"),
        (#"{"page":{"size":1}}"#, "GetChildren.page"),
        (#"[1]"#, "GetChildren"),
    ])
    func badJSONIsRefusedNamingTheField(text: String, path: String) throws {
        let error = #expect(throws: JSONDecodingError.self) {
            try DashportMedia.GetChildren(json: try JSONValue(parsing: text))
        }
        #expect(error?.path == path)
    }

    @Test func aSecondOneofMemberIsRefused() {
        #expect(throws: JSONDecodingError.self) {
            try DashportMedia.PlaybackCommand(json: try JSONValue(parsing: #"{"requestId":1,"play":{},"pause":{}}"#))
        }
    }

    @Test(arguments: ["", "{", #"{"a":}"#, "[1,]", "tru", #""\x""#, "01x", #"{"a":1} 2"#, String(repeating: "[", count: 100)])
    func malformedTextIsRefused(text: String) {
        #expect(throws: JSONDecodingError.self) { try JSONValue(parsing: text) }
    }

    @Test func stringsEscapeAndUnescape() throws {
        let text = "quote \" backslash \\ newline \n tab \t nul \u{0} snowman ☃ emoji 🚗"
        let encoded = JSONValue.string(text).description
        #expect(try JSONValue(parsing: encoded) == .string(text))
        #expect(try JSONValue(parsing: #""\ud83d\ude97""#) == .string("🚗"))
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 100, 257])
    func base64RoundTrips(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }

    @Test func base64MatchesRFC4648() {
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.decode("Zm8") == nil)
        #expect(Base64.decode("Z=8=") == nil)
    }
}
