import Testing

@Test func placeholderTransport() { #expect(Bool(true)) }
