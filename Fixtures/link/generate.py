#!/usr/bin/env python3
"""Writes the FuzzLink seed inputs (.hex) into this folder. See README.md for the input format.

Frames and protobuf bodies are built by hand from aap-protocol.md, independent of the Swift code.
The ClientHello comes from Python's own OpenSSL through memory BIOs, so it differs on every run
(fresh random); everything else is deterministic.
"""
import os
import ssl
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# Control message ids (aap-protocol.md §2.1).
VERSION_REQUEST, ENCAPSULATED_SSL, AUTH_COMPLETE = 1, 3, 4
SERVICE_DISCOVERY_RESPONSE, CHANNEL_OPEN_RESPONSE, CHANNEL_CLOSE = 6, 8, 9
PING_REQUEST, PING_RESPONSE, BYEBYE_REQUEST = 11, 12, 15


def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, value):
    """A protobuf field: int → varint, bytes/str → length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def message(message_id, body=b""):
    return struct.pack(">H", message_id) + body


def frame(channel, flags, payload, total=None):
    header = struct.pack(">BBH", channel, flags, len(payload))
    if flags & 0x03 == 0x01:
        header += struct.pack(">I", len(payload) if total is None else total)
    return header + payload


def plain(channel, message_id, body=b""):
    return frame(channel, 0x03, message(message_id, body))


def client_hello():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


VERSION_16 = plain(0, VERSION_REQUEST, struct.pack(">HH", 1, 6))

# --- Running-mode operations (byte 0 odd); see README.md -------------------------------------


def op_service(channel_index, message_id, body):
    """The head unit encrypts message_id + body on its open channel number channel_index."""
    if len(body) < 256:
        return bytes([0x01, channel_index]) + struct.pack(">HB", message_id, len(body)) + body
    return bytes([0x41, channel_index]) + struct.pack(">H", message_id) + struct.pack("<H", len(body)) + body


def op_unchecked(channel, message_id, body, encrypted=True):
    return bytes([0x22 if encrypted else 0x02, channel]) + struct.pack(">HB", message_id, len(body)) + body


def op_tick(tens_of_ms):
    return bytes([0x03, tens_of_ms])


def op_phone_send(pick, message_id, size, times17=False):
    return bytes([0x44 if times17 else 0x04, pick]) + struct.pack(">HH", message_id, size)


def op_byebye(from_phone, reason=1):
    return bytes([0x25 if from_phone else 0x05, reason])


def op_control(sub, value, encrypted=False, raw_value=False):
    return bytes([0x06 | (0x20 if encrypted else 0) | (0x40 if raw_value else 0), sub]) + struct.pack(">H", value)


def op_frame(channel, flags, message_id, body, total=0):
    return bytes([0x07, channel, flags]) + struct.pack(">HHB", total, message_id, len(body)) + body


def op_raw(data):
    return bytes([0x00, len(data)]) + data


def service(channel, kind_field, body=b""):
    """A Service entry: its channel id and the field (4 input, 9 playback status, 11 browser, 12 vendor)."""
    return field(1, channel) + (field(kind_field, body) if kind_field else b"")


def discovery(*services, ping_interval=None):
    body = b"".join(field(1, entry) for entry in services) + field(2, "Dashport") + field(3, "Fuzz car")
    if ping_interval is not None:
        body += field(16, field(1, field(2, ping_interval)))
    return body


def op_discovery(body):
    """Running mode with bit 7: the head unit's discovery response body, two length bytes first."""
    return struct.pack("<H", len(body)) + body


MEDIA_KEYS = field(1, b"".join(varint(code) for code in (85, 86, 87, 88, 126, 127)))
AASDK_LIKE = [service(8, 4, MEDIA_KEYS), service(13, 9), service(15, 11), service(16, 12, field(1, "dashport.media"))]


def key(code, down, longpress=None):
    body = field(1, code) + field(2, int(down)) + field(3, 0)
    return body if longpress is None else body + field(4, int(longpress))


def input_report(*keys):
    return field(1, 123456) + field(4, b"".join(field(1, k) for k in keys))


# --- FuzzLinkRunning's stream mode (byte 0 even there): the running phone's raw input ---------
# The null record layer (tools/fuzz/Link/NullRecordLayer.swift): TLS 1.2 AES-GCM's framing with
# the plaintext as it is; the 8-byte nonce must be the phone's next inbound record number, which
# after the in-memory setup of the default car (plain control) is STREAM_FIRST_RECORD: its discovery
# response and five channel-open answers were records 0-5 (LinkFuzzRunningTests checks it).
STREAM_FIRST_RECORD = 6


def null_record(number, plaintext):
    return struct.pack(">BBBH", 23, 3, 3, 8 + len(plaintext) + 16) + struct.pack(">Q", number) + plaintext + bytes(16)


