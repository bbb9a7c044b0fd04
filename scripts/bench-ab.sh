#!/usr/bin/env bash
# Compares the search speed of two adji binaries with `adji bench` (one
# thread, fixed suite, ~0.5 s a run): BLOCKS blocks, each PER runs of one
# binary then PER of the other, the first binary alternating by block. A
# block's nodes/s is its runs' nodes over their summed time, so the ~10 %
# jitter of a single half-second run averages out inside the block. Prints
# one line a run, then per-block ratios, their median and the pooled ratio.
#   scripts/bench-ab.sh OLD_BINARY NEW_BINARY [BLOCKS=12] [PER=5] > LOG
set -euo pipefail
old=$1 new=$2 blocks=${3:-12} per=${4:-5}
for i in $(seq 1 "$blocks"); do
  if [ $((i % 2)) = 1 ]; then order="$old $new"; else order="$new $old"; fi
  for b in $order; do
    for _ in $(seq 1 "$per"); do
      "$b" bench --json | python3 -c 'import json,sys
d=json.load(sys.stdin); print(sys.argv[1], sys.argv[2], d["time_ms"], d["nodes"])' "$i" "$([ "$b" = "$old" ] && echo old || echo new)"
    done
  done
done | tee /dev/stderr | python3 -c '
import statistics, sys
ms, nodes = {}, set()
for line in sys.stdin:
    i, who, t, n = line.split()
    ms.setdefault(int(i), {}).setdefault(who, []).append(int(t)); nodes.add(int(n))
ratios = [sum(b["old"]) / sum(b["new"]) for b in ms.values()]
for i, r in zip(ms, ratios):
    print(f"block {i}: new/old nodes/s {r:.3f}")
pooled = sum(sum(b["old"]) for b in ms.values()) / sum(sum(b["new"]) for b in ms.values())
print(f"fingerprints {sorted(nodes)}; median new/old {statistics.median(ratios):.3f}; "
      f"new slower in {sum(r < 1 for r in ratios)} of {len(ratios)}; pooled {pooled:.3f}")'
