import DashportServices
import DashportArtwork
import DashportBrowse

/// Performing what the classic media browser asks for: browse pages, items and covers.
extension CarServices {
    func perform(_ actions: [ClassicBrowserService.Action], now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        let browse = core.browse
        let artwork = core.artwork
        for action in actions {
            switch action {
            case .send(let message):
                out.append(message)
            case .browse(let ticket, let parentId, let page, let pageSize, let car):
                bridge.run { .classicChildren(ticket, await browse.children(of: parentId, page: page, pageSize: pageSize, for: car)) }
            case .fetchItem(let ticket, let itemId, let car):
                bridge.run { .classicItem(ticket, await browse.item(id: itemId, for: car)) }
            case .fetchArtwork(let ticket, let uri, let width, let height):
                bridge.run {
                    guard let key = await artwork.register(uri) else { return .classicArtwork(ticket, nil) }
                    return .classicArtwork(ticket, try? await artwork.image(for: key, width: width, height: height).bytes)
                }
            case .command(let command, let source):
                if let channel = classic?.channel { send(command, source, channel) }
            case .problem:
                break  // the service logged it already
            }
        }
        return out
    }
}
