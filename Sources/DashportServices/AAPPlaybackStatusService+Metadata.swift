import DashportMessages
import DashportSession
import DashportLog

/// The cover of the current item, as far as this service knows it. Only the current item's cover
/// is kept: an item change to another URI forgets it.
struct ArtworkState: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        /// Asked for with `.fetchArtwork`. Metadata waits for it until `budgetEndsAt`; nil means the
        /// budget ran out and metadata already went without art.
        case fetching(budgetEndsAt: Duration?)
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
    /// The cover answer for a `.fetchArtwork` this service asked for: encoded image bytes, or nil
    /// when the fetch failed or the item has no cover.
    ///
    /// Timing rules: metadata for a new item waits for its cover up to
    /// ``Configuration/artworkBudget``, then goes without it (at the next ``tick(now:)``); a cover
    /// that arrives later is sent in a second metadata message. A nil, empty or oversized answer
    /// sends metadata without art (once). A cover for an item that is no longer current (or whose
    /// cover URI changed meanwhile) is dropped. Items that share a cover URI share one fetch.
    public mutating func artworkArrived(itemId: String, bytes: [UInt8]?) -> [Action] {
        guard var artwork, case .fetching = artwork.phase, artwork.requestedFor == itemId,
            item?.artworkUri == artwork.uri
        else {
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
        return actions + sendMetadata(for: artwork.phase)
    }

    /// When metadata stops waiting for the cover being fetched, if it is still waiting.
    var artworkBudgetEnd: Duration? {
        guard case .fetching(let end)? = artwork?.phase else { return nil }
        return end
    }

    /// Sends metadata without art once the cover's budget has run out.
    mutating func artworkBudgetCheck(now: Duration) -> [Action] {
        guard var artwork, case .fetching(let end?) = artwork.phase, end <= now else { return [] }
        artwork.phase = .fetching(budgetEndsAt: nil)
        self.artwork = artwork
        return sendMetadata(art: nil)
    }

    /// The current item changed (or the service started): metadata now, or a cover fetch first.
    mutating func itemChanged(now: Duration) -> [Action] {
        guard let item, let uri = item.artworkUri, !uri.isEmpty else {
            artwork = nil
            return sendMetadata(art: nil)
        }
        if let artwork, artwork.uri == uri {
            return sendMetadata(for: artwork.phase)
        }
        artwork = ArtworkState(
            uri: uri, requestedFor: item.id, phase: .fetching(budgetEndsAt: now + configuration.artworkBudget))
        return [
            .fetchArtwork(
                uri: uri, width: max(1, configuration.artworkWidth), height: max(1, configuration.artworkHeight),
                itemId: item.id)
        ]
    }

    /// Metadata as the cover's phase allows: with art when ready, without when unavailable or over
    /// budget, nothing yet while the budget runs.
    mutating func sendMetadata(for phase: ArtworkState.Phase) -> [Action] {
        switch phase {
        case .ready(let bytes): sendMetadata(art: bytes)
        case .unavailable, .fetching(budgetEndsAt: .none): sendMetadata(art: nil)
        case .fetching: []
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
