#!/usr/bin/env bash
# Reproduces results/search.md's measured sections. Needs tables/ built by
# scripts/bench-tables.sh (Adjito to 20, Adji-Boto to 24 seeds).
set -euo pipefail
cargo bench --bench search 2>/dev/null | grep -v '^\s*$' > results/runs/search-bench.md
cargo bench --bench deepest 2>/dev/null > results/search-deepest.md
target/release/adji bench > results/runs/search-fingerprint.txt
