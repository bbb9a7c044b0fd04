#!/usr/bin/env python3
"""Projection (not a measurement) of what Adji-Boto endgame tables would cost
on a cluster, from the one-machine builder's measured rates (issue 40,
deliverable 4).

Every input is a named constant below with the results file it comes from.
Everything this script prints is a PROJECTION computed from them; nothing
here was run on a cluster.

    python3 scripts/cluster-projection.py                      # levels 0-100, 64 nodes
    python3 scripts/cluster-projection.py --max-level 60       # tables to 60
    python3 scripts/cluster-projection.py --nodes 16 --ram-gib 512 --cores 64 --show 40,50,60

Standard library only; deterministic (no clock, no randomness).
"""

import argparse
import math
from math import comb

# ---------------------------------------------------------------------------
# Measured inputs
# ---------------------------------------------------------------------------

# Pits of an Adji-Boto board: level n holds C(n+9, 9) positions
# (docs/TABLES.md, line 6: "C(n+k-1, k-1) entries (k = 12 or 10)"), main
# phase only (docs/TABLES.md, line 7: "Adji-Boto tables cover main-phase
# positions"). Checked below against the measured entry counts.
PITS = 10

# The fourth real build, one process, 2 threads, `--memory 21G`, levels built
# in memory: (level, positions, total s wall).
# results/runs/tables-adjiboto-44-build.log, lines 85-96 (levels 30-41);
# command: adji tables build --game adjiboto --max-seeds 44 --dir $TABLES --memory 21G
# (results/tables.md, "Fourth build").
IN_MEMORY_ROWS = [
    (30, 211915132, 19.788),
    (31, 273438880, 26.376),
    (32, 350343565, 34.222),
    (33, 445891810, 48.578),
    (34, 563921995, 63.273),
    (35, 708930508, 81.242),
    (36, 886163135, 94.620),
    (37, 1101716330, 132.774),
    (38, 1362649145, 169.199),
    (39, 1677106640, 217.230),
    (40, 2054455634, 253.113),
    (41, 2505433700, 316.840),
]
# Threads of that build (its command's default on this 2-core machine;
# results/README.md line 3: "2 cores, 24 GiB"). A level's core-seconds are
# taken as wall s x 2: an upper bound on its CPU (the process did not always
# hold both cores).
BUILD_THREADS = 2

# Same build, levels 42-44 out of core in two shards: (level, positions,
# total s wall, process CPU s).
# results/runs/tables-adjiboto-44-build.log, lines 97-99; results/tables.md,
# "Fourth build" table.
OUT_OF_CORE_ROWS = [
    (42, 3042312350, 969.697, 1734.68),
    (43, 3679075400, 1458.599, 2448.03),
    (44, 4431613550, 2234.407, 3500.53),
]

# The builder's plan for level 41 (in memory): working memory (cells and
# frontiers) for 2,505,433,700 positions: 10.5 GiB in the same log, line
# 47, before issue 50; 4.8 GiB in the 2-byte builder's plan
# (results/builder-50.md, "The plan of 0-44").
PLAN_L41_WORKING_GIB = 4.8
PLAN_L41_POSITIONS = 2505433700
# Plan for level 44 (out of core): scratch disk (the two shards' cells)
# for 4,431,613,550 positions: 16.5 GiB in the same log, line 50, before
# issue 50; 12.4 GiB in the 2-byte builder's (results/builder-50.md).
PLAN_L44_SCRATCH_GIB = 12.4
PLAN_L44_POSITIONS = 4431613550
# Level 44's update records: 55.6 GiB (14.9 GiB spilled to disk), same log
# line 99.
L44_UPDATES_GIB = 55.6
L44_UPDATES_SPILLED_GIB = 14.9

# The file of a level: 64-byte header + one byte a position + exception
# records (docs/TABLES.md lines 9-17). Level 41's file is 2,505,433,764
# bytes = positions + 64: no exceptions (results/tables.md, Adji-Boto 41
# table, "bytes on disk").
HEADER_BYTES = 64
L41_FILE_BYTES = 2505433764

# The memory budget of the real builds against the machine: `--memory 21G`
# (results/tables.md, "Fourth build" command) on 23.0 GiB available
# (results/search-deepest.md line 24). Used as the usable share of a node's RAM.
BUDGET_GIB = 21.0
AVAILABLE_GIB = 23.0

