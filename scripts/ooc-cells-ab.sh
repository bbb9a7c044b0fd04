#!/usr/bin/env bash
# Where an out-of-core build keeps its idle shards' cells: the same Adji-Boto
# level built in two shards with `--cells-on-disk mmap` (each turn maps its
# shard's file again) and `kept` (mapped once per level), alternated, RUNS
# times each, two threads. DIR must hold levels 0..LEVEL-1 (links will do);
# the level's shards are removed before each run. Prints /usr/bin/time's
# line, the build's row and the shards' SHA-256 for each run.
#
#   scripts/ooc-cells-ab.sh ADJI DIR LEVEL RUNS OUT_DIR
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: ooc-cells-ab.sh ADJI DIR LEVEL RUNS OUT_DIR" >&2; exit 2; }
case "$3$4" in *[!0-9]*|'') echo "ooc-cells-ab.sh: LEVEL and RUNS must be whole numbers" >&2; exit 2;; esac
adji=$1 dir=$2 n=$(printf %03d "$3") runs=$4 out=$5
[ -e "$dir/adjiboto-start-000.adjt" ] || { echo "ooc-cells-ab.sh: $dir holds no Adji-Boto tables" >&2; exit 2; }
mkdir -p "$out"
for r in $(seq 1 "$runs"); do
  for how in mmap kept; do
    find "$dir" -maxdepth 1 -name "adjiboto-start-$n*" ! -type l -delete
    log="$out/ab-$((10#$n))-$how-$r"
    /usr/bin/time -f "$how run $r: %e s wall, %U s user, %S s system, %R minor faults, %M KiB max RSS" \
      "$adji" tables build --game adjiboto --max-seeds "$((10#$n))" --dir "$dir" --threads 2 --shards 2 \
      --cells-on-disk "$how" > "$log.out" 2> "$log.err"
    tail -1 "$log.err"
    grep "^| $((10#$n)) |" "$log.out" | tail -1
    (cd "$dir" && sha256sum adjiboto-start-"$n".shard-*)
  done
done
