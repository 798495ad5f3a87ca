#!/usr/bin/env python3
"""Writes small valid preload counter files (preload/layout.h) as seeds for
fuzz_preload_reader: few ops and slots so they fit libFuzzer's input size."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "corpus", "fuzz_preload_reader")
os.makedirs(out, exist_ok=True)
HDR = 392
SLOT_HDR = 64


def seed(name, r, ops, nslots, counts, shared_last=True, exited=True):
    nb = 63 * r + 2
    stride = (3 + nb) * 8
    ops_off = 392
    slots_off = ops_off + 32 * len(ops)
    slot_size = SLOT_HDR + len(ops) * stride
    size = slots_off + slot_size * nslots
    b = bytearray(size)
    struct.pack_into("<8sIIIIIIQQQQQiiQQQQII16s256s", b, 0, b"OSPRLD\0\1", 1, HDR, r, nb,
                     len(ops), nslots, ops_off, slots_off, slot_size, stride, size,
                     4242, 1, 1, 2, 3 if exited else 0, 0, len(counts), 1 if exited else 0,
                     b"seed", b"/bin/seed")
    for i, op in enumerate(ops):
        b[ops_off + 32 * i:ops_off + 32 * i + len(op)] = op.encode()
    for s in range(nslots):
        base = slots_off + s * slot_size
        shared = 1 if shared_last and s == nslots - 1 else 0
        claimed = 1 if s < len(counts) or shared else 0
        struct.pack_into("<IiI", b, base, claimed, 100 + s, shared)
        for o, buckets in enumerate(counts[s] if s < len(counts) else []):
            if not buckets:
                continue
            rec = base + SLOT_HDR + o * stride
            total = sum(n * (1 << max(i - 1, 0)) for i, n in buckets.items())
            lo = min(buckets)
            hi = max(buckets)
            struct.pack_into("<QQQ", b, rec, total, ~(1 << max(lo - 1, 0)) & (2**64 - 1),
                             (1 << hi) - 1)
            for i, n in buckets.items():
                struct.pack_into("<Q", b, rec + 24 + 8 * i, n)
    with open(os.path.join(out, name), "wb") as f:
        f.write(b)


seed("r1_two_threads", 1, ["read", "write"], 3, [[{5: 3, 9: 1}, {7: 2}], [{6: 1}, {}]])
seed("r2_one_op", 2, ["__open_2"], 2, [[{12: 4}]], exited=False)
seed("r1_empty", 1, ["fsync"], 2, [])
