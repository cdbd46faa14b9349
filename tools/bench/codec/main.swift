// dashport-bench-codec: what encoding and decoding one message costs through DashportMessages,
// next to protobuf-c alone on the same bytes, in the same run.
//
//   swift run -c release dashport-bench-codec [--rounds N] [--iterations N]
//
// For each message the server encodes or decodes on the browse path (a GET_CHILDREN request, the
// root's four tabs, a page of six albums with covers), it times:
//   - DashportMessages: `serializedBytes()` (Swift value → C graph → bytes) and
//     `init(serializedBytes:)` (bytes → C graph → Swift value);
//   - protobuf-c alone: `protobuf_c_message_pack` of a C graph built once, into a buffer allocated
//     once, and `protobuf_c_message_unpack` + `free_unpacked` of the same bytes: the part of the cost
//     that is protobuf-c's, which the Swift side adds to.
// Methods take turns within each round; medians of the rounds are reported, in ns per message, with
// the ratio to protobuf-c alone. Times are the thread's CPU time. Speed is measured here, never in
// tests.
import CAAPProto
import DashportCommandLine
import DashportMessages
import Foundation

let spec = CommandSpec(
    name: "dashport-bench-codec",
    summary: "Encode and decode cost per message through DashportMessages, next to protobuf-c alone.",
    options: [
        .value("rounds", "N", "rounds; every method runs once per round (default 15)"),
        .value("iterations", "N", "messages per method per round (default 20000)"),
    ])

let (rounds, iterations) = ParsedCommand.parseOrExit(program: "dashport-bench-codec", as: spec) { parsed throws(CommandLineError) in
    (try parsed.integer("rounds") ?? 15, try parsed.integer("iterations") ?? 20_000)
}

/// One message of the browse path, as a Swift value, its bytes and its protoc-c descriptor.
struct Sample {
    let name: String
    let bytes: [UInt8]
    let encode: () -> Int
    let decode: () -> Int
    let descriptor: UnsafePointer<ProtobufCMessageDescriptor>

    init<M: WireMessage>(_ name: String, _ message: M, initialize: (UnsafeMutablePointer<ProtobufCMessage>) -> Void) {
        self.name = name
        let bytes = message.serializedBytes()
        self.bytes = bytes
        encode = { message.serializedBytes().count }
        decode = { (try? M(serializedBytes: bytes)) != nil ? 1 : 0 }
        // The descriptor of the protoc-c twin, read from a struct its …__init function set up
        // (the descriptor globals are `const` C globals; the init function stores their address).
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        defer { probe.deallocate() }
        let base = probe.bindMemory(to: ProtobufCMessage.self, capacity: 1)
        initialize(base)
        // Safe: every protoc-c …__init function sets the descriptor.
        descriptor = base.pointee.descriptor!
    }
}

func album(_ index: Int) -> DashportMedia.BrowseItem {
    var item = DashportMedia.BrowseItem()
    item.id = "album:demo-artist-\(index)/demo-album-\(index)"
    item.title = "Demo Album Number \(index)"
    item.subtitle = "Demo Artist \(index)"
    item.artworkKey = String(repeating: "0123456789abcdef", count: 4)
    item.browsable = true
    item.playable = true
    item.childStyle = .list
    item.mediaType = .album
    item.artist = "Demo Artist \(index)"
    return item
}

func tab(_ id: String, _ title: String) -> DashportMedia.BrowseItem {
    var item = DashportMedia.BrowseItem()
    item.id = id
    item.title = title
    item.browsable = true
    item.childStyle = .grid
    return item
}

