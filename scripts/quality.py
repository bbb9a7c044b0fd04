#!/usr/bin/env python3
"""Quality of the estimate engine on positions with known exact values.

make GAME SOLVED.jsonl OUT.tsv
    Keeps the exactly solved lines of `adji solve --json` output as
    `position<TAB>value<TAB>optimal moves (comma-separated)`.
measure GAME DATA.tsv TABLES SECONDS [EVAL]
    Runs `adji analyse --json --time SECONDS --tables TABLES [--eval EVAL]`
    on every position and prints: positions, share where the engine's move
    is optimal, mean |estimate - value|, positions proven exact.
"""
import json
import subprocess
import sys

ADJI = "target/release/adji"


def make(game, solved, out):
    rows = []
    for line in open(solved):
        r = json.loads(line)
        if not r.get("exact"):
            continue
        best = [m["move"] for m in r["moves"] if m["exact"] and m["lower"] == r["value"]]
        rows.append(f'{r["position"]}\t{r["value"]}\t{",".join(best)}\n')
    with open(out, "w") as f:
        f.write(f"# {game}: exact values and optimal moves; see results/analysis.md for how they were made\n")
        f.writelines(rows)
    print(f"{len(rows)} positions written to {out}")


def measure(game, data, tables, seconds, model=None):
    n = optimal = exact = 0
    err = 0.0
    for line in open(data):
        if line.startswith("#") or not line.strip():
            continue
        pos, value, best = line.rstrip("\n").split("\t")
        cmd = [ADJI, "analyse", "--game", game, "--position", pos, "--json",
               "--time", seconds, "--tables", tables]
        if model:
            cmd += ["--eval", model]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        n += 1
        optimal += r["best"] in best.split(",")
        err += abs(r["estimate"] - int(value))
        exact += r["value"] is not None
    print(f"{game}\t{model or 'learned'}\tpositions {n}\toptimal move {optimal}/{n} = {100.0 * optimal / n:.1f} %"
          f"\tmean |estimate - value| {err / n:.2f}\tproven exact {exact}")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "make":
        make(*sys.argv[2:5])
    elif len(sys.argv) >= 6 and sys.argv[1] == "measure":
        measure(*sys.argv[2:7])
    else:
        sys.exit(__doc__)
