#!/usr/bin/env python3
"""Quality of the estimate engine on positions with known exact values.

make GAME SOLVED.jsonl OUT.tsv
    Keeps the exactly solved lines of `adji solve --json` output as
    `position<TAB>value<TAB>optimal moves (comma-separated)`.
measure GAME DATA.tsv... TABLES (--time SECONDS | --nodes N) [--eval EVAL ...] [--adji BINARY] [--per-position]
    Runs `adji analyse --json --tables TABLES` with the limit on every
    position, once per evaluation (`learned` = the shipped weights, `baseline`
    = the split, or a model file), the evaluations back to back on each
    position so that a shared machine's load hits them alike. Prints, per
    evaluation: positions, share where the engine's move is optimal, mean
    |estimate - value| (all positions, and those the search did not prove
    exact), positions proven exact; then the same per level band. Several
    data files are measured as one set. `--adji` runs another build (e.g.
    an older commit's, for its shipped weights).
paired RUN.txt EVAL_A EVAL_B [DATA.tsv]
    Reads the `--per-position` lines of a `measure` run and compares two of
    its evaluations position by position (only the positions of DATA.tsv
    when given): the mean of |error B| - |error A|, its 95 % bootstrap
    interval (10,000 resamples, fixed seed), on how many positions each is
    closer, and the two-sided sign test's p.
"""
import argparse
import json
import math
import random
import subprocess
import sys

ADJI = "target/release/adji"
BANDS = [(0, 29), (30, 37), (38, 44), (45, 100)]


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


def level(pos):
    return sum(int(x) for row in pos.split()[0].split("/") for x in row.split(","))


def rows(files):
    for data in files:
        for line in open(data):
            if line.startswith("#") or not line.strip():
                continue
            pos, value, best = line.rstrip("\n").split("\t")
            yield pos, int(value), best.split(",")


def analyse(adji, game, pos, tables, limit, model):
    cmd = [adji, "analyse", "--game", game, "--position", pos, "--json", "--tables", tables] + limit
    if model != "learned":
        cmd += ["--eval", model]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def summary(label, rs):
    n = len(rs)
    if n == 0:
        return f"{label}\tpositions 0"
    optimal = sum(r[0] for r in rs)
    err = sum(r[1] for r in rs)
    open_ = [r[1] for r in rs if not r[2]]
    open_err = f"{sum(open_) / len(open_):.2f} over {len(open_)}" if open_ else "- over 0"
    return (f"{label}\tpositions {n}\toptimal move {optimal}/{n} = {100.0 * optimal / n:.1f} %"
            f"\tmean |estimate - value| {err / n:.2f}\ton unproven {open_err}"
            f"\tproven exact {n - len(open_)}")


def measure(a):
    limit = ["--time", a.time] if a.time else ["--nodes", a.nodes]
    evals = a.eval or ["learned", "baseline"]
    res = {e: [] for e in evals}
    for pos, value, best in rows(a.data):
        for e in evals:
            r = analyse(a.adji, a.game, pos, a.tables, limit, e)
            ok, err, exact = r["best"] in best, abs(r["estimate"] - value), r["value"] is not None
            res[e].append((ok, err, exact, level(pos)))
            if a.per_position:
                print(f"{pos}\t{value}\t{e}\t{r['best']}{'' if ok else ' (not optimal)'}"
                      f"\t{r['estimate']:.2f}\t{'exact' if exact else 'depth ' + str(r['depth'])}")
    what = " ".join(limit)
    for e in evals:
        print(summary(f"{a.game}\t{e}\t{what}\tall", res[e]))
    for lo, hi in BANDS:
        for e in evals:
            band = [r for r in res[e] if lo <= r[3] <= hi]
            if band:
                print(summary(f"{a.game}\t{e}\t{what}\tlevels {lo}-{hi}", band))


def paired(run, a, b, data=None):
    keep = {pos for pos, _, _ in rows([data])} if data else None
    err = {}
    for line in open(run):
        f = line.rstrip("\n").split("\t")
        if len(f) != 6 or (keep is not None and f[0] not in keep):
            continue
        pos, value, ev, _, est, _ = f
        err.setdefault(pos, {})[ev] = abs(float(est) - int(value))
    d = [e[b] - e[a] for e in err.values() if a in e and b in e]
    if not d:
        sys.exit(f"paired: no position has both {a} and {b} in {run}")
    n = len(d)
    rng = random.Random(1)
    means = sorted(sum(rng.choice(d) for _ in range(n)) / n for _ in range(10000))
    closer_a = sum(x > 0.005 for x in d)
    closer_b = sum(x < -0.005 for x in d)
    k, m = min(closer_a, closer_b), closer_a + closer_b
    p = min(1.0, 2 * sum(math.comb(m, i) for i in range(k + 1)) / 2 ** m) if m else 1.0
    print(f"positions {n}\tmean |error {b}| - |error {a}| {sum(d) / n:+.3f}"
          f"\t95 % bootstrap [{means[250]:+.3f}, {means[9750]:+.3f}]"
          f"\t{a} closer {closer_a}\t{b} closer {closer_b}\ttied {n - m}\tsign test p {p:.3f}")


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "make":
        return make(*sys.argv[2:5])
    if len(sys.argv) in (5, 6) and sys.argv[1] == "paired":
        return paired(*sys.argv[2:])
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("cmd", choices=["measure"])
    p.add_argument("game")
    p.add_argument("data", nargs="+")
    p.add_argument("tables")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--time")
    g.add_argument("--nodes")
    p.add_argument("--eval", action="append")
    p.add_argument("--per-position", action="store_true")
    p.add_argument("--adji", default=ADJI)
    measure(p.parse_args())


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(0)
    except OSError as e:
        sys.exit(f"quality.py: {e.filename}: {e.strerror}")
