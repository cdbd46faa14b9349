/// The 44-byte header of a canonical PCM WAV file (RIFF, one `fmt ` chunk, one `data` chunk),
/// for `dashport-hu --save-audio`. All fields little-endian.
public enum WAVHeader {
    public static let size = 44

    /// The header for `dataBytes` bytes of interleaved PCM. Sizes past 4 GiB saturate (a WAV
    /// cannot say more; readers then go by the file's length).
    public static func bytes(sampleRate: UInt32 = 48_000, channels: UInt16 = 2, bitsPerSample: UInt16 = 16, dataBytes: Int) -> [UInt8] {
        let data = UInt32(clamping: dataBytes)
        let blockAlign = channels &* (bitsPerSample / 8)
        var out: [UInt8] = []
        out.reserveCapacity(size)
        func append(_ text: String) { out.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        func append16(_ value: UInt16) {
            out.append(UInt8(truncatingIfNeeded: value))
            out.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        append("RIFF")
        append32(data > UInt32.max - 36 ? .max : data + 36)
        append("WAVE")
        append("fmt ")
        append32(16)  // the fmt chunk's size
        append16(1)  // PCM
        append16(channels)
        append32(sampleRate)
        append32(sampleRate &* UInt32(blockAlign))
        append16(blockAlign)
        append16(bitsPerSample)
        append("data")
        append32(data)
        return out
    }

    /// Interleaved S16 samples as little-endian bytes, as WAV and `aplay -f S16_LE` take them.
    /// One copy, no loop per sample: a debug build of the emulator under QEMU's TCG (the USB test)
    /// must keep up with 48 kHz stereo, and a per-sample loop there cost more than a core.
    public static func littleEndian(_ samples: [Int16]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count * 2)
        #if _endian(big)
        for (index, sample) in samples.enumerated() {
            let bits = UInt16(bitPattern: sample)
            out[2 * index] = UInt8(truncatingIfNeeded: bits)
            out[2 * index + 1] = UInt8(truncatingIfNeeded: bits >> 8)
        }
        #else
        out.withUnsafeMutableBytes { destination in samples.withUnsafeBytes { destination.copyMemory(from: $0) } }
        #endif
        return out
    }

    /// The S16 samples in little-endian `bytes` (a trailing odd byte is ignored); one copy, as
    /// ``littleEndian(_:)``.
    public static func samples(littleEndian bytes: ArraySlice<UInt8>) -> [Int16] {
        var samples = [Int16](repeating: 0, count: bytes.count / 2)
        #if _endian(big)
        var index = bytes.startIndex
        for sample in samples.indices {
            samples[sample] = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            index += 2
        }
        #else
        samples.withUnsafeMutableBytes { destination in
            bytes.withUnsafeBytes { destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(destination.count))) }
        }
        #endif
        return samples
    }
}
