import Testing

@Test func placeholderMessages() { #expect(Bool(true)) }
