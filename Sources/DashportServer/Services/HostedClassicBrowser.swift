import DashportArtwork
import DashportBrowse
import DashportLink
import DashportServices
import DashportSession

/// The classic AAP media browser (Service field 11) as a car connection hosts it: browse pages,
/// items and covers from the core, and plays.
struct HostedClassicBrowser: HostedService {
    enum Input: Sendable {
        case children(ClassicBrowserService.Ticket, BrowseAnswer)
        case item(ClassicBrowserService.Ticket, BrowseItem?)
        case artwork(ClassicBrowserService.Ticket, [UInt8]?)
        case commandFinished(SessionCommand, CommandResult)
    }

    var service: ClassicBrowserService

    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])? {
        guard case .mediaBrowser = service.kind else { return nil }
        return (
            HostedClassicBrowser(
                service: ClassicBrowserService(channel: service.channel, car: host.carName, logger: host.connectionLogger)), []
        )
    }

    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.receive(messageId: messageId, body: body, now: now), host: host)
    }

    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        guard let input = payload as? Input else { return [] }
        switch input {
        case .children(let ticket, let answer): return perform(service.browseAnswered(ticket, answer, now: now), host: host)
        case .item(let ticket, let item): return perform(service.itemAnswered(ticket, item, now: now), host: host)
        case .artwork(let ticket, let bytes): return perform(service.artworkAnswered(ticket, bytes, now: now), host: host)
        case .commandFinished(let command, let result):
            logRejection(command, result, host: host)
            return []
        }
    }

    mutating func tick(host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.tick(now: now), host: host)
    }

    var nextDeadline: Duration? { service.nextDeadline }

    private func perform(_ actions: [ClassicBrowserService.Action], host: ServiceHost) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        let browse = host.core.browse
        let artwork = host.core.artwork
        for action in actions {
            switch action {
            case .send(let message):
                out.append(message)
            case .browse(let ticket, let parentId, let page, let pageSize, let car):
                host.request { Input.children(ticket, await browse.children(of: parentId, page: page, pageSize: pageSize, for: car)) }
            case .fetchItem(let ticket, let itemId, let car):
                host.request { Input.item(ticket, await browse.item(id: itemId, for: car)) }
            case .fetchArtwork(let ticket, let uri, let width, let height):
                host.run {
                    guard let key = await artwork.register(uri) else { return Input.artwork(ticket, nil) }
                    return Input.artwork(ticket, try? await artwork.image(for: key, width: width, height: height).bytes)
                }
            case .command(let command, let source):
                host.perform(command, from: source) { Input.commandFinished(command, $0) }
            case .problem:
                break  // the service logged it already
            }
        }
        return out
    }
}
