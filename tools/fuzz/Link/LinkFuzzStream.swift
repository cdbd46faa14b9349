// The FuzzLinkStream driver: the running link's input as a plaintext byte stream. Shared with
// Tests/DashportLinkTests like LinkFuzz.swift.
import DashportFrames
import DashportTLS

extension LinkFuzz {
    /// The `FuzzLinkStream` target: the phone past its handshake (a copy of the null-layer pair
    /// linked once for byte 0's head-unit flags, bits 1–6 as in `Script`; bits 0 and 7 unused)
    /// receives the rest of the input as the head unit's byte stream, in input-derived pieces with
    /// the clock moving between them. The stream is written in plaintext: every frame whose flags
    /// say encrypted carries its message bytes as they are, and `seal` makes each one a null record
    /// numbered as the phone expects, so no input is spent on spelling records and every byte
    /// goes through the real frame decoder, reassembly, the link's checks and its dispatch.
    /// Same invariants as `FuzzLinkRunning`'s stream mode (the head unit reads and checks all the
    /// phone sends; a bye-bye ends every input). Records out of order, alerts and the
    /// one-record-per-frame check are `FuzzLinkRunning`'s (its stream mode spells the records).
    public static func runPlaintextStream(_ input: [UInt8]) {
        guard !input.isEmpty else { return }
        linkedPair(input).runStream(sealed: true)
    }

    /// `plain` as wire bytes: frames are read as the wire has them (channel, flags, a 2-byte
    /// length, a 4-byte total after a FIRST header), but the length counts the plaintext; an
    /// encrypted frame with a payload gets it as one null record (`NullRecordLayer`'s format,
    /// numbered from `firstRecord`, its length then 29 bytes more, the plaintext cut to fit
    /// 65535). Other frames are copied as they are; a frame the input ends inside is copied as
    /// far as it goes, so the link waits for the rest.
    static func seal(_ plain: ArraySlice<UInt8>, firstRecord: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(plain.count + 64)
        var index = plain.startIndex
        var record = firstRecord
        while plain.endIndex - index >= 4 {
            let flags = FrameFlags(rawValue: plain[index + 1])
            let headerSize = flags.type == .first ? 8 : 4
            let declared = Int(plain[index + 2]) << 8 | Int(plain[index + 3])
            let start = index + headerSize
            guard start <= plain.endIndex, plain.endIndex - start >= declared else { break }
            guard flags.contains(.encrypted), declared > 0 else {
                out += plain[index..<(start + declared)]
                index = start + declared
                continue
            }
            let length = min(declared, Int(UInt16.max) - FrameLimits.tlsRecordOverhead)
            let recordLength = length + FrameLimits.tlsRecordOverhead
            out += [plain[index], plain[index + 1], UInt8(recordLength >> 8), UInt8(recordLength & 0xFF)]
            out += plain[(index + 4)..<start]
            let body = recordLength - 5
            out += [23, 3, 3, UInt8(body >> 8), UInt8(body & 0xFF)]
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: record >> UInt64(shift))) }
            out += plain[start..<(start + length)]
            out += repeatElement(0, count: 16)
            record &+= 1
            index = start + length
        }
        out += plain[index...]
        return out
    }
}