def sealed(channel, number, message_id, body=b"", control=None):
    """One encrypted BULK frame (the control flag for a control id off channel 0, as the link sends)."""
    if control is None:
        control = channel != 0 and 2 <= message_id < 0x8000
    return frame(channel, 0x0B | (0x04 if control else 0), null_record(number, message(message_id, body)))


def sealed_fragments(channel, number, message_id, body, cut):
    whole = message(message_id, body)
    return frame(channel, 0x09, null_record(number, whole[:cut]), total=len(whole)) + frame(
        channel, 0x0A, null_record(number + 1, whole[cut:]))


R = STREAM_FIRST_RECORD


# --- FuzzLinkStream: the same stream written in plaintext -------------------------------------
# The driver (tools/fuzz/Link/LinkFuzzStream.swift, `seal`) turns each encrypted frame's payload
# into the phone's next null record, so these spell frames whose length counts the plaintext.
def clear(channel, message_id, body=b"", control=None):
    """One encrypted BULK frame, its message in plaintext (the control flag as in `sealed`)."""
    if control is None:
        control = channel != 0 and 2 <= message_id < 0x8000
    return frame(channel, 0x0B | (0x04 if control else 0), message(message_id, body))


def clear_fragments(channel, message_id, body, cut):
    whole = message(message_id, body)
    return frame(channel, 0x09, whole[:cut], total=len(whole)) + frame(channel, 0x0A, whole[cut:])


