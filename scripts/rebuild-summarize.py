#!/usr/bin/env python3
"""The markdown table of a scripts/rebuild-levels.sh log: one row per level,
with build ÷ floor and positions per second of the build.
Usage: scripts/rebuild-summarize.py LOG"""
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: rebuild-summarize.py LOG")
    try:
        lines = open(sys.argv[1]).read().splitlines()
    except OSError as e:
        sys.exit(f"rebuild-summarize.py: cannot read {sys.argv[1]}: {e.strerror}")
    print("| game | level | positions | forward / acyclic / sweep s | build s | floor s | build ÷ floor | positions/s | load at start | file |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |")
    for line in lines:
        head, _, row = line.partition("|")
        w = head.split()
        cells = [c.strip() for c in row.split("|")]
        if len(w) < 8 or len(cells) < 9:
            print(f"| {w[0] if w else '?'} | {w[1] if len(w) > 1 else '?'} | (no row: the build failed) |")
            continue
        game, level, load, same = w[0], w[1], w[4], w[7]
        positions, fwd, kahn, sweep, total, floor, ratio = (cells[1], cells[3], cells[4].split()[0], cells[5], cells[6], cells[7], cells[8])
        rate = int(positions) / float(total) / 1e6
        name = {"adjito": "Adjito", "adjiboto": "Adji-Boto"}.get(game, game)
        print(f"| {name} | {level} | {int(positions):,} | {fwd} / {kahn} / {sweep} | {total} | {floor} | **{ratio}** | {rate:.1f} M | {load} | {same} |")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(0)
