import DashportTestSupport
import DashportTransport
import Testing

@Suite struct ListenAddressTests {
    @Test(
        arguments: [
            ("127.0.0.1:5277", "127.0.0.1", 5277, "127.0.0.1:5277"),
            ("0.0.0.0:0", "0.0.0.0", 0, "0.0.0.0:0"),
            ("192.168.1.20:65535", "192.168.1.20", 65535, "192.168.1.20:65535"),
            ("localhost:5277", "127.0.0.1", 5277, "127.0.0.1:5277"),
            ("[::1]:5277", "::1", 5277, "[::1]:5277"),
            ("[::]:0", "::", 0, "[::]:0"),
            ("[0:0:0::0001]:80", "::1", 80, "[::1]:80"),
            ("[FE80::1]:8080", "fe80::1", 8080, "[fe80::1]:8080"),
            ("127.0.0.1:00080", "127.0.0.1", 80, "127.0.0.1:80"),
        ] as [(String, String, Int, String)])
    func parsesValidAddresses(text: String, host: String, port: Int, description: String) throws {
        let address = try ListenAddress.parse(text)
        #expect(address.host == host)
        #expect(Int(address.port) == port)
        #expect(address.description == description)
        #expect(ListenAddress(parsing: text) == address)
        #expect(ListenAddress(parsing: address.description) == address, "description round-trips")
    }

    @Test(
        arguments: [
            ("127.0.0.1", ListenAddress.ParseError.missingPort("127.0.0.1")),
            ("127.0.0.1:70000", .portOutOfRange("70000")),
            ("127.0.0.1:65536", .portOutOfRange("65536")),
            ("127.0.0.1:99999999999999999999", .portOutOfRange("99999999999999999999")),
            ("127.0.0.1:", .invalidPort("")),
            ("127.0.0.1:http", .invalidPort("http")),
            ("127.0.0.1:-1", .invalidPort("-1")),
            ("127.0.0.1:+80", .invalidPort("+80")),
            ("::1:5277", .ipv6NeedsBrackets("::1:5277")),
            ("[::1:5277", .unclosedBracket("[::1:5277")),
            ("[::1]5277", .missingPort("[::1]5277")),
            ("[::1]", .missingPort("[::1]")),
            ("[127.0.0.1]:80", .invalidHost("127.0.0.1")),
            ("[]:80", .invalidHost("")),
            ("example.com:80", .invalidHost("example.com")),
            ("256.1.1.1:80", .invalidHost("256.1.1.1")),
            (":80", .invalidHost("")),
            ("", .missingPort("")),
        ] as [(String, ListenAddress.ParseError)])
    func rejectsInvalidAddressesSayingWhy(text: String, expected: ListenAddress.ParseError) {
        #expect(throws: expected) { try ListenAddress.parse(text) }
        #expect(ListenAddress(parsing: text) == nil)
    }

    @Test func errorsNameTheOffendingText() {
        #expect(
            ListenAddress.ParseError.portOutOfRange("70000").description
                == "\"70000\": the port must be between 0 and 65535")
        #expect(ListenAddress.ParseError.ipv6NeedsBrackets("::1:80").description.contains("[::1]:5277"))
        #expect(ListenAddress.ParseError.invalidHost("example.com").description.contains("example.com"))
    }

    @Test func defaultIsLoopbackOnTheHeadUnitServerPort() {
        #expect(ListenAddress.defaultLoopback.description == "127.0.0.1:5277")
        #expect(ListenAddress.defaultLoopback.isLoopback)
        #expect(ListenAddress(parsing: "[::1]:1")?.isLoopback == true)
        #expect(ListenAddress(parsing: "0.0.0.0:5277")?.isLoopback == false)
    }

    @Test func hostInitializerTakesOnlyNumericHosts() {
        #expect(ListenAddress(host: "::ffff:127.0.0.1", port: 1)?.description == "[::ffff:127.0.0.1]:1")
        #expect(ListenAddress(host: "10.0.0.1", port: 5277)?.description == "10.0.0.1:5277")
        #expect(ListenAddress(host: "car.local", port: 5277) == nil)
    }
}
