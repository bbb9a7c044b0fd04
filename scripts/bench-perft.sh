#!/usr/bin/env bash
# Reproduces results/perft.md: criterion perft throughput, one thread.
set -euo pipefail
cargo bench --bench perft -- --noplot 2>&1 | grep -E 'perft/|time:|thrpt:'
