@testable import DashportWebEmulator
import Testing

/// The JSON the page reads: escapes, key order, numbers JSON can carry.
@Suite struct WebJSONTests {
    @Test func stringsAreEscapedForJSONAndForAPage() {
        let value = WebJSON.object([("a", .string("q\"b\\\n\t</script>&\u{1}\u{2028}")), ("n", .null)])
        #expect(value.text == #"{"a":"q\"b\\\n\t\u003c/script\u003e\u0026\u0001\u2028","n":null}"#)
    }

    @Test func numbersAndOrder() {
        let value = WebJSON.object([
            ("z", .int(-3)), ("a", .double(1.5)), ("w", .double(2)), ("nan", .double(.nan)), ("l", .array([.bool(true)])),
        ])
        #expect(value.text == #"{"z":-3,"a":1.5,"w":2,"nan":null,"l":[true]}"#)
    }
}
