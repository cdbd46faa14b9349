import DashportMessages
import DashportSession
import DashportLog

/// The cover of the current item, as far as this service knows it. Only the current item's cover
/// is kept: an item change to another URI forgets it.
struct ArtworkState: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        /// Asked for with `.fetchArtwork`; the driver's cache answer has not come. Metadata and
        /// every status wait for it (an event, never a timer).
        case lookingUp
        /// Not in the cache: metadata went without art, the cover follows when it is fetched.
        case fetching
        /// Encoded image bytes, sent with every metadata message of an item with this URI.
        case ready([UInt8])
        /// The fetch failed, found nothing, or was too large: metadata goes without art.
        case unavailable
    }

    var uri: String
    /// The item id the fetch was asked for; the driver's answer names it.
    var requestedFor: String
    var phase: Phase
}

extension AAPPlaybackStatusService {
    /// The cover for a `.fetchArtwork` this service asked for: encoded image bytes, or nil when
    /// the fetch failed or the item has no cover.
    ///
    /// Order rules (decided by events, never by time): on an item change with a cover not yet
    /// known, metadata and statuses wait for the driver's first answer, which comes from the cache
    /// alone. A cached cover (this call, before ``artworkNotCached(itemId:)``) goes with the first
    /// metadata, and the statuses follow it; a cover that is not cached
    /// (``artworkNotCached(itemId:)``) means metadata without art at once, then the statuses, and
    /// the cover in a second metadata message when this call brings it. A nil, empty or oversized
    /// answer sends metadata without art (once). A cover for an item that is no longer current
    /// (or whose cover URI changed meanwhile) is dropped. Items that share a cover URI share one fetch.
    public mutating func artworkArrived(itemId: String, bytes: [UInt8]?) -> [Action] {
        guard var artwork, artwork.phase == .lookingUp || artwork.phase == .fetching, isCurrent(artwork, itemId) else {
            return [
                .log(
                    AAPServiceLog(
                        level: .debug, message: "cover for item '\(itemId)' arrived after the item changed, dropped"))
            ]
        }
        var actions: [Action] = []
        if let bytes, !bytes.isEmpty, bytes.count <= configuration.maxArtworkBytes {
            artwork.phase = .ready(bytes)
        } else {
            if let bytes, bytes.count > configuration.maxArtworkBytes {
                actions.append(
                    .log(
                        AAPServiceLog(
                            level: .warning,
                            message:
                                "cover of \(bytes.count) bytes is over the \(configuration.maxArtworkBytes)-byte cap; metadata goes without art"
                        )))
            }
            artwork.phase = .unavailable
        }
        self.artwork = artwork
        return actions + sendMetadata(for: artwork.phase) + releaseHeldStatuses()
    }

    /// The driver's cache has no copy of the cover asked for: metadata without art goes now, the
    /// statuses that waited follow it, and the cover comes later in ``artworkArrived(itemId:bytes:)``.
    public mutating func artworkNotCached(itemId: String) -> [Action] {
        guard var artwork, artwork.phase == .lookingUp, isCurrent(artwork, itemId) else { return [] }
        artwork.phase = .fetching
        self.artwork = artwork
        return sendMetadata(art: nil) + releaseHeldStatuses()
    }

    private func isCurrent(_ artwork: ArtworkState, _ itemId: String) -> Bool {
        artwork.requestedFor == itemId && item?.artworkUri == artwork.uri
    }

    /// Whether the current item's metadata waits for the cache's answer; statuses wait with it.
    var isMetadataHeld: Bool { artwork?.phase == .lookingUp }

    /// A status to send, or to hold while the metadata waits (the newest
    /// ``maxHeldStatuses`` are kept, in order).
    mutating func emitStatus(now: Duration) -> [Action] {
        let status = sendStatus(now: now)
        guard isMetadataHeld else { return [status] }
        heldStatuses.append(status)
        if heldStatuses.count > Self.maxHeldStatuses { heldStatuses.removeFirst(heldStatuses.count - Self.maxHeldStatuses) }
        return []
    }

    /// The statuses that waited for the metadata, once it no longer waits.
    mutating func releaseHeldStatuses() -> [Action] {
        guard !isMetadataHeld else { return [] }
        defer { heldStatuses = [] }
        return heldStatuses
    }

    /// The current item changed (or the service started): metadata now, or a cache lookup first.
    mutating func itemChanged(now: Duration) -> [Action] {
        guard let item, let uri = item.artworkUri, !uri.isEmpty else {
            artwork = nil
            return sendMetadata(art: nil) + releaseHeldStatuses()
        }
        if let artwork, artwork.uri == uri {
            return sendMetadata(for: artwork.phase) + releaseHeldStatuses()
        }
        artwork = ArtworkState(uri: uri, requestedFor: item.id, phase: .lookingUp)
        return [
            .fetchArtwork(
                uri: uri, width: max(1, configuration.artworkWidth), height: max(1, configuration.artworkHeight),
                itemId: item.id)
        ]
    }

    /// Metadata as the cover's phase allows: with art when ready, without when unavailable or
    /// still being fetched, nothing yet while the cache's answer is awaited.
    mutating func sendMetadata(for phase: ArtworkState.Phase) -> [Action] {
        switch phase {
        case .ready(let bytes): sendMetadata(art: bytes)
        case .unavailable, .fetching: sendMetadata(art: nil)
        case .lookingUp: []
        }
    }

    /// Sends the current item's metadata with `art`, unless the car already has exactly this.
    mutating func sendMetadata(art: [UInt8]?) -> [Action] {
        let metadata = metadataMessage(art: art)
        guard metadata != lastMetadata else { return [] }
        lastMetadata = metadata
        return [
            .send(
                OutgoingMessage(
                    channel: channel, messageId: UInt16(aap: AAP.MediaPlaybackStatusMessageId.metadata.rawValue),
                    message: metadata))
        ]
    }

    /// The metadata message for the current item, mapped onto the fields AAP has: song (title),
    /// artist (else the album artist, else the subtitle), album always set (empty when unknown);
    /// whole seconds of duration only for an item with a known length that is not live (a live or
    /// unknown-length item is never a 0-second track), and 0 when nothing plays (which clears the
    /// car's screen); album art only with a cover. Genre, numbers, year and extras have no AAP field.
    func metadataMessage(art: [UInt8]?) -> AAP.MediaPlaybackMetadata {
        var duration: UInt32? = 0
        if let item { duration = item.hasScrubber ? UInt32(clamping: max(0, item.durationMs ?? 0) / 1000) : nil }
        return AAP.MediaPlaybackMetadata(
            song: item?.title ?? "",
            artist: item?.artist ?? item?.albumArtist ?? item?.subtitle ?? "",
            album: item?.album ?? "",
            albumArt: art,
            durationSeconds: duration)
    }
}