SEEDS = {
    # Raw mode (byte 0 even): wire bytes from a would-be head unit.
    "raw-version-request": b"\x00" + VERSION_16,
    "raw-version-2-0": b"\x00" + plain(0, VERSION_REQUEST, struct.pack(">HH", 2, 0)),
    "raw-client-hello": b"\x00" + VERSION_16 + plain(0, ENCAPSULATED_SSL, client_hello()),
    "raw-empty-ssl-then-hello-tight": b"\x0e" + VERSION_16 + plain(0, ENCAPSULATED_SSL)
    + plain(0, ENCAPSULATED_SSL, client_hello()),
    "raw-auth-before-tls": b"\x00" + VERSION_16 + plain(0, AUTH_COMPLETE, field(1, 0)),
    "raw-encrypted-before-tls": b"\x00" + VERSION_16 + frame(0, 0x0B, bytes(40)),
    "raw-ping-during-setup": b"\x02" + VERSION_16 + plain(0, PING_REQUEST, field(1, 5)),
    "raw-hello-in-fragments": b"\x00" + VERSION_16 + (lambda m: frame(0, 0x01, m[:100], len(m))
                                                     + frame(0, 0x00, m[100:200]) + frame(0, 0x02, m[200:]))(
        message(ENCAPSULATED_SSL, client_hello())),
    "raw-http": b"\x00GET / HTTP/1.1\r\nHost: dashport\r\n\r\n",
    # Running mode (byte 0 odd): a real handshake, then operations.
    "run-input-keys": b"\x01" + op_service(0, 0x8001, input_report(key(85, True), key(85, False)))
    + op_service(0, 0x8003, field(1, 0)) + op_tick(50),
    "run-playback-input": b"\x03" + op_service(1, 0x8002, field(1, 5)) + op_tick(120),
    "run-browser-get-node": b"\x05" + op_service(2, 0x8005, field(1, "/") + field(2, 0) + field(3, 1))
    + op_service(2, 0x8006, field(1, field(1, 5)) + field(2, "/song/a")),
    "run-vendor-large": b"\x01" + op_service(3, 0x8003, bytes(range(256)) * 70),
    "run-pings-and-byebye": b"\x07" + op_control(0, 77) + op_control(0, 78, encrypted=True) + op_tick(150)
    + op_control(1, 0) + op_byebye(False),
    "run-channel-close-and-reopen": b"\x09" + op_control(2, 0) + op_control(3, 0x0000) + op_control(3, 0x01FC)
    + op_tick(255) + op_phone_send(0, 0x8001, 10),
    "run-phone-sends-big": b"\x11" + op_phone_send(1, 0x8003, 3000, times17=True) + op_phone_send(0, 0x8001, 4)
    + op_byebye(True),
    "run-raw-and-frames": b"\x21" + op_frame(0, 0x03, PING_REQUEST, field(1, 9)) + op_raw(plain(0, PING_RESPONSE, field(1, 1)))
    + op_frame(8, 0x0B, 0x8001, bytes(8)),
    "run-unchecked-control": b"\x41" + op_unchecked(0, SERVICE_DISCOVERY_RESPONSE, b"")
    + op_unchecked(0, 20, b"\x08\x01") + op_unchecked(3, 0x8001, b"", encrypted=False),
    "run-unlisted-channel": b"\x01" + op_unchecked(42, 0x8001, b"hi"),
    "run-discovery-ping-300": b"\x81" + op_discovery(discovery(*AASDK_LIKE, ping_interval=300)) + op_tick(200)
    + op_control(1, 0),
    "run-discovery-odd-entries": b"\x83" + op_discovery(discovery(
        service(0, 9), service(300, 9), service(13, 9), service(13, 11), service(-1, 4, b""), service(15, 0),
        service(16, 12, field(1, "dashport.media") + field(3, b"\x08\x04")), service(42, 11), service(8, 3))) + op_tick(255)
    + op_tick(255) + op_service(0, 0x8001, b"\x01"),
    "run-discovery-undecodable": b"\x85" + op_discovery(b"\x0a\x05\x08") + op_tick(10),
    "run-bad-open-response": b"\x01" + op_unchecked(13, CHANNEL_OPEN_RESPONSE, b"\xff") + op_unchecked(0, CHANNEL_CLOSE, b""),
    # FuzzLinkRunning's stream mode (byte 0 even): after the null-layer setup, the phone's raw input.
    "stream-input-keys": b"\x00" + sealed(8, R, 0x8001, input_report(key(85, True), key(85, False)))
    + sealed(8, R + 1, 0x8003, field(1, 0)),
    "stream-pings": b"\x00" + plain(0, PING_REQUEST, field(1, 5)) + sealed(0, R, PING_REQUEST, field(1, 6))
    + plain(0, PING_RESPONSE, field(1, 1)) + sealed(0, R + 1, PING_RESPONSE, field(1, 2)),
    "stream-fragmented": b"\x00" + sealed_fragments(16, R, 0x8003, bytes(range(256)) * 4, 300)
    + sealed(13, R + 2, 0x8002, field(1, 5)),
    "stream-wrong-record-number": b"\x00" + sealed(8, R + 3, 0x8001, b""),
    "stream-alert": b"\x00" + frame(0, 0x0B, struct.pack(">BBBH", 21, 3, 3, 26) + struct.pack(">Q", R) + b"\x01\x00" + bytes(16)),
    "stream-close-and-byebye": b"\x00" + sealed(13, R, CHANNEL_CLOSE) + sealed(15, R + 1, CHANNEL_OPEN_RESPONSE, field(1, 0))
    + sealed(0, R + 2, BYEBYE_REQUEST, field(1, 1)),
    "stream-plaintext-service": b"\x02" + plain(8, 0x8001, b"\x08\x01"),
    # FuzzLinkStream (any byte 0, bits 1-6 the head unit's flags): the running phone's input in plaintext.
    "plain-input-keys": b"\x00" + clear(8, 0x8001, input_report(key(85, True), key(85, False)))
    + clear(8, 0x8003, field(1, 0)),
    "plain-pings": b"\x00" + plain(0, PING_REQUEST, field(1, 5)) + clear(0, PING_REQUEST, field(1, 6))
    + plain(0, PING_RESPONSE, field(1, 1)) + clear(0, PING_RESPONSE, field(1, 2)),
    "plain-fragmented": b"\x00" + clear_fragments(16, 0x8003, bytes(range(256)) * 4, 300)
    + clear(13, 0x8002, field(1, 5)),
    "plain-close-and-byebye": b"\x00" + clear(13, CHANNEL_CLOSE) + clear(15, CHANNEL_OPEN_RESPONSE, field(1, 0))
    + clear(0, BYEBYE_REQUEST, field(1, 1)),
    "plain-refused-channel-answers": b"\x18" + clear(13, CHANNEL_OPEN_RESPONSE, field(1, 0))
    + clear(15, CHANNEL_OPEN_RESPONSE, field(1, -4)) + clear(8, 0x8001, b"\x08\x01"),
}


# Also kept as seed-*.bin in the folder the link tests replay (Tests/DashportLinkTests/FuzzCrashes).
REPLAYED = ["raw-client-hello", "raw-hello-in-fragments", "raw-empty-ssl-then-hello-tight", "run-input-keys",
            "run-pings-and-byebye", "run-channel-close-and-reopen", "run-phone-sends-big", "run-raw-and-frames",
            "run-discovery-odd-entries", "run-discovery-undecodable", "stream-input-keys", "stream-pings",
            "stream-fragmented", "stream-wrong-record-number", "stream-close-and-byebye", "plain-input-keys",
            "plain-fragmented", "plain-close-and-byebye"]
CRASHES = os.path.join(HERE, "..", "..", "Tests", "DashportLinkTests", "FuzzCrashes")


def main():
    for name, data in SEEDS.items():
        with open(os.path.join(HERE, name + ".hex"), "w") as out:
            out.write(data.hex() + "\n")
    os.makedirs(CRASHES, exist_ok=True)
    for name in REPLAYED:
        with open(os.path.join(CRASHES, "seed-" + name + ".bin"), "wb") as out:
            out.write(SEEDS[name])


if __name__ == "__main__":
    main()
