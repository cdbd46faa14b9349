import DashportArtwork
import DashportBrowse
import DashportServices
import DashportSession

/// Performing what the media channel asks of the core: browse (memoised pages answered on the
/// worker), search, items, commands and artwork.
extension HostedMediaChannel {
    mutating func perform(_ actions: [MediaChannelAction], host: ServiceHost) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        let browse = host.core.browse
        let artwork = host.core.artwork
        for action in actions {
            switch action {
            case .send(let message):
                out.append(message)
            case .browse(let ticket, .children(let parentId, let page, let pageSize, let car)):
                // The fast path: a memoised answer is answered here, in the step that read the
                // request, with no task, no hop and no round trip through the car's mailbox (issue
                // 22, item 2: posting it cost a second input, its lock and a boxed payload).
                let key = AnswerMemo.Key(parentId: parentId, page: page, pageSize: pageSize, car: car)
                if let memo = host.answers.lookup(key) {
                    out += answered(
                        ticket, memo.answer, artworkKeys: memo.artworkKeys, carReports: memo.carReports, encoded: memo.encodedPage,
                        host: host)
                    continue
                }
                let answers = host.answers
                let generation = answers.generation
                host.request {
                    let (answer, reports) = await browse.childrenReporting(of: parentId, page: page, pageSize: pageSize, for: car)
                    let keys = await artworkKeys(for: MediaChannelService.artworkURIs(in: answer), artwork)
                    // Encoded here, on the pool, once: every hit sends these bytes. Kept with the
                    // reports this car's profile caused (a tab dropped, a branch cut), which a hit
                    // tells the car again, exactly as a fresh answer would.
                    let encoded =
                        AnswerMemo.keeps(answer)
                        ? MediaChannelService.encodedItemPage(answer, page: page, pageSize: pageSize, artworkKeys: keys) : nil
                    answers.store(
                        AnswerMemo.Entry(answer: answer, artworkKeys: keys, carReports: reports, encodedPage: encoded), for: key,
                        generation: generation)
                    return Input.browse(ticket, answer, artworkKeys: keys, carReports: reports)
                }
            case .browse(let ticket, .search(let query, let page, let pageSize, let car)):
                host.request {
                    let answer = await browse.search(query, page: page, pageSize: pageSize, for: car)
                    return Input.browse(
                        ticket, answer, artworkKeys: await artworkKeys(for: MediaChannelService.artworkURIs(in: answer), artwork))
                }
            case .browse(let ticket, .item(let id, let car)):
                host.request {
                    let (item, reports) = await browse.itemReporting(id: id, for: car)
                    return Input.item(
                        ticket, item, artworkKeys: await artworkKeys(for: MediaChannelService.artworkURIs(in: item), artwork),
                        carReports: reports)
                }
            case .command(let ticket, let command, let source):
                host.perform(command, from: source) { Input.command(ticket, $0) }
            case .artwork(let ticket, let key, let width, let height):
                host.run {
                    do throws(ArtworkError) {
                        let image = try await artwork.image(for: ArtworkKey(rawValue: key), width: width, height: height)
                        return Input.artwork(
                            ticket,
                            .success(
                                MediaChannelArtworkImage(
                                    bytes: image.bytes, mimeType: image.mimeType, width: image.width, height: image.height)))
                    } catch {
                        return Input.artwork(ticket, .failure(MediaChannelArtworkFailure(error)))
                    }
                }
            }
        }
        return out
    }
}

/// Registers each URI with the artwork endpoint; the map holds the keys of those it accepted.
func artworkKeys(for uris: Set<String>, _ artwork: ArtworkService) async -> [String: String] {
    guard !uris.isEmpty else { return [:] }
    return await artwork.register(all: uris).mapValues(\.rawValue)
}

extension MediaChannelArtworkFailure {
    /// The wire's artwork error for an artwork pipeline error.
    init(_ error: ArtworkError) {
        let code: Code =
            switch error {
            case .notRegistered, .outsideRoots, .unsupportedScheme: .notFound
            case .tooLarge, .httpStatus, .tooManyRedirects, .timeout, .io, .backingOff, .storage: .fetchFailed
            case .decodeFailed, .tooManyPixels: .decodeFailed
            default: .unknown
            }
        self.init(code: code, message: error.carMessage)  // never a server path or URI
    }
}
