#!/usr/bin/env python3
"""Compression candidates for table levels (issue 39, deliverable 2): the
size each codec reaches on the value bytes of a level, whole and in
independent blocks (what a probe in place needs), and the time to
decompress one block.

Usage: python3 scripts/compression-candidates.py DIR GAME FIRST LAST [BLOCK ...]
  DIR     a tables directory (`adji tables build ... --dir DIR`)
  GAME    adjito or adjiboto (files GAME-start-LLL.adjt, the default rules)
  BLOCK   block sizes in KiB for the block-wise codecs (default 4 16 64)

Needs the `zstandard` package (pip install zstandard); xz is Python's lzma.
Prints one Markdown table row per level and codec: bytes, ratio (raw
value bytes / compressed), bits per position, and for block codecs the
median time to decompress one block (microseconds, this machine).
"""
import lzma
import math
import statistics
import struct
import sys
import time
from collections import Counter
from pathlib import Path

import zstandard as zstd


def values(path: Path) -> bytes:
    data = path.read_bytes()
    if data[:8] != b"ADJITBL\0":
        sys.exit(f"{path}: not a level file")
    (count,) = struct.unpack_from("<Q", data, 16)
    return data[64 : 64 + count]


def entropy_bits(b: bytes) -> float:
    n = len(b)
    return -sum(c / n * math.log2(c / n) for c in Counter(b).values()) * n if n else 0.0


def blocks(b: bytes, size: int):
    return [b[i : i + size] for i in range(0, len(b), size)]


def block_codec(vals: bytes, size: int, cctx, dctx_of):
    """Compresses every block alone; returns total bytes and the median
    time to decompress one block (over up to 200 blocks spread evenly)."""
    comp = [cctx.compress(x) for x in blocks(vals, size)]
    total = sum(len(c) for c in comp)
    step = max(1, len(comp) // 200)
    dctx = dctx_of()
    times = []
    for c in comp[::step]:
        t = time.perf_counter()
        dctx.decompress(c, max_output_size=size)
        times.append((time.perf_counter() - t) * 1e6)
    return total, statistics.median(times)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    d, game, first, last = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sizes = [int(k) * 1024 for k in sys.argv[5:]] or [4096, 16384, 65536]
    print("| level | positions | codec | bytes | ratio | bits/position | µs/block |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in range(first, last + 1):
        vals = values(d / f"{game}-start-{n:03}.adjt")
        N = len(vals)

        def row(name, nbytes, us=None):
            print(f"| {n} | {N:,} | {name} | {nbytes:,} | {N / nbytes:.2f} | "
                  f"{8 * nbytes / N:.3f} | {'' if us is None else f'{us:.1f}'} |")

        row("order-0 entropy (bound of a static coder)", math.ceil(entropy_bits(vals) / 8))
        row("zstd -19, whole level", len(zstd.ZstdCompressor(level=19).compress(vals)))
        row("xz -9e, whole level", len(lzma.compress(vals, preset=9 | lzma.PRESET_EXTREME)))
        for size in sizes:
            k = size // 1024
            c = zstd.ZstdCompressor(level=19, write_content_size=False, write_checksum=False)
            total, us = block_codec(vals, size, c, zstd.ZstdDecompressor)
            row(f"zstd -19, {k} KiB blocks", total, us)
            sample = blocks(vals, size)[:: max(1, len(vals) // size // 2000)]
            try:
                dic = zstd.train_dictionary(64 * 1024, sample)
            except zstd.ZstdError:
                continue
            c = zstd.ZstdCompressor(level=19, dict_data=dic, write_content_size=False,
                                    write_checksum=False, write_dict_id=False)
            total, us = block_codec(vals, size, c, lambda: zstd.ZstdDecompressor(dict_data=dic))
            row(f"zstd -19 + 64 KiB dictionary, {k} KiB blocks", total + len(dic.as_bytes()), us)
            ent = sum(math.ceil(entropy_bits(x) / 8) for x in blocks(vals, size))
            row(f"order-0 entropy per {k} KiB block (bound)", ent)


if __name__ == "__main__":
    main()
