#!/usr/bin/env python3
"""Writes the AAP frame fixtures in this folder straight from aap-protocol.md §1 and §8,
independently of the Swift codec (which is tested against them). Run from anywhere:

    python3 Fixtures/frames/generate.py

Small fixtures are written as hex text (.hex, two hex digits per byte, whitespace ignored),
large ones as raw bytes (.bin). The output is deterministic; rerunning must not change git.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def frame(channel, flags, payload, total=None):
    """Header (4 bytes, or 8 when flags & 3 == FIRST) + payload."""
    header = struct.pack(">BBH", channel, flags, len(payload))
    if flags & 0x03 == 0x01:
        header += struct.pack(">I", total)
    return header + payload


def pattern(count, seed):
    """Deterministic filler bytes: (i * 7 + seed) mod 256."""
    return bytes((i * 7 + seed) & 0xFF for i in range(count))


def tls_record(plaintext_len, seed):
    """A synthetic TLS 1.2 AES-GCM application-data record: 5-byte header, then 8 nonce bytes,
    ciphertext and a 16-byte tag, all filler (29 bytes overhead, as aap-protocol.md §2.7)."""
    body = pattern(8 + plaintext_len + 16, seed)
    return struct.pack(">BHH", 0x17, 0x0303, len(body)) + body


def write_hex(name, data):
    lines = [" ".join(f"{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_bin(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


# VERSION_REQUEST 1.6 as aasdk sends it: ch 0, BULK plaintext, id 1, major 1, minor 6.
write_hex("version-request.hex", frame(0, 0x03, struct.pack(">HHH", 1, 1, 6)))

# VERSION_RESPONSE 1.7 status OK (message 00 02 00 01 00 07 00 00) as one BULK frame on ch 0.
write_hex("version-response.hex", frame(0, 0x03, struct.pack(">HHHH", 2, 1, 7, 0)))

# A 40,000-byte plaintext message (id 0x8003 + 39,998 filler bytes, seed 3) on ch 13, cut the
# way a real phone does: FIRST 16120 (total 40000), MIDDLE 16124, LAST 7756.
message = struct.pack(">H", 0x8003) + pattern(39998, 3)
write_bin("message-40000-first-middle-last.bin",
          frame(13, 0x01, message[:16120], total=len(message))
          + frame(13, 0x00, message[16120:32244])
          + frame(13, 0x02, message[32244:]))

# Encrypted BULK on ch 0 (flags 0x0B): a TLS record for a 6-byte plaintext (35-byte payload).
write_hex("encrypted-bulk.hex", frame(0, 0x0B, tls_record(6, 11)))

# Encrypted control-namespace message on ch 8 (flags 0x0F, e.g. CHANNEL_OPEN_RESPONSE).
write_hex("encrypted-control.hex", frame(8, 0x0F, tls_record(4, 17)))

# An empty LAST frame (aasdk, §8.2): ch 5, flags 0x0A (encrypted LAST), length 0, no payload.
write_hex("empty-last.hex", frame(5, 0x0A, b""))

# aasdk's shape of a message that is an exact multiple of 16384, in plaintext so it reassembles:
# ch 3, FIRST 16384 bytes with total 32768, MIDDLE 16384 bytes, then an empty LAST.
# The message is id 0x8001 + 32,766 filler bytes (seed 5).
message = struct.pack(">H", 0x8001) + pattern(32766, 5)
write_bin("aasdk-32768-empty-last.bin",
          frame(3, 0x01, message[:16384], total=len(message))
          + frame(3, 0x00, message[16384:])
          + frame(3, 0x02, b""))
