#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads a TensorBoard event file without TensorFlow: checks each TFRecord's two masked
CRC32Cs and decodes the Event fields Headroom writes (wall_time, step, file_version, scalar
summary values). An independent check of core/results/tfevents_writer, outside CI.

    python3 tools/reference/read_tfevents.py runs/train/events.out.tfevents.*.headroom
    python3 tools/reference/read_tfevents.py --self-test

With the tensorboard package installed, --tensorboard also reads the file with TensorBoard's
own EventFileLoader and checks that both readers see the same scalars.
"""
import argparse
import struct
import sys


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(buf: bytes, pos: int):
    value, shift = 0, 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _fields(buf: bytes):
    """(field number, wire type, value) of each field of one message."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire} not expected")
        if pos > len(buf):
            raise ValueError("truncated field")
        yield field, wire, value


def parse_event(data: bytes) -> dict:
    event = {"wall_time": 0.0, "step": 0, "file_version": None, "scalars": []}
    for field, wire, value in _fields(data):
        if field == 1 and wire == 1:
            event["wall_time"] = struct.unpack("<d", value)[0]
        elif field == 2 and wire == 0:
            event["step"] = value if value < 1 << 63 else value - (1 << 64)
        elif field == 3 and wire == 2:
            event["file_version"] = value.decode()
        elif field == 5 and wire == 2:
            for f, w, v in _fields(value):
                if f != 1 or w != 2:
                    continue
                tag, simple = None, None
                for vf, vw, vv in _fields(v):
                    if vf == 1 and vw == 2:
                        tag = vv.decode()
                    elif vf == 2 and vw == 5:
                        simple = struct.unpack("<f", vv)[0]
                if tag is not None and simple is not None:
                    event["scalars"].append((tag, simple))
    return event


def read_events(path: str) -> list:
    with open(path, "rb") as f:
        data = f.read()
    events, pos = [], 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError(f"torn header at byte {pos}")
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if length_crc != masked_crc(header):
            raise ValueError(f"bad length CRC at byte {pos}")
        body = data[pos + 12:pos + 12 + length]
        if len(body) != length or pos + 16 + length > len(data):
            raise ValueError(f"torn record at byte {pos}")
        (body_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if body_crc != masked_crc(body):
            raise ValueError(f"bad data CRC at byte {pos}")
        events.append(parse_event(body))
        pos += 16 + length
    return events


def tensorboard_scalars(path: str) -> list:
    """The same file through TensorBoard's own loader (needs the tensorboard package)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    out = []
    for event in EventFileLoader(path).Load():
        for value in event.summary.value:
            # The loader migrates simple_value to a tensor of the scalars plugin.
            if value.HasField("simple_value"):
                out.append((event.step, value.tag, value.simple_value))
            elif value.HasField("tensor"):
                out.append((event.step, value.tag, float(value.tensor.float_val[0])))
    return out


def self_test() -> None:
    assert crc32c(b"123456789") == 0xE3069283, hex(crc32c(b"123456789"))
    print("crc32c check value ok")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--tensorboard", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
    for path in args.files:
        events = read_events(path)
        ours = []
        for e in events:
            if e["file_version"]:
                print(f"{path}: {e['file_version']}")
            for tag, value in e["scalars"]:
                ours.append((e["step"], tag, value))
        print(f"{path}: {len(events)} records, {len(ours)} scalars, CRCs ok")
        tags = sorted({t for _, t, _ in ours})
        for tag in tags:
            values = [(s, v) for s, t, v in ours if t == tag]
            print(f"  {tag}: {len(values)} values, last step {values[-1][0]} = {values[-1][1]:.6g}")
        if args.tensorboard:
            theirs = tensorboard_scalars(path)
            if theirs != ours:
                print("TensorBoard's EventFileLoader reads other scalars", file=sys.stderr)
                return 1
            print("  TensorBoard's EventFileLoader reads the same scalars")
    return 0


if __name__ == "__main__":
    sys.exit(main())
