import Testing

@Test func placeholderArtwork() { #expect(Bool(true)) }
