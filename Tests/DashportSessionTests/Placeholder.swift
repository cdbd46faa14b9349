import Testing

@Test func placeholderSession() { #expect(Bool(true)) }
