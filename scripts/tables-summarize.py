#!/usr/bin/env python3
"""Per-level rows for results/tables.md from a `tables build` log and the files on disk."""
import os, re, sys
# usage: tables-summarize.py GAME LOG (the table files sit beside the log)
game, log = sys.argv[1], sys.argv[2]
rows = []
for line in open(log):
    m = re.match(r"\| (\d+) \| (\d+) \| built \| ([\d.]+) \| ([\d.]+) \((\d+)%\) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| (.*?) \| (.*?) \|", line)
    if not m:
        continue
    n, pos, fwd, kahn, settled, sweep, total, floor, ratio, frontier, rss = m.groups()
    n, pos = int(n), int(pos)
    size = os.path.getsize(os.path.join(os.path.dirname(os.path.abspath(log)), f"{game}-start-{n:03d}.adjt"))
    rows.append((n, pos, float(total), float(floor), float(ratio), pos / max(float(total), 1e-9), rss, size, float(fwd), float(kahn), int(settled), float(sweep)))
print("| level | positions | build s | floor s | build/floor | positions/s | forward s | acyclic s (settled) | sweep s | peak RSS | bytes on disk | bytes/position |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n, pos, total, floor, ratio, rate, rss, size, fwd, kahn, settled, sweep in rows:
    print(f"| {n} | {pos:,} | {total:.1f} | {floor:.1f} | {ratio:.2f} | {rate/1e6:.2f} M | {fwd:.1f} | {kahn:.1f} ({settled}%) | {sweep:.1f} | {rss} | {size:,} | {size/pos:.4f} |")
