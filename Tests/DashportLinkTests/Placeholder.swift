import Testing

@Test func placeholderLink() { #expect(Bool(true)) }
