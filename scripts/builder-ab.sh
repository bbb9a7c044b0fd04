#!/usr/bin/env bash
# Times the build of one level by two adji binaries in turn (new, old, new,
# old, ...: the ratio is taken pair by pair, so that a drift of the machine's
# speed cancels), each from the same lower levels, and checks that both wrote
# the same file. Prints each run's wall seconds and peak RSS, each pair's
# new/old wall ratio, and the median ratio. Run from the repository root.
#   scripts/builder-ab.sh NEW_BINARY OLD_BINARY GAME LEVEL LOWER_DIR [RUNS=3]
# LOWER_DIR holds levels 0..LEVEL-1 (tables built by `adji tables build`);
# they are copied into a scratch directory for each binary.
set -euo pipefail
new=$1 old=$2 game=$3 level=$4 lower=$5 runs=${6:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
file=$(printf '%s-start-%03d.adjt' "$game" "$level")
run() { # BINARY DIR: one build of the level; prints "wall_s peak_kib"
  rm -f "$2/$file"
  /usr/bin/time -f '%e %M' -o "$scratch/time" "$1" tables build --game "$game" \
    --max-seeds "$level" --dir "$2" --memory 16G --threads 2 > /dev/null
  cat "$scratch/time"
}
for who in new old; do
  mkdir "$scratch/$who"
  for l in $(seq 0 $((level - 1))); do
    cp "$lower/$(printf '%s-start-%03d.adjt' "$game" "$l")" "$scratch/$who/"
  done
done
run "$new" "$scratch/new" > /dev/null # warm-up: the lower levels into the page cache
for i in $(seq 1 "$runs"); do
  read -r wn pn < <(run "$new" "$scratch/new")
  read -r wo po < <(run "$old" "$scratch/old")
  echo "pair $i: new ${wn} s ${pn} KiB, old ${wo} s ${po} KiB, new/old wall $(awk "BEGIN { printf \"%.3f\", $wn / $wo }")"
done | tee "$scratch/pairs"
sed 's/.*new\/old wall //' "$scratch/pairs" | sort -n | awk '{a[NR]=$1} END {print "median new/old wall", a[int((NR+1)/2)]}'
cmp "$scratch/new/$file" "$scratch/old/$file" && echo "level $level: the same file from both binaries"
