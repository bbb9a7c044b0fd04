#!/usr/bin/env bash
# Reproduces the figures of results/rules.md (issue 24: the rule sets side
# by side). Run from the repository root.
#
#   scripts/rules-results.sh [STAGE...]
#
# Stages (default: gap tables solve compare openings frontier; `speed` only
# when asked):
#   gap       adji loop-gap for every Adjito reading and for Adji-Boto
#   tables    the endgame tables (resumable): Adjito 0..24 under each reading
#             (loop start), 0..20 under `even`; Adji-Boto default 0..32
#   solve     the Adjito start under every reading and both loop rules
#   compare   each Adjito reading's tables against the default's, per level
#   openings  the Adji-Boto opening book under valdez and the default
#   frontier  the exact frontier along three games, valdez and the default
#             (examples/frontier_curve, 30 s a solve, one thread each)
#   speed     old binary (OLD=path, e.g. built from c1349df) against this one,
#             alternated level by level: build ÷ floor, adji bench, and cmp of
#             every table file both built
#
# Environment: TABLES (default tables-rules), RUNS (default rules-runs),
# OLD (the old binary, for `speed`), PLIES (opening depths, default "2 4").
# loop-gap levels as in results/rules.md: Adjito default 8, must-reach and
# slam-forbidden 11, Adji-Boto 12.
#
# Builds of different file sets (games, rule sets, loop rules) may run at
# once in one directory; a second build of the same files there is refused
# (src/tables/lock.rs: each build holds .adji-build-FILES.lock).
set -euo pipefail
cargo build --release
cargo build --release --example rules_compare --example frontier_curve
BIN=target/release/adji
CMP=target/release/examples/rules_compare
TABLES=${TABLES:-tables-rules}
RUNS=${RUNS:-rules-runs}
PLIES=${PLIES:-2 4}
READINGS="default must-reach slam-forbidden"
mkdir -p "$TABLES" "$RUNS"
stages=${*:-gap tables solve compare openings frontier}

run() { # log-file command...: runs, times, keeps stdout in RUNS
  local out=$RUNS/$1
  shift
  echo "\$ $*" | tee "$out.cmd"
  /usr/bin/time -f "%e s wall, %U s user" -o "$out.time" "$@" > "$out"
  cat "$out.time"
}

for stage in $stages; do
  case $stage in
  gap)
    for rn in default:8 must-reach:11 slam-forbidden:11; do
      run "loop-gap-adjito-${rn%:*}.md" $BIN loop-gap --game adjito --rules "${rn%:*}" --max-seeds "${rn#*:}" --limit 20000000000
    done
    run loop-gap-adjiboto-default.md $BIN loop-gap --game adjiboto --max-seeds 12 --limit 20000000000
    ;;
  tables)
    for r in $READINGS; do
      $BIN tables build --game adjito --rules "$r" --loop start --max-seeds 24 --dir "$TABLES" --threads 2
      $BIN tables build --game adjito --rules "$r" --loop even --max-seeds 20 --dir "$TABLES" --threads 2
    done
    $BIN tables build --game adjiboto --max-seeds 32 --dir "$TABLES" --threads 2
    ;;
  solve)
    for r in $READINGS; do
      for l in start even; do
        run "solve-adjito-$r-$l.json" $BIN solve --game adjito --rules "$r" --loop "$l" --tables "$TABLES" --threads 2 --hash 2048 --json
      done
    done
    ;;
  compare)
    for r in $READINGS; do
      run "stats-adjito-$r.md" $BIN tables stats --game adjito --rules "$r" --dir "$TABLES"
    done
    for r in must-reach slam-forbidden; do
      run "compare-adjito-$r.md" $CMP "$TABLES" adjito "$r" default 24 start
    done
    run compare-adjiboto-valdez.md $CMP "$TABLES" adjiboto valdez default 32 start
    ;;
  openings)
    for k in $PLIES; do
      t=$((8 / k))
      for r in default valdez; do
        run "openings-adjiboto-$r-$k.log" $BIN openings --game adjiboto --rules "$r" --plies "$k" --estimate-time "$t" --tables "$TABLES" --hash 64 --out "$RUNS/openings-adjiboto-$r-$k"
      done
    done
    ;;
  frontier)
    for r in default valdez; do
      run "frontier-adjiboto-$r.md" nice target/release/examples/frontier_curve "$TABLES" 30 100000 --rules "$r" --threads 1
    done
    ;;
  speed)
    : "${OLD:?set OLD to the old binary}"
    mkdir -p "$RUNS/speed-old" "$RUNS/speed-new"
    for spec in adjito:22 adjiboto:30; do
      g=${spec%:*}
      for n in $(seq 0 "${spec#*:}"); do
        order="$OLD:$RUNS/speed-old $BIN:$RUNS/speed-new"
        ((n % 2)) && order="$BIN:$RUNS/speed-new $OLD:$RUNS/speed-old"
        for bd in $order; do
          echo -n "${bd%%:*} "
          "${bd%%:*}" tables build --game "$g" --max-seeds "$n" --dir "${bd#*:}" --threads 2 --compare-floor | grep "^| $n |" | tail -1
        done
      done
    done
    for i in $(seq 1 10); do # interleaved pairs, the first binary alternating
      order="$OLD $BIN"
      ((i % 2)) || order="$BIN $OLD"
      for b in $order; do echo "bench $b run $i load $(cut -d' ' -f1 /proc/loadavg)"; $b bench | tail -3; done
    done
    for f in "$RUNS"/speed-old/*.adjt; do
      n=$(basename "$f")
      cmp "$f" "$RUNS/speed-new/$n" && echo "$n identical $(sha256sum < "$f" | cut -c1-64)"
    done
    ;;
  *)
    echo "unknown stage $stage" >&2
    exit 1
    ;;
  esac
done
