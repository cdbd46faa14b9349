import Testing

@Test func placeholderTLS() { #expect(Bool(true)) }
