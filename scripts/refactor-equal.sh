#!/usr/bin/env bash
# A refactor changes no result: runs the same commands with two adji
# binaries and compares what they write, byte for byte (timing figures
# masked). Covers every rule set: tables built (every file compared with
# cmp, both loop rules), probe, stats, show, moves, perft, replay, solve,
# analyse, certify, openings, loop-gap, and the bench fingerprint.
#   scripts/refactor-equal.sh BEFORE_BINARY AFTER_BINARY [WORK_DIR]
# Prints one line a check and "all N checks equal", or the differences
# and a non-zero exit.
set -uo pipefail
before=$1 after=$2 work=${3:-$(mktemp -d)}
mkdir -p "$work"
checks=0 fails=0
# Masks what differs from run to run: times and rates.
mask() {
  sed -E -e 's/^(\| [0-9]+ \| [0-9]+ \| [^|]*\|).*/\1/' \
    -e 's/"nps": ?[0-9.]+/"nps": R/g' -e 's/[0-9.]+ [KMGT]?i?B free/S free/g' -e 's/of [0-9.]+ [KMGT]?i?B \(default/of S (default/g' \
    -e 's/[0-9]+(\.[0-9]+)? ?(ms|s|µs|ns)\b/T/g' \
    -e 's/"(time_ms|time_s|secs|elapsed_s|ms|nodes_per_s|seconds|wall_s)": ?[0-9.e+-]+/"\1": T/g' \
    -e 's/[0-9.]+ nodes\/s/R nodes\/s/g' -e 's/time [0-9.]+s/time T/g' \
    -e 's/(total time \(ms\)|nodes\/second) *: *[0-9]+/\1 : T/' \
    -e "s#$work/[ab]#DIR#g" -e 's/ +T/ T/g'
}
# run NAME ARGS...: the command with both binaries ({} in ARGS is a
# directory of each binary's own), outputs compared.
run() {
  local name=$1; shift
  local a=() b=()
  for x in "$@"; do a+=("${x//\{\}/$work/b}"); b+=("${x//\{\}/$work/a}"); done
  "$before" "${a[@]}" >"$work/$name.before" 2>&1; echo "exit $?" >>"$work/$name.before"
  "$after" "${b[@]}" >"$work/$name.after" 2>&1; echo "exit $?" >>"$work/$name.after"
  checks=$((checks + 1))
  if diff <(mask <"$work/$name.before") <(mask <"$work/$name.after") >"$work/$name.diff"; then
    echo "equal: $name"
  else
    fails=$((fails + 1)); echo "DIFFERS: $name"; head -20 "$work/$name.diff"
  fi
}
rm -rf "$work/a" "$work/b"; mkdir -p "$work/a" "$work/b"
adjito_pos="2,1,0,3,1,2/1,2,0,1,3,2 B 15-15"
boto_pos="1,1,3,2,5/1,0,0,2,4 1 31-50 main"
adjito_small="1,0,2,0,1,1/0,2,1,0,1,0 B"
boto_small="1,0,2,0,1/0,2,1,0,1 1 main"
for spec in "adjito default 13" "adjito must-reach 12" "adjito slam-forbidden 12" \
  "adjiboto default 13" "adjiboto valdez 13"; do
  set -- $spec; g=$1 r=$2 max=$3
  pos=$([ "$g" = adjito ] && echo "$adjito_pos" || echo "$boto_pos")
  small=$([ "$g" = adjito ] && echo "$adjito_small" || echo "$boto_small")
  id="$g-$r"
  for loop in start even; do
    run "build-$id-$loop" tables build --game "$g" --rules "$r" --max-seeds "$max" --loop "$loop" --dir "{}" --threads 2
  done
  run "probe-$id" tables probe --game "$g" --rules "$r" --dir "{}" --position "$small" --json
  run "stats-$id" tables stats --game "$g" --rules "$r" --dir "{}"
  run "show-$id" show --game "$g" --rules "$r"
  run "moves-$id" moves --game "$g" --rules "$r" --position "$pos" --json
  run "perft-$id" perft --game "$g" --rules "$r" --depth 5 --divide --json
  run "replay-$id" replay --game "$g" --rules "$r" --position "$pos" --moves "$( "$after" moves --game "$g" --rules "$r" --position "$pos" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["moves"][0]["move"])')"
  run "solve-$id" solve --game "$g" --rules "$r" --position "$pos" --tables "{}" --threads 1 --json
  run "solve-notables-$id" solve --game "$g" --rules "$r" --position "$pos" --no-tables --threads 1 --nodes 300000 --json
  run "analyse-$id" analyse --game "$g" --rules "$r" --threads 1 --depth 8 --no-tables
  run "openings-$id" openings --game "$g" --rules "$r" --plies 1 --nodes-per-position 20000 --threads 1 --tables "{}" --no-timings --out "{}/openings-$id"
  run "loopgap-$id" loop-gap --game "$g" --rules "$r" --max-seeds 6
done
run "certify-adjito" certify --game adjito --position "$adjito_pos" --tables "{}" --out "{}/cert.adjc"
run "verify-adjito" tables verify --game adjito --dir "{}" --sample 1000
run "bench" bench
for f in "$work"/a/*.adjt; do
  checks=$((checks + 1))
  if ! cmp -s "$f" "$work/b/$(basename "$f")"; then fails=$((fails + 1)); echo "DIFFERS: $(basename "$f")"; fi
done
echo "tables: $(ls "$work"/a/*.adjt | wc -l) files compared"
if [ "$fails" = 0 ]; then echo "all $checks checks equal"; else echo "$fails of $checks checks differ"; exit 1; fi
