#!/usr/bin/env bash
# What deeper tables buy (issue 27): the same positions solved with two table
# directories under the same node budget, one thread (so every run is
# deterministic and the machine's load changes only the time), then the
# estimate engine's quality at those seed counts with each table set, on the
# positions the deeper tables solve.
#
#   scripts/deeper-tables.sh ADJI SAMPLE_POSITIONS SMALL_TABLES DEEP_TABLES OUT_DIR \
#       [NODES=10000000] [SEED=7] [PER_LEVEL=8] [LEVELS="52 54 56 58 60"]
#
# Writes OUT_DIR/{positions.in, solve-small.jsonl, solve-deep.jsonl,
# compare.md, beyond.jsonl, exact-deep.tsv, quality-*.txt}; compare.md is the result. Solves
# that both finish must agree (the script stops if they do not).
set -euo pipefail
adji=$1 sample=$2 small=$3 deep=$4 out=$5
nodes=${6:-10000000} seed=${7:-7} per=${8:-8} levels=${9:-"52 54 56 58 60"}
for d in "$small" "$deep"; do
  [ -e "$d/adjiboto-start-000.adjt" ] || { echo "deeper-tables.sh: $d holds no Adji-Boto tables" >&2; exit 2; }
done
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086
"$sample" adjiboto "$seed" "$per" $levels > "$out/positions.in"
for t in small deep; do
  dir=$small; [ $t = deep ] && dir=$deep
  if [ ! -s "$out/solve-$t.jsonl" ]; then
    "$adji" solve --game adjiboto --positions-file "$out/positions.in" --tables "$dir" \
      --trust-tables --threads 1 --hash 1024 --nodes "$nodes" --json > "$out/solve-$t.jsonl.tmp"
    mv "$out/solve-$t.jsonl.tmp" "$out/solve-$t.jsonl"
  fi
done
python3 - "$out" "$nodes" <<'EOF'
import json, sys
out, nodes = sys.argv[1], int(sys.argv[2])
def load(t):
    return [json.loads(l) for l in open(f"{out}/solve-{t}.jsonl")]
small, deep = load("small"), load("deep")
level = lambda p: sum(int(x) for row in p.split()[0].split("/") for x in row.split(","))
rows, beyond = {}, []
for s, d in zip(small, deep):
    assert s["position"] == d["position"]
    if s["exact"] and d["exact"] and s["value"] != d["value"]:
        sys.exit(f"disagreement on {s['position']}: {s['value']} against {d['value']}")
    r = rows.setdefault(level(s["position"]), [0, 0, 0, [], []])
    r[0] += 1; r[1] += s["exact"]; r[2] += d["exact"]
    if s["exact"] and d["exact"]:
        r[3].append(s["nodes"]); r[4].append(d["nodes"])
    if d["exact"] and not s["exact"]:
        beyond.append(d)
with open(f"{out}/compare.md", "w") as f:
    f.write(f"| seeds | positions | exact, small tables | exact, deep tables | nodes where both are exact, small ÷ deep |\n")
    f.write("|---:|---:|---:|---:|---|\n")
    for lv in sorted(rows):
        n, a, b, na, nb = rows[lv]
        ratio = f"{sum(na):,} ÷ {sum(nb):,} = {sum(na) / max(1, sum(nb)):.2f}" if na else "–"
        f.write(f"| {lv} | {n} | {a} | {b} | {ratio} |\n")
    f.write(f"\n{len(beyond)} positions are exact only with the deep tables (budget {nodes:,} nodes, one thread).\n")
with open(f"{out}/beyond.jsonl", "w") as f:
    f.writelines(json.dumps(d) + "\n" for d in beyond)
print(open(f"{out}/compare.md").read())
EOF
# The estimates' quality at these seed counts, with each table set: every
# position the deep tables solved is a known value, and the engine (learned
# evaluation, a node budget) estimates it with the small and the deep tables.
python3 "$here/quality.py" make adjiboto "$out/solve-deep.jsonl" "$out/exact-deep.tsv"
for budget in 100000 1000000; do
  for t in small deep; do
    dir=$small; [ $t = deep ] && dir=$deep
    python3 "$here/quality.py" measure adjiboto "$out/exact-deep.tsv" "$dir" --nodes $budget \
      --eval learned --adji "$adji" --per-position > "$out/quality-$t-$budget.txt"
    grep -H '	all	' "$out/quality-$t-$budget.txt"
  done
done
