import Testing

@Test func placeholderBrowse() { #expect(Bool(true)) }
