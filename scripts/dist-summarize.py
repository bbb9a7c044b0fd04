#!/usr/bin/env python3
"""Summarises scripts/dist-measure.sh's logs (results/distributed.md §6).

Usage: scripts/dist-summarize.py OUT GAME LEVEL...  (OUT as given to dist-measure.sh)
Per level and P: compute CPU s summed over ranks and its ratio to P = 1,
update bytes and lookup bytes per position (sums over ranks), exchange
rounds, lookup rounds, and the bytes each rank's directory holds; then,
where the logs have them (builds from 2 December 2026 on), the compute CPU
of each phase (forward, acyclic, sweep) summed over ranks and its ratio to
P = 1: where the overhead of more ranks goes.
"""
import sys

out, game, levels = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
rows = {}
for p in (1, 2, 4, 8):
    try:
        text = open(f"{out}/{game}-{p}.log").read().splitlines()
    except FileNotFoundError:
        continue
    for line in text:
        c = [x.strip() for x in line.split("|")]
        if len(c) < 17 or c[3] != "built":
            continue
        n = int(c[1])
        r = rows.setdefault((n, p), {"pos": int(c[2]), "cpu": [], "upd": 0, "look": 0,
                                     "phase": [0.0, 0.0, 0.0], "phased": False})
        r["cpu"].append(float(c[10]))
        if len(c) >= 21 and c[17]:
            r["phased"] = True
            for k in range(3):
                r["phase"][k] += float(c[17 + k])
        r["upd"] += int(c[12])
        r["look"] += int(c[14])
        r["rounds"], r["lrounds"], r["wall"] = int(c[13]), int(c[15]), float(c[16])
    try:
        du = [int(l.split()[0]) for l in open(f"{out}/{game}-{p}.du")]
        rows[("du", p)] = du
    except FileNotFoundError:
        pass
print("| level | positions | P | compute CPU s, sum over ranks | ÷ P = 1 | update bytes / position | lookup bytes / position | rounds | lookup rounds | level s (wall) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in levels:
    base = rows.get((n, 1))
    for p in (1, 2, 4, 8):
        r = rows.get((n, p))
        if not r:
            continue
        cpu = sum(r["cpu"])
        ratio = f"{cpu / sum(base['cpu']):.2f}" if base and sum(base["cpu"]) > 0 else ""
        print(f"| {n} | {r['pos']} | {p} | {cpu:.2f} | {ratio} | {r['upd'] / r['pos']:.2f} | "
              f"{r['look'] / r['pos']:.2f} | {r['rounds']} | {r['lrounds']} | {r['wall']:.1f} |")
phased = [(n, p) for n in levels for p in (1, 2, 4, 8) if rows.get((n, p), {}).get("phased")]
if phased:
    print()
    print("| level | P | forward CPU s | ÷ P = 1 | acyclic CPU s | ÷ P = 1 | sweep CPU s | ÷ P = 1 | rest (setup, finish) CPU s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, p in phased:
        r, base = rows[(n, p)], rows.get((n, 1))
        cells = []
        for k in range(3):
            b = base["phase"][k] if base and base.get("phased") else 0
            cells.append(f"{r['phase'][k]:.2f} | {r['phase'][k] / b:.2f}" if b > 0 else f"{r['phase'][k]:.2f} | ")
        rest = sum(r["cpu"]) - sum(r["phase"])
        print(f"| {n} | {p} | {' | '.join(cells)} | {rest:.2f} |")
print()
print("| P | bytes in each rank's directory (levels 0–max) |")
print("|---:|---|")
for p in (1, 2, 4, 8):
    if ("du", p) in rows:
        print(f"| {p} | {', '.join(str(x) for x in rows[('du', p)])} |")
