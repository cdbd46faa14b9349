#!/usr/bin/env python3
"""Writes the FunctionFS fixtures from the kernel's documented layout (linux/usb/functionfs.h),
independently of the Swift code that must reproduce them byte for byte.

  descriptors-v2.bin  FUNCTIONFS_DESCRIPTORS_MAGIC_V2 (3), flags HAS_FS_DESC|HAS_HS_DESC|ALL_CTRL_RECIP,
                      FS and HS: interface 0 (class 0xff/0xff/0, 2 endpoints, iInterface 1),
                      bulk IN 0x81 and bulk OUT 0x02 (64 bytes at FS, 512 at HS)
  strings.bin         FUNCTIONFS_STRINGS_MAGIC (2), one language 0x0409, "Android Accessory Interface"
  events-aoa.bin      the ep0 records a car's AOA switch produces: BIND, ENABLE, SETUP 51, SETUP 52
                      (index 0, 8 bytes), SETUP 53, SUSPEND, UNBIND
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
HAS_FS, HAS_HS, ALL_CTRL_RECIP = 1, 2, 64


def speed(max_packet):
    interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0xFF, 0, 1)
    ep_in = struct.pack("<BBBBHB", 7, 5, 0x81, 2, max_packet, 0)
    ep_out = struct.pack("<BBBBHB", 7, 5, 0x02, 2, max_packet, 0)
    return interface + ep_in + ep_out


body = struct.pack("<II", 3, 3) + speed(64) + speed(512)
descriptors = struct.pack("<III", 3, 12 + len(body), HAS_FS | HAS_HS | ALL_CTRL_RECIP) + body

name = b"Android Accessory Interface\0"
strings = struct.pack("<IIII", 2, 16 + 2 + len(name), 1, 1) + struct.pack("<H", 0x0409) + name


def event(kind, setup=b"\0" * 8):
    return setup + struct.pack("<B3x", kind)


BIND, UNBIND, ENABLE, DISABLE, SETUP, SUSPEND, RESUME = range(7)
events = (event(BIND) + event(ENABLE)
          + event(SETUP, struct.pack("<BBHHH", 0xC0, 51, 0, 0, 2))
          + event(SETUP, struct.pack("<BBHHH", 0x40, 52, 0, 0, 8))
          + event(SETUP, struct.pack("<BBHHH", 0x40, 53, 0, 0, 0))
          + event(SUSPEND) + event(UNBIND))

for file, data in [("descriptors-v2.bin", descriptors), ("strings.bin", strings), ("events-aoa.bin", events)]:
    with open(os.path.join(HERE, file), "wb") as out:
        out.write(data)
    print(file, len(data), "bytes")
