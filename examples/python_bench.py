"""Probes and solves per second from Python, against the Rust library directly.

    python3 examples/python_bench.py GAME TABLES_DIR [PROBES] [SOLVES]

Draws PROBES uniformly random positions (mover to move, main phase, levels
0 to the tables' top, seed 1) and SOLVES positions a few seeds above the
tables, writes them to /tmp, times them through the `adji` package (one
thread), then runs `target/release/examples/python_compare` on the same
files (build it with `cargo build --release --example python_compare`).
Prints Markdown table rows.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import adji

ROOT = Path(__file__).resolve().parents[1]


def random_positions(game: str, levels, count: int, rng) -> list:
    pits = 12 if game == "adjito" else 10
    total = 48 if game == "adjito" else 100
    h = pits // 2
    out = []
    while len(out) < count:
        n = int(rng.choice(levels))
        board = np.bincount(rng.integers(0, pits, n), minlength=pits)
        rest = total - n
        mover = "B" if game == "adjito" else "0"
        text = (
            f"{','.join(map(str, board[h:]))}/{','.join(map(str, board[:h]))} "
            f"{mover} {rest // 2}-{rest - rest // 2}"
        )
        if game == "adjiboto":
            text += " main"
        p = adji.Position(text, game)
        if not p.game_over:
            out.append(p)
    return out


def rate(what: str, n: int, secs: float) -> str:
    return f"| Python | {what} | {n} | {secs:.4f} | {n / secs:,.0f} | {secs * 1e6 / n:.2f} |"


def main() -> None:
    game, tdir = sys.argv[1], sys.argv[2]
    n_probe = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
    n_solve = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    t = adji.Tables(tdir, game=game)
    top = t.covered - 1
    rng = np.random.default_rng(1)
    probes = random_positions(game, range(0, top + 1), n_probe, rng)
    solves = random_positions(game, range(top + 1, top + 5), n_solve, rng)
    pf, sf = Path(f"/tmp/python-bench-{game}-probe.txt"), Path(f"/tmp/python-bench-{game}-solve.txt")
    pf.write_text("\n".join(p.notation for p in probes) + "\n")
    sf.write_text("\n".join(p.notation for p in solves) + "\n")
    boards = np.array([p.board for p in probes], dtype=np.uint8)
    rows = []
    for p in probes[:1000]:  # warm the pages
        t.value(p)
    t0 = time.perf_counter()
    for p in probes:
        t.value(p)
    rows.append(rate("`Tables.value(position)`, one call per position", len(probes), time.perf_counter() - t0))
    t0 = time.perf_counter()
    for p in probes[:20_000]:
        t.probe(p)
    rows.append(rate("`Tables.probe(position)`: the report as a dict", 20_000, time.perf_counter() - t0))
    t0 = time.perf_counter()
    for i in range(20_000):
        adji.probe_boards(t, boards[i : i + 1])
    rows.append(rate("`probe_boards`, a batch of 1", 20_000, time.perf_counter() - t0))
    for size in (1_000, len(probes)):
        t0 = time.perf_counter()
        reps = max(1, len(probes) // size)
        for r in range(reps):
            adji.probe_boards(t, boards[r * size : (r + 1) * size])
        rows.append(rate(f"`probe_boards`, batches of {size:,}", reps * size, time.perf_counter() - t0))
    t0 = time.perf_counter()
    t.probe_many(probes[:20_000])
    rows.append(rate("`Tables.probe_many`, one list of 20,000", 20_000, time.perf_counter() - t0))
    t0 = time.perf_counter()
    for p in solves:
        adji.solve(p, tables=t, threads=1, hash_mib=16)
    rows.append(rate(f"`adji.solve(…, threads=1, hash_mib=16)`, levels {top + 1}–{top + 4}",
                     len(solves), time.perf_counter() - t0))
    solver = adji.Solver(tables=t, threads=1, hash_mib=16)
    t0 = time.perf_counter()
    for p in solves:
        solver.solve(p)
    rows.append(rate(f"`adji.Solver(…, threads=1, hash_mib=16).solve`, one table reused, levels {top + 1}–{top + 4}",
                     len(solves), time.perf_counter() - t0))
    print(f"### {game}: tables 0–{top}\n")
    print("| side | what | count | seconds | per second | µs each |\n|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(r)
    exe = ROOT / "target" / "release" / "examples" / "python_compare"
    out = subprocess.run([str(exe), game, tdir, str(pf), str(sf)], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("checksum"):
            continue
        what, rest = line.split(": ", 1)
        n, rest = rest.split(" in ", 1)
        secs = float(rest.split(" s")[0])
        what = what.split(" ", 1)[1]
        print(f"| Rust | {what} | {int(n)} | {secs:.4f} | {int(n) / secs:,.0f} | {secs * 1e6 / int(n):.2f} |")
    print()


if __name__ == "__main__":
    main()