let samples = [
    Sample(
        "GET_CHILDREN request (car → server)",
        DashportMedia.GetChildren(requestId: 4711, parentId: "tab:albums", page: 0, pageSize: 50)
    ) {
        dashport__media__get_children__init(UnsafeMutableRawPointer($0).assumingMemoryBound(to: Dashport__Media__GetChildren.self))
    },
    Sample(
        "BROWSE_RESULT, root tabs (4 items)",
        DashportMedia.BrowseResult(
            requestId: 4711,
            outcome: .items(
                DashportMedia.ItemPage(
                    items: [
                        tab("tab:albums", "Albums"), tab("tab:artists", "Artists"), tab("tab:playlists", "Playlists"),
                        tab("tab:podcasts", "Podcasts"),
                    ],
                    page: 0, total: 4, hasMore: false)))
    ) {
        dashport__media__browse_result__init(UnsafeMutableRawPointer($0).assumingMemoryBound(to: Dashport__Media__BrowseResult.self))
    },
    Sample(
        "BROWSE_RESULT, six albums with covers",
        DashportMedia.BrowseResult(
            requestId: 4711,
            outcome: .items(
                DashportMedia.ItemPage(
                    items: (1...6).map(album), page: 0, total: 6, hasMore: false)))
    ) {
        dashport__media__browse_result__init(UnsafeMutableRawPointer($0).assumingMemoryBound(to: Dashport__Media__BrowseResult.self))
    },
]

/// CPU nanoseconds of this thread per call of `body`, over `iterations` calls (CPU time, not wall
/// time: on a shared machine a run that is preempted is not charged for the wait); the results are
/// summed into `sink` so the optimiser keeps every call.
func nanoseconds(_ body: () -> Int, sink: inout Int) -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }
    let start = now()
    for _ in 0..<iterations { sink &+= body() }
    return (now() - start) / Double(iterations)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

var load = [Double](repeating: 0, count: 3)
_ = getloadavg(&load, 3)
let loadBefore = String(format: "%.2f %.2f %.2f", load[0], load[1], load[2])
var sink = 0
print(
    "| message | bytes | encode, DashportMessages | encode, protobuf-c alone | × | decode, DashportMessages | decode, protobuf-c alone | × |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for sample in samples {
    // protobuf-c alone: a C graph unpacked once and packed again and again into one buffer; the
    // same bytes unpacked and freed again and again.
    let graph = sample.bytes.withUnsafeBufferPointer { protobuf_c_message_unpack(sample.descriptor, nil, $0.count, $0.baseAddress) }
    guard let graph else { fatalError("protobuf-c cannot read the bench's own \(sample.name)") }
    defer { protobuf_c_message_free_unpacked(graph, nil) }
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: sample.bytes.count + 16)
    defer { buffer.deallocate() }
    let cEncode = {
        let size = protobuf_c_message_get_packed_size(graph)
        return protobuf_c_message_pack(graph, buffer) + size
    }
    let cDecode = {
        sample.bytes.withUnsafeBufferPointer { bytes in
            guard let unpacked = protobuf_c_message_unpack(sample.descriptor, nil, bytes.count, bytes.baseAddress) else { return 0 }
            protobuf_c_message_free_unpacked(unpacked, nil)
            return 1
        }
    }
    var times: [[Double]] = Array(repeating: [], count: 4)
    for _ in 0..<rounds {
        for (index, method) in [sample.encode, cEncode, sample.decode, cDecode].enumerated() {
            times[index].append(nanoseconds(method, sink: &sink))
        }
    }
    let m = times.map(median)
    func ns(_ value: Double) -> String { String(format: "%.0f ns", value) }
    print(
        "| \(sample.name) | \(sample.bytes.count) | \(ns(m[0])) | \(ns(m[1])) | \(String(format: "%.1f", m[0] / m[1])) "
            + "| \(ns(m[2])) | \(ns(m[3])) | \(String(format: "%.1f", m[2] / m[3])) |")
}
_ = getloadavg(&load, 3)
print(
    "\nThread CPU time, median of \(rounds) rounds of \(iterations) messages per method, methods in turns; load average \(loadBefore) before, "
        + String(format: "%.2f %.2f %.2f", load[0], load[1], load[2]) + " after (checksum \(sink % 10)).")