# The distributed (MPI) builder, results/distributed.md "The model and
# projections, again":
#   CPU overhead of the slicing against one process: 2.2 (line 577, the
#   value the file's own projections use; measured 1.45-2.82, line 557,
#   at P = 2-8 on Adjito 16 and Adji-Boto 18-20);
DIST_OVERHEAD = 2.2
DIST_OVERHEAD_RANGE = (1.45, 2.82)
#   cells and frontiers a position of a rank's part: 4.5 B, 5.0 B where
#   boards need the 128-bit word (Adji-Boto from 64 seeds), line 580,
#   before issue 50; since the 2-byte builder (results/builder-50.md), a
#   part keeps 3 bytes of cell and plane and up to 0.5 B of frontiers a
#   64-bit word: 3.5 B, 4.0 B with 128-bit boards
#   (src/tables/retrograde/plan.rs, `work_per_position`). `--work-bytes
#   4.5 --work-bytes-wide 5.0` gives the projection of the builder before.
WORK_BYTES = 3.5
WORK_BYTES_WIDE = 4.0
WIDE_FROM_LEVEL = 64
#   the 128-bit board costs 1.10-1.21x the 64-bit build (Adjito 16, line
#   606-608); the file's projection uses 1.21.
WIDE_FACTOR = 1.21
#   network: update records u = 33 B and lookups l = 12 B a position
#   (lines 594-595; "measured, extrapolated" there).
UPDATE_BYTES = 33.0
LOOKUP_BYTES = 12.0

# Compression (an ASSUMPTION, the compressed format is not finished):
# zstd -19 in independent 4 KiB blocks reached 1.87-1.93x on Adji-Boto
# levels 24 and 27, entropy growing with the level
# (results/compression-candidates.md, Adji-Boto table, lines 67 and 76).
COMPRESSION_RATIO = 1.87

GIB = 1024 ** 3
TB = 1e12


def positions(level):
    return comb(level + PITS - 1, PITS - 1)


def per_core_ns(rows):
    """ns of core time a position: wall s x threads / positions."""
    return [(lv, s, wall * BUILD_THREADS / s * 1e9) for lv, s, wall in rows]


def fit_power_law(points):
    """Least squares of ln(ns) = a + b ln(positions)."""
    xs = [math.log(s) for _, s, _ in points]
    ys = [math.log(t) for _, _, t in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    return a, b


def fmt_si(x):
    for unit, div in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.2f} {unit}"
    return f"{x:.0f}"


