extension SessionCore {
    /// The handler's sound, for the server's audio pump (nil: the handler makes none).
    public nonisolated var audioSource: (any SessionAudioSource)? { handler.audioSource }
}
