#!/bin/bash
# Distributed table builds at P = 1, 2, 4, 8 ranks, each rank in its own
# directory (lower-level lookups over MPI), merged and compared with a
# one-process build; the per-rank rows go to OUT/GAME-P.log
# (results/distributed.md §6). Usage: scripts/dist-measure.sh ADJI_MPI ADJI OUT
set -euo pipefail
mpi_adji=$1; adji=$2; out=$3
mkdir -p "$out"
for spec in "adjito 16" "adjiboto 20"; do
  set -- $spec; game=$1; max=$2
  [ -d "$out/one-$game" ] || "$adji" tables build --game "$game" --max-seeds "$max" --dir "$out/one-$game" --threads 1 > "$out/one-$game.log"
  for p in 1 2 4 8; do
    d="$out/$game-$p"
    [ -f "$d.done" ] && continue
    rm -rf "$d"
    mpirun --oversubscribe --allow-run-as-root -np "$p" "$mpi_adji" tables build --game "$game" \
      --max-seeds "$max" --dir "$d/rank-{rank}" --threads 1 > "$d.log" 2>&1
    "$adji" tables merge --game "$game" --dir "$d/merged" "$d"/rank-* > /dev/null
    cmp <(cat "$out/one-$game"/*.adjt) <(cat "$d/merged"/*.adjt)
    du -sb "$d"/rank-* > "$d.du"
    rm -rf "$d/merged"
    touch "$d.done"
  done
done
echo all done