def fmt_bytes(b):
    for unit, div in (("TiB", 1024 ** 4), ("GiB", GIB), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if b >= div:
            return f"{b / div:.1f} {unit}"
    return f"{b:.0f} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-level", type=int, default=100, help="highest level (seeds on the board), default 100")
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--ram-gib", type=float, default=256.0, help="RAM per node, GiB")
    ap.add_argument("--cores", type=int, default=64, help="cores per node")
    ap.add_argument("--fit-from", type=int, default=30, help="lowest measured level of the rate fit (30-41)")
    ap.add_argument("--overhead", type=float, default=DIST_OVERHEAD, help="distributed CPU overhead factor")
    ap.add_argument("--ooc-factor", type=float, default=None,
                    help="out-of-core / in-memory factor (default: the largest measured, level 44)")
    ap.add_argument("--net-gbs", type=float, default=10.0,
                    help="ASSUMED network GB/s per node for the transfer-time column (distributed.md §4 assumes 10)")
    ap.add_argument("--work-bytes", type=float, default=WORK_BYTES,
                    help=f"working bytes a position of a rank's part (default {WORK_BYTES})")
    ap.add_argument("--work-bytes-wide", type=float, default=WORK_BYTES_WIDE,
                    help=f"the same with 128-bit boards (default {WORK_BYTES_WIDE})")
    ap.add_argument("--show", default="", help="comma-separated levels to print rows for (default: every level)")
    args = ap.parse_args()

    N, C = args.nodes, args.cores
    usable = args.ram_gib * GIB * BUDGET_GIB / AVAILABLE_GIB

    out = []
    p = out.append

    # --- checks of the inputs -------------------------------------------
    p("## Inputs and checks (from results/, see the constants in scripts/cluster-projection.py)\n")
    for lv, s, *_ in IN_MEMORY_ROWS + OUT_OF_CORE_ROWS:
        assert positions(lv) == s, (lv, s, positions(lv))
    p(f"- C(n+9, 9) equals the measured entry count of every level 30-44 in "
      f"`results/runs/tables-adjiboto-44-build.log` (checked: 15 of 15).")
    assert L41_FILE_BYTES == positions(41) + HEADER_BYTES
    total100 = sum(positions(n) for n in range(101))
    assert total100 == comb(110, 10)
    p(f"- Levels 0-100: sum C(n+9, 9) = C(110, 10) = {total100:,} = {total100:.2e} positions: "
      f"the issue's 4.7e13 is every main-phase board of 0-100 seeds in the pits "
      f"(reachable or not; no opening-phase positions). Level 100 alone: {positions(100):,}.")
    p(f"- Levels 0-60: {sum(positions(n) for n in range(61)):,} positions; 0-44 (built): "
      f"{sum(positions(n) for n in range(45)):,}.")
    work_b = PLAN_L41_WORKING_GIB * GIB / PLAN_L41_POSITIONS
    scratch_b = PLAN_L44_SCRATCH_GIB * GIB / PLAN_L44_POSITIONS
    p(f"- Working memory a position, level-41 plan: {PLAN_L41_WORKING_GIB} GiB / {PLAN_L41_POSITIONS:,} = "
      f"{work_b:.2f} B in memory (fast mode); a rank's part {args.work_bytes} B, {args.work_bytes_wide} B with 128-bit boards from level {WIDE_FROM_LEVEL} "
      f"(distributed.md used 4.5 and 5.0 before the 2-byte builder).")
    p(f"- Out-of-core scratch cells, level-44 plan: {PLAN_L44_SCRATCH_GIB} GiB / {PLAN_L44_POSITIONS:,} = "
      f"{scratch_b:.2f} B a position; update records {L44_UPDATES_GIB * GIB / PLAN_L44_POSITIONS:.1f} B a position "
      f"({L44_UPDATES_SPILLED_GIB} of {L44_UPDATES_GIB} GiB spilled to disk at level 44).")

    # --- rates ----------------------------------------------------------
    rows = per_core_ns(IN_MEMORY_ROWS)
    fit_rows = [r for r in rows if r[0] >= args.fit_from]
    a, b = fit_power_law(fit_rows)
    flat_ns = rows[-1][2]  # level 41, the largest in-memory level
    p("\n### In-memory rate, measured (2 threads, core-s = wall s x 2)\n")
    p("| level | positions | wall s | ns of core time a position | fit ns |")
    p("|---:|---:|---:|---:|---:|")
    for (lv, s, wall), (_, _, ns) in zip(IN_MEMORY_ROWS, rows):
        mark = "" if lv >= args.fit_from else " (not in fit)"
        p(f"| {lv}{mark} | {s:,} | {wall:.3f} | {ns:.1f} | {math.exp(a + b * math.log(s)):.1f} |")
    p(f"\nFit over levels {args.fit_from}-41: ns = exp({a:.4f}) x positions^{b:.4f} "
      f"(core time a position grows as positions^{b:.3f}: the sweep's random accesses to the cells). "
      f"Flat rate: level 41's {flat_ns:.1f} ns a position.")

    ooc = []
    for lv, s, wall, cpu in OUT_OF_CORE_ROWS:
        inmem = IN_MEMORY_ROWS[-1][2] * s / IN_MEMORY_ROWS[-1][1]
        ooc.append((lv, s, wall, cpu, inmem, wall / inmem, cpu / s * 1e9))
    p("\n### Out of core, measured (levels 42-44, two shards each)\n")
    p("| level | wall s | process CPU s | level 41's in-memory wall scaled by positions, s | out-of-core ÷ in-memory | CPU ns a position |")
    p("|---:|---:|---:|---:|---:|---:|")
    for lv, s, wall, cpu, inmem, ratio, ns in ooc:
        p(f"| {lv} | {wall:.1f} | {cpu:.1f} | {inmem:.1f} | {ratio:.2f} | {ns:.0f} |")
    ooc_factor = args.ooc_factor if args.ooc_factor is not None else max(r[5] for r in ooc)
    p(f"\n(results/tables.md: \"2.5, 3.1 and 4.0 times\".) Factor used for a level that does not fit a node: "
      f"{ooc_factor:.2f}.")

    # --- projection per level -------------------------------------------
    show = set(int(x) for x in args.show.split(",") if x.strip()) if args.show else None
    p(f"\n## Projection: Adji-Boto levels 0-{args.max_level} on {N} nodes x {C} cores, "
      f"{args.ram_gib:g} GiB RAM a node ({usable / GIB:.0f} GiB usable at 21/23)\n")
    p("All figures below are projections. RAM a node = working memory (cells and frontiers) of the node's "
      "1/N of the level + the node's 1/N of every lower level (mapped for capture lookups). "
      "A level whose need passes the usable RAM is costed out of core.\n")
    p("| level | positions | raw bytes | disk a node (all levels ≤ n, raw) | RAM need a node | mode | "
      "core-h flat | core-h fit | node-h flat | node-h fit | network a node |")
    p("|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    lower = 0
    tot = dict(core_flat=0.0, core_fit=0.0, net=0.0)
    worst_need = 0.0
    ooc_levels = []
    for n in range(args.max_level + 1):
        s = positions(n)
        raw = s + HEADER_BYTES
        wb = args.work_bytes_wide if n >= WIDE_FROM_LEVEL else args.work_bytes
        need = wb * s / N + lower / N
        worst_need = max(worst_need, need)
        fits = need <= usable
        mode = "in memory" if fits else "out of core"
        if not fits:
            ooc_levels.append(n)
        factor = args.overhead * (WIDE_FACTOR if n >= WIDE_FROM_LEVEL else 1.0) * (1.0 if fits else ooc_factor)
        fit_ns = math.exp(a + b * math.log(s)) if s > 1 else flat_ns
        core_flat = s * flat_ns * 1e-9 * factor / 3600
        core_fit = s * max(fit_ns, 0) * 1e-9 * factor / 3600
        net = s * (UPDATE_BYTES + LOOKUP_BYTES) * (N * C - 1) / (N * C) / N
        tot["core_flat"] += core_flat
        tot["core_fit"] += core_fit
        tot["net"] += net
        lower += raw
        if show is None or n in show or n == args.max_level:
            p(f"| {n} | {s:,} | {fmt_bytes(raw)} | {fmt_bytes(lower / N)} | {fmt_bytes(need)} | {mode} | "
              f"{core_flat:,.1f} | {core_fit:,.1f} | {core_flat / C:,.2f} | {core_fit / C:,.2f} | {fmt_bytes(net)} |")
    total_pos = sum(positions(n) for n in range(args.max_level + 1))
    p(f"| **0-{args.max_level}** | **{total_pos:,}** | **{fmt_bytes(lower)}** | **{fmt_bytes(lower / N)}** | "
      f"max **{fmt_bytes(worst_need)}** | {len(ooc_levels)} out of core | **{tot['core_flat']:,.0f}** | "
      f"**{tot['core_fit']:,.0f}** | **{tot['core_flat'] / C:,.1f}** | **{tot['core_fit'] / C:,.1f}** | "
      f"**{fmt_bytes(tot['net'])}** |")

    top = positions(args.max_level)
    p("\n### Headline (projection)\n")
    p(f"- Positions: {total_pos:,} ({total_pos:.2e}); raw tables {lower / TB:.2f} TB, "
      f"{lower / N / GIB:,.0f} GiB a node on {N} nodes; compressed at an ASSUMED {COMPRESSION_RATIO}x "
      f"(not a finished format): {lower / COMPRESSION_RATIO / N / GIB:,.0f} GiB a node.")
    p(f"- Scratch disk a node if the top level is built out of core: cells {fmt_bytes(scratch_b * top / N)} "
      f"({scratch_b:.2f} B a position) plus update records up to {fmt_bytes(L44_UPDATES_GIB * GIB / PLAN_L44_POSITIONS * top / N)} "
      f"(level 44's {L44_UPDATES_GIB * GIB / PLAN_L44_POSITIONS:.1f} B a position, if all spilled).")
    p(f"- RAM a node: largest need {fmt_bytes(worst_need)} against {usable / GIB:.0f} GiB usable; "
      f"levels out of core: {('%d-%d' % (ooc_levels[0], ooc_levels[-1])) if ooc_levels else 'none'}.")
    p(f"- Core-hours: {tot['core_flat']:,.1f} (flat rate) to {tot['core_fit']:,.1f} (rate fit); node-hours "
      f"{tot['core_flat'] / C:,.2f} to {tot['core_fit'] / C:,.2f}; wall {tot['core_flat'] / C / N * 60:,.1f}-"
      f"{tot['core_fit'] / C / N * 60:,.1f} min on {N} nodes if the work splits evenly (no latency, no I/O wait).")
    lo_ov, hi_ov = DIST_OVERHEAD_RANGE
    p(f"- With the distributed overhead at its measured range {lo_ov}-{hi_ov} instead of {args.overhead}: "
      f"×{lo_ov / args.overhead:.2f} to ×{hi_ov / args.overhead:.2f}.")
    p(f"- Network a node in all: {fmt_bytes(tot['net'])}; at an ASSUMED {args.net_gbs:g} GB/s: "
      f"{tot['net'] / (args.net_gbs * 1e9) / 3600:.1f} h.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
