#!/usr/bin/env bash
# Reproduces the figures of results/tables.md. Run from the repository root.
#   scripts/bench-tables.sh            # everything (about 5 minutes on 2 cores)
set -euo pipefail
cargo build --release
BIN=target/release/adji
DIR=${DIR:-tables}
# 1. The committed builds, timing each level against the floor (a plain
#    parallel pass over every move of the level), at 2 threads.
$BIN tables build --game adjito --max-seeds 20 --dir "$DIR" --compare-floor --threads 2
$BIN tables build --game adjiboto --max-seeds 24 --dir "$DIR" --compare-floor --threads 2
# 2. Thread scaling: rebuild Adjito level 16 (13,037,895 positions) with 1 and 2 threads.
for t in 1 2; do
  rm -f "$DIR/adjito-start-016.adjt"
  echo "threads $t:"
  $BIN tables build --game adjito --max-seeds 16 --dir "$DIR" --threads "$t" | grep '^| 16 |'
done
# 3. Statistics.
$BIN tables stats --game adjito --dir "$DIR" --out results/tables-adjito-stats.md
$BIN tables stats --game adjiboto --dir "$DIR" --out results/tables-adjiboto-stats.md
$BIN tables verify --dir "$DIR"
