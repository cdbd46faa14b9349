import Testing

@Test func placeholderFrames() { #expect(Bool(true)) }
