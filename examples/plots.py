"""PNG plots for results/: won/drawn/lost positions per level, value
distributions, and OpenSpiel's MCTS against exact values.

    python3 examples/plots.py [--tables DIR]

Table statistics come from `results/tables-adjito-stats.md` and
`results/tables-adjiboto-stats.md` (written by `adji tables stats`, the
library's `tables::stats`, on the real tables: Adjito 0-28, Adji-Boto
0-40), or with `--tables DIR` from the tables in DIR through the Python
package (`adji.Tables(...).stats(level)`). The MCTS chart reads
`results/runs/python-mcts-adjito.jsonl` and `results/runs/python-mcts-adjiboto.jsonl`
(`examples/openspiel_match.py`). Writes `results/python-wdl-per-level.png`,
`results/python-value-distribution.png` and `results/python-mcts-vs-exact.png`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
GAMES = {"adjito": "Adjito", "adjiboto": "Adji-Boto"}


def stats_from_markdown(game: str) -> list:
    """Per level: dict(level, positions, wins, draws, losses, histogram)."""
    text = (RESULTS / f"tables-{game}-stats.md").read_text()
    levels = {}
    for m in re.finditer(r"^\| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M):
        n, pos, w, d, l, _ = map(int, m.groups())
        levels[n] = dict(level=n, positions=pos, wins=w, draws=d, losses=l, histogram={})
    for m in re.finditer(r"^- level (\d+): (.*)$", text, re.M):
        n = int(m.group(1))
        for v, c in re.findall(r"([+-]?\d+): (\d+)", m.group(2)):
            levels[n]["histogram"][int(v)] = int(c)
    return [levels[n] for n in sorted(levels)]


def stats_from_tables(game: str, tdir: str) -> list:
    import adji

    t = adji.Tables(tdir, game=game)
    out = []
    for n in range(t.covered):
        s = t.stats(n)
        s["histogram"] = {int(k): v for k, v in s["histogram"].items()}
        out.append(s)
    return out


def plot_wdl(stats: dict, source: str) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, (game, st) in zip(axes, stats.items()):
        lv = np.array([s["level"] for s in st])
        pos = np.array([s["positions"] for s in st], dtype=float)
        w, d, l = (np.array([s[k] for s in st]) / pos for k in ("wins", "draws", "losses"))
        ax.bar(lv, w, color="#2e7d32", label="won for the mover")
        ax.bar(lv, d, bottom=w, color="#9e9e9e", label="drawn")
        ax.bar(lv, l, bottom=w + d, color="#c62828", label="lost")
        ax.set_title(f"{GAMES[game]}: every position of each level")
        ax.set_xlabel("level (seeds on the board)")
        ax.set_ylabel("share of positions")
        ax.set_ylim(0, 1)
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"Exact values for the player to move (endgame tables, loop rule start; {source})", fontsize=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "python-wdl-per-level.png", dpi=110)
    plt.close(fig)


def plot_values(stats: dict, source: str) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for ax, (game, st) in zip(axes, stats.items()):
        top = max(s["level"] for s in st)
        img = np.full((2 * top + 1, top + 1), np.nan)
        for s in st:
            total = sum(s["histogram"].values())
            for v, c in s["histogram"].items():
                img[v + top, s["level"]] = c / total
        im = ax.imshow(img, origin="lower", aspect="auto", cmap="viridis",
                       extent=(-0.5, top + 0.5, -top - 0.5, top + 0.5),
                       norm=matplotlib.colors.LogNorm(vmin=1e-5, vmax=1))
        ax.set_title(f"{GAMES[game]}: value distribution per level")
        ax.set_xlabel("level (seeds on the board)")
        ax.set_ylabel("value (mover minus opponent)")
        fig.colorbar(im, ax=ax, label="share of the level's positions")
    fig.suptitle(f"Exact values of every position (loop rule start; {source})", fontsize=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "python-value-distribution.png", dpi=110)
    plt.close(fig)


def plot_mcts() -> None:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for game, marker, color in (("adjito", "o", "#1565c0"), ("adjiboto", "s", "#ef6c00")):
        f = RESULTS / "runs" / f"python-mcts-{game}.jsonl"
        if not f.exists():
            continue
        seen, rows = set(), []
        for x in f.read_text().splitlines():  # a game written twice counts once
            r = json.loads(x)
            if (r["sims"], r["opening"], r["mcts_player"]) not in seen:
                seen.add((r["sims"], r["opening"], r["mcts_player"]))
                rows.append(r)
        sims = sorted({r["sims"] for r in rows})
        opt, bot, margin = [], [], []
        for s in sims:
            rs = [r for r in rows if r["sims"] == s]
            k = sum(r["known"]["mcts"] for r in rs)
            opt.append(100 * sum(r["optimal"]["mcts"] for r in rs) / max(k, 1))
            kb = sum(r["known"]["adjibot"] for r in rs)
            bot.append(100 * sum(r["optimal"]["adjibot"] for r in rs) / max(kb, 1))
            margin.append(np.mean([r["mcts_margin"] for r in rs]))
        axes[0].plot(sims, opt, marker=marker, color=color, label=f"{GAMES[game]}: MCTS")
        axes[0].plot(sims, bot, marker=marker, color=color, linestyle="--", label=f"{GAMES[game]}: AdjiBot")
        axes[1].plot(sims, margin, marker=marker, color=color, label=GAMES[game])
    axes[0].set_xscale("log")
    axes[0].set_xlabel("MCTS simulations per move")
    axes[0].set_ylabel("moves optimal where the value is known (%)")
    axes[0].set_ylim(0, 102)
    axes[0].legend(fontsize=8)
    axes[0].set_title("Optimal moves (tables or a proven solve)")
    axes[1].axhline(0, color="grey", lw=0.8)
    axes[1].set_xscale("log")
    axes[1].set_xlabel("MCTS simulations per move")
    axes[1].set_ylabel("MCTS final margin against AdjiBot (seeds)")
    axes[1].legend(fontsize=8)
    axes[1].set_title("Mean final margin, colours swapped")
    fig.suptitle("OpenSpiel MCTS (random rollouts) against adji's AdjiBot (20,000-node budgets)", fontsize=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "python-mcts-vs-exact.png", dpi=110)
    plt.close(fig)


def main() -> None:
    if "--tables" in sys.argv:
        tdir = sys.argv[sys.argv.index("--tables") + 1]
        stats = {g: stats_from_tables(g, tdir) for g in GAMES}
        source = f"tables in {tdir}"
    else:
        stats = {g: stats_from_markdown(g) for g in GAMES}
        source = "results/tables-*-stats.md"
    plot_wdl(stats, source)
    plot_values(stats, source)
    plot_mcts()


if __name__ == "__main__":
    main()
