#!/usr/bin/env bash
# The exact frontier of Adji-Boto (issue 53): PER positions at each seed count
# of LEVELS, drawn by random playouts from the start with a fixed seed, each
# solved under a time limit with the tables of levels 0..MAX; reports each
# position's value or bounds, nodes and wall, and a summary per seed count.
#
#   scripts/frontier.sh ADJI SAMPLE TABLES MAX OUT_DIR \
#       [SECONDS=60] [THREADS=2] [SEED=53] [PER=10] [LEVELS="48 51 54 57 60 63"]
#
# ADJI: the adji binary (target/release/adji); SAMPLE: the sample_positions
# example (target/release/examples/sample_positions); TABLES: a directory of
# Adji-Boto tables (`adji tables build`) holding at least levels 0..MAX, whose
# files are checked once against results/tables-checksums.txt (`adji tables
# checksum --check`) before the solves read them trusted. Only levels 0..MAX
# are used: they are linked into a scratch directory.
#
# Writes OUT_DIR/positions.in, OUT_DIR/solve-tMAX-THREADSt.jsonl and
# OUT_DIR/frontier-tMAX-THREADSt.md (the result). A finished .jsonl is kept,
# so a rerun only summarizes; a run with other tables or threads writes its
# own files beside it, and the summary checks that every value found in two
# runs agrees.
set -euo pipefail
adji=$1 sample=$2 tables=$3 max=$4 out=$5
secs=${6:-60} threads=${7:-2} seed=${8:-53} per=${9:-10} levels=${10:-"48 51 54 57 60 63"}
case $max in '' | *[!0-9]*) echo "frontier.sh: MAX must be a level, not '$max'" >&2; exit 2 ;; esac
mkdir -p "$out"
links=$(mktemp -d)
trap 'rm -rf "$links"' EXIT
here=$(cd "$(dirname "$0")/.." && pwd)
for l in $(seq 0 "$max"); do
  f=$(printf 'adjiboto-start-%03d.adjt' "$l")
  [ -e "$tables/$f" ] || { echo "frontier.sh: $tables has no $f" >&2; exit 2; }
  ln -s "$(cd "$tables" && pwd)/$f" "$links/$f"
done
"$adji" tables checksum --game adjiboto --dir "$links" --check "$here/results/tables-checksums.txt" > /dev/null
# shellcheck disable=SC2086
"$sample" adjiboto "$seed" "$per" $levels > "$out/positions.in.tmp"
if [ -e "$out/positions.in" ] && ! cmp -s "$out/positions.in" "$out/positions.in.tmp"; then
  echo "frontier.sh: $out/positions.in holds other positions; use another OUT_DIR" >&2
  exit 2
fi
mv "$out/positions.in.tmp" "$out/positions.in"
run=t$max-${threads}t
if [ ! -s "$out/solve-$run.jsonl" ]; then
  "$adji" solve --game adjiboto --positions-file "$out/positions.in" --tables "$links" \
    --trust-tables --threads "$threads" --hash 1024 --time "$secs" --json > "$out/solve-$run.jsonl.tmp"
  mv "$out/solve-$run.jsonl.tmp" "$out/solve-$run.jsonl"
fi
python3 - "$out" "$run" "$secs" <<'EOF'
import glob, json, statistics, sys
out, run, secs = sys.argv[1], sys.argv[2], sys.argv[3]
level = lambda p: sum(int(x) for row in p.split()[0].split("/") for x in row.split(","))
values = {}
for f in sorted(glob.glob(f"{out}/solve-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if r.get("exact"):
            v = values.setdefault(r["position"], (r["value"], f))
            if v[0] != r["value"]:
                sys.exit(f"disagreement on {r['position']}: {v[0]} ({v[1]}) against {r['value']} ({f})")
rows = [json.loads(l) for l in open(f"{out}/solve-{run}.jsonl")]
by = {}
for r in rows:
    by.setdefault(level(r["position"]), []).append(r)
with open(f"{out}/frontier-{run}.md", "w") as f:
    f.write(f"Tables and threads: `{run}`; limit {secs} s a position.\n\n")
    f.write("| seeds | positions | exact | nodes of the exact ones (sum) | wall of the exact ones, s (median, max) | open: bounds |\n")
    f.write("|---:|---:|---:|---:|---|---|\n")
    for lv in sorted(by):
        rs = by[lv]
        ex = [r for r in rs if r["exact"]]
        walls = [r["time_ms"] / 1000 for r in ex]
        wall = f"{statistics.median(walls):.1f}, {max(walls):.1f}" if walls else "–"
        open_ = ", ".join(f"[{r['lower']:+}, {r['upper']:+}]" for r in rs if not r["exact"]) or "–"
        f.write(f"| {lv} | {len(rs)} | {len(ex)} | {sum(r['nodes'] for r in ex):,} | {wall} | {open_} |\n")
    f.write("\n| position | value or bounds | nodes | wall s |\n|---|---|---:|---:|\n")
    for r in rows:
        v = f"{r['value']:+}" if r["exact"] else f"[{r['lower']:+}, {r['upper']:+}]"
        f.write(f"| `{r['position']}` | {v} | {r['nodes']:,} | {r['time_ms'] / 1000:.1f} |\n")
print(open(f"{out}/frontier-{run}.md").read())
EOF
