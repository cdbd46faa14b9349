#!/usr/bin/env python3
"""Writes the FuzzServices seed inputs (.hex) into this folder. Deterministic. See README.md.

Each helper mirrors one read of `ServicesFuzz.Reader` (tools/fuzz/FuzzServices/ServicesFuzz.swift);
protobuf bodies are built by hand. Selected seeds also go to Tests/DashportServicesTests/FuzzCrashes
as seed-*.bin, which the services tests replay.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CRASHES = os.path.join(HERE, "..", "..", "Tests", "DashportServicesTests", "FuzzCrashes")

# --- Reader mirrors --------------------------------------------------------------------------


def b(*values):
    return bytes(values)


def u16(value):
    return struct.pack(">H", value)


def length(n):
    return b(n) if n < 0x80 else b(0x80 | n >> 8, n & 0xFF)


def raw(data):
    return length(len(data)) + data


def string(index=1):
    """An index into Reader.strings (1 "a", 2 "b", 4 "song-1", 6 the root id, 13 "tab 1")."""
    return b(index)


def text(value):
    data = value.encode()
    return b(0x80 | len(data)) + data


def maybe(value=None):
    return b(0) if value is None else b(1) + value


def int64(index=0):
    """0 → 0, 1 → 1, 3 → 1000, 5 → 180000, 6 → Int64.max."""
    return b(index)


def seconds(value):
    return b(0x80) + u16(value)


URI_NONE, URI_EMPTY, URI_1, URI_2, URI_FILE = range(5)


def browse_item(flags=0x03, id=4, title=1, uri=URI_1, duration=5):
    out = b(flags) + string(id) + string(title)
    if flags & 0x04:
        out += string(2)
    if flags & 0x08:
        out += b(uri)
    if flags & 0x10:
        out += b(0)
    if flags & 0x20:
        out += b(2)
    if flags & 0x40:
        out += string(13) + string(5)
    if flags & 0x80:
        out += int64(duration)
    return out


def page(items, total_pick=0):
    count = len(items)
    flags = (count << 2) | (0x02 if count >= 6 else 0)
    return b(flags) + b"".join(items) + b(total_pick)


def screen(code=0, message=1):
    return b(0x01) + b(code) + string(message)


def media_item(flags=0x31, id=4, title=1, uri=URI_1, duration=5):
    out = b(flags) + string(id)
    if flags & 0x01:
        out += string(title)
    for bit in (0x02, 0x04, 0x08):
        if flags & bit:
            out += string(2)
    if flags & 0x10:
        out += b(uri)
    if flags & 0x20:
        out += int64(duration)
    return out


CAPABILITIES = 15  # SessionCapability.allCases


def playback_state(status=0, value=3, at=0, rate=0, flags=0, capabilities=(), controls=()):
    """status: 0 playing, 1 paused, 2 buffering, 3 stopped, 4 error."""
    caps = bytes(1 if i in capabilities else 0 for i in range(CAPABILITIES))
    out = b(flags) + caps
    if flags & 0x40 and 12 in capabilities:
        out += b(URI_2)
    out += b(status) + int64(value) + int64(at) + b(rate)
    if flags & 0x01:
        out += int64(3)
    out += bytes(1 if i in controls else 0 for i in sorted(capabilities))
    if flags & 0x02:
        out += b(0)
    if flags & 0x04:
        out += string(1)
    return out + b(0)


def session_update(kind, body=b""):
    """kind: 0 playback state, 1 media item, 2 queue, 3 error, 4 sleep timer fired, 5 sleep timer
    (maybe: end of track?, maybe deadline), 6 remote playback (maybe: volume/255, muted, steps, control)."""
    return b(kind) + body


# --- AAP input (selector 0) ------------------------------------------------------------------


def input_keys(*keys):
    """keys: (menu index, down, longpress or None); menu 0 85, 1 87, 2 88, 3 126, 4 127, 5 90, 6 4."""
    out = b(0, len(keys))
    for index, down, longpress in keys:
        out += b(index, int(down)) + maybe(None if longpress is None else b(int(longpress)))
    return out + u16(77)


INPUT = {
    "input-media-keys": b(0, 8, 3, 0, 2, 6) + input_keys((0, True, None), (0, False, None), (1, True, False))
    + b(3) + u16(1500) + input_keys((0, True, True), (2, True, None)) + b(1, 0xEE) + b(4, 0, 1),
    "input-raw-report": b(0, 8, 0) + b(2, 0) + raw(bytes.fromhex("0801 2206 0a04 08551001")) + b(2, 3) + u16(0x8004)
    + raw(b"") + b(5),
}

# --- AAP playback status (selector 1) ---------------------------------------------------------

STATUS = {
    "status-start-cover-tick": b(1, 0, 0, 0, 0, 0, 0, 0, 13) + b(6) + playback_state(status=0) + maybe(media_item())
    + b(2) + u16(400) + b(5, 1, 2, 20) + b(2) + u16(2500) + b(0, 5) + b(3) + playback_state(status=1, value=4),
    "status-small-caps": b(1, 1, 1, 2, 1, 1, 2, 1, 13) + b(6) + playback_state(status=0, value=6, rate=4)
    + maybe(media_item(flags=0x3F, duration=3)) + b(5, 1, 3, 40) + b(2) + u16(3000) + b(4) + maybe(media_item(id=5)),
    "status-items-and-inputs": b(1, 0, 0, 0, 2, 0, 0, 1, 13) + b(4) + maybe(media_item(uri=URI_2)) + b(6)
    + playback_state(status=2) + maybe(None) + b(4) + maybe(media_item(uri=URI_2, id=5)) + b(5, 0) + string(4) + b(0)
    + b(1, 0) + raw(b(0x08, 0x04)) + b(1, 3) + u16(0x8009) + raw(b"\xff") + b(7, 1, 4) + b(7, 0, 2, 1, 1) + b(2) + u16(9000),
}

# --- AAP classic browser (selector 2) ---------------------------------------------------------

ROOT, SRC, LIST, SINGLE, SONG = 1, 2, 3, 4, 5  # path prefixes


def get_node(prefix, id_string=1, start=None, art=None):
    """start: None, or an Int16 (read as 'neither max nor min' then two bytes)."""
    start_bytes = None if start is None else b(2) + struct.pack(">h", start)
    return b(0, prefix) + string(id_string) + maybe(start_bytes) + maybe(None if art is None else b(int(art)))


def answer_item(choice, item):
    return b(3, choice) + maybe(item)


def answer_page(choice, answer):
    return b(2, choice) + answer


def answer_art(choice, size=4):
    return b(4, choice, 2) + length(size)


CLASSIC_DEFAULT = b(0, 0, 0, 0, 0, 0, 0, 0, 15)
CLASSIC = {
    "classic-root-with-covers": b(2) + CLASSIC_DEFAULT + get_node(ROOT, 0)
    + answer_page(0, page([browse_item(0x09, id=13), browse_item(0x09, id=1, uri=URI_2)])) + answer_art(0) + answer_art(0),
    "classic-source-two-pages": b(2) + b(0, 0, 2, 0, 0, 0, 0, 0, 15) + get_node(SRC, 1, start=2)
    + answer_item(0, browse_item(0x09)) + answer_page(0, page([browse_item(0x0B, id=i) for i in (2, 3, 4)], 2))
    + answer_page(0, page([browse_item(0x8A, id=5)], 2)) + answer_art(0) + b(5) + u16(2500),
    "classic-song-and-enter": b(2) + CLASSIC_DEFAULT + get_node(SONG, 4) + answer_item(0, browse_item(0xCB))
    + answer_art(0, 0) + b(7, 5, 0) + string(4) + b(7, 5, 1) + string(5),
    "classic-caps-and-timeouts": b(2) + b(0, 2, 1, 1, 2, 2, 2, 1, 15) + get_node(LIST, 1) + get_node(LIST, 2)
    + get_node(ROOT, 0) + b(5) + u16(600) + answer_page(0, screen()) + b(6, 0, 0, 0) + page([]),
    "classic-raw-and-bad-paths": b(2) + CLASSIC_DEFAULT + b(1, 0) + raw(bytes.fromhex("0a02 2f7a")) + get_node(6, 8)
    + get_node(LIST, 9) + get_node(7) + get_node(SRC, 1, start=-3) + b(1, 2) + u16(0x8001) + raw(b"") + b(5) + u16(20000),
}

# --- Dashport media channel (selector 3) --------------------------------------------------------


def media_config(search=False, updates=0):
    flags = (0x02 if search else 0) | updates << 2
    profile = maybe(b(4)) + maybe(None) + b(1) + u16(300) + u16(200) + maybe(b(1)) + b(0) + maybe(b(1)) + maybe(None)
    return b(3, flags) + profile + bytes(7) + b(16)


def keys(*picks):
    """One entry per artwork URI ("", img 1, img 2, file): None skips it, else 0 key-N, 1 empty, 2 the URI."""
    return b"".join(b(0) if pick is None else b(1, pick) for pick in picks + (None,) * (4 - len(picks)))


def request(kind, request_id, fields):
    """kind: 0 children, 1 item, 2 search, 3 play id, 4 play search, 5 command, 6 artwork, 7 profile."""
    return b(0, request_id, kind) + fields


MEDIA = {
    "media-browse-and-answer": media_config(updates=1) + session_update(1, maybe(media_item())) + keys(0)
    + request(0, 1, string(6) + maybe(u16(0)) + maybe(u16(20))) + b(2, 0) + keys(0, 2)
    + page([browse_item(0x0B, id=i) for i in (1, 2, 3)], 2) + request(1, 2, string(4)) + b(2, 0) + keys(1)
    + maybe(browse_item(0x09)),
    "media-commands": media_config(search=True) + request(5, 3, b(0)) + b(3, 0) + keys() + b(1)
    + request(5, 4, b(6) + maybe(u16(10) + b(4))) + b(3, 0) + keys() + b(0, 1) + string(1)
    + request(4, 5, string(4) + maybe(b(1))) + request(5, 6, b(8, 2) + string(1) + b(0) + string(2) + string(4) + b(1)
    + int64(2) + string(1)) + request(5, 7, b(9, 3) + int64(5)) + b(3, 1) + keys() + b(1) + b(3, 0) + keys() + b(0, 5) + string(0),
    "media-artwork-and-pushes": media_config() + request(6, 1, b(0) + maybe(u16(100)) + maybe(None)) + b(4, 0) + keys()
    + b(1, 2) + length(8) + b(0, 0) + u16(64) + b(5) + session_update(0, playback_state(status=0, capabilities=(0, 1, 12), flags=0x40))
    + keys(0, 0) + b(5) + session_update(2, b(2) + media_item() + media_item(id=5) + maybe(None)) + keys(2, 1)
    + b(6, 1) + maybe(string(1)) + b(6, 0) + u16(700) + b(5) + session_update(4),
    # Volume commands (set 0.5, down 2 steps rejected as not declared, mute), then the sleep timer
    # armed, remote playback declared, the timer fired and cleared.
    "media-volume-and-sleep": media_config() + request(5, 1, b(16, 0)) + b(3, 0) + keys() + b(1)
    + request(5, 2, b(17, 0xFE)) + b(3, 0) + keys() + b(0, 8) + string(0)
    + request(5, 3, b(18, 1)) + b(3, 0) + keys() + b(1)
    + b(5) + session_update(5, maybe(b(0) + maybe(int64(5)))) + keys()
    + b(5) + session_update(6, maybe(b(128, 0, 20, 0))) + keys()
    + b(5) + session_update(4) + keys() + b(5) + session_update(5, maybe()) + keys(),
    "media-caps-and-bad-bodies": b(3, 0x01) + raw(bytes.fromhex("08ff0f")) + b(1, 1, 1, 1, 1, 1, 1) + b(16)
    + request(0, 1, string(12) + maybe(None) + maybe(u16(9))) + request(2, 2, string(1) + maybe(None) + maybe(None))
    + b(1, 3) + raw(bytes.fromhex("0807 12")) + b(7) + u16(5) + b(0) + keys() + page([]) + request(7, 0, raw(b"\x10\x02")),
}

# --- Media audio sink (selector 4, tools/fuzz/Drivers/ServicesFuzz+Sink.swift) ------------------


def sink_setup(flags=0, channel=6, configs=(1, 0), ack_timeout=0, max_lead=0, duck=3, open_first=True):
    """configs: 0 48k/16/2, 1 16k mono, 2 48k mono, 3 zeros; ack_timeout 0 → 2 s, 1 → 0; duck 3 → 0.5, 4 → -1."""
    return b(4, flags, channel, len(configs)) + bytes(configs) + b(ack_timeout, max_lead, duck, 1 if open_first else 0)


def sink_config(status=0, max_unacked=None, indices=True):
    """status 0 READY, 1 WAIT; max_unacked picks 0 → 0, 1 → 1, 3 → 4096."""
    return b(0, status) + maybe(None if max_unacked is None else b(max_unacked)) + b(1 if indices else 0)


def sink_ack(session=0, ack=None):
    """session 0 the current one, 1 → -1; ack picks 0 → 1, 1 → 0, 3 → 10, 4 → max."""
    return b(1, session) + maybe(None if ack is None else b(ack))


def sink_focus(state, unsolicited=None):
    """1 GAIN, 3 LOSS, 4 CAN_DUCK, 5 LOSS_TRANSIENT, 7 GUIDANCE_ONLY, 8 unnamed."""
    return b(2, state) + maybe(None if unsolicited is None else b(1 if unsolicited else 0))


def sink_raw(id_choice, data, other_id=None):
    """id_choice 0 CONFIG, 1 ACK, 2 underflow, 3 DATA, 4 other_id."""
    return b(3, 0, id_choice) + (u16(other_id) if id_choice == 4 else b"") + raw(data)


def sink_raw_focus(data):
    return b(3, 1) + raw(data)


def sink_offer(count, ignoring=False, size=0, stamp=0):
    """size 0 → 8192 bytes, 2 → 1, 3 → 7."""
    return b(6, count, 1 if ignoring else 0) + b"".join(b(0x11 + i, size) + u16(stamp + i) for i in range(count))


def sink_play(on):
    return b(4, 1 if on else 0)


def sink_clock(ms):
    return b(7) + u16(ms)


SINK = {
    # 16k mono + 48k stereo (index 1), window 1: the RELEASE's LOSS, play → GAIN request, GAIN →
    # START 0; the window holds back two packets until an ACK; CAN_DUCK; LOSS_TRANSIENT pauses,
    # GAIN → START 1 and resume; no ACK for 3 s → ackless; an underflow; playback ends.
    "sink-focus-window-duck": sink_setup() + sink_config(max_unacked=1) + sink_focus(3) + sink_play(True)
    + sink_focus(1) + sink_offer(3) + sink_ack() + sink_offer(1, stamp=100) + sink_focus(4) + sink_ack()
    + sink_offer(1, stamp=200) + sink_focus(5, unsolicited=True) + sink_focus(1) + sink_offer(1, stamp=300)
    + sink_clock(3000) + sink_offer(4, ignoring=True, stamp=400) + sink_raw(2, b"") + b(5, 0),
    # Protocol 5 on channel 0 with no audio configs: bad bodies of every kind, WAIT then READY with
    # max_unacked 0, an unsolicited GAIN before play, ackless packets (odd sizes), duck to gain 0,
    # pause and play (START 1), guidance-only and unnamed focus, a stale cumulative ACK.
    "sink-protocol5-bad-bodies": sink_setup(flags=1, channel=0, configs=(), ack_timeout=1, max_lead=1, duck=4)
    + sink_raw(0, b"\x08") + sink_raw(1, b"\x10\xff") + sink_raw_focus(b"\x08\x80") + sink_raw(4, b"\x01\x02\x03", 0x9999)
    + sink_raw(3, b"\x00") + sink_config(status=1) + sink_config(max_unacked=0) + sink_focus(1, unsolicited=True)
    + sink_play(True) + sink_offer(5, size=3) + sink_focus(4) + sink_offer(1) + sink_play(False) + sink_play(True)
    + sink_focus(7) + sink_focus(8) + sink_ack(session=1, ack=4) + sink_clock(100),
}

SEEDS = {**INPUT, **STATUS, **CLASSIC, **MEDIA, **SINK}
REPLAYED = ["input-media-keys", "status-start-cover-tick", "classic-source-two-pages", "classic-caps-and-timeouts",
            "media-browse-and-answer", "media-commands", "media-artwork-and-pushes", "media-volume-and-sleep",
            "sink-focus-window-duck", "sink-protocol5-bad-bodies"]


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
