"""OpenSpiel's MCTS against adji's AdjiBot, colours swapped, with the truth
where it is known.

    python3 examples/openspiel_match.py GAME TABLES_DIR OUT.jsonl [SIMS,SIMS,...] [OPENINGS]
    python3 examples/openspiel_match.py --summary OUT.jsonl [OUT.jsonl ...]

MCTS is `open_spiel.python.algorithms.mcts.MCTSBot` unmodified (UCT c = 1.4,
one random rollout per leaf, its solver on) on the game with the
win/draw/loss utility; AdjiBot has fixed budgets (tables, then a solve of
20,000 nodes, then the engine's estimate at 20,000 nodes). Each opening
(random plies from the start: 2 in Adjito, 4 in Adji-Boto's opening, seed
= its index) is played twice, MCTS first as player 0, then as player 1.

Every move of both sides is checked where the truth is known: the tables
cover the position, or `adji.solve` proves its value within 100,000 nodes.
A move is optimal when its exact value equals the position's (values as
docs/RULES.md §4 define them, the position taken as a stretch start).

One JSON line per game is appended to OUT; a rerun skips the games already
there (resumable).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import adji
import adji.openspiel as aos

TRUTH_NODES = 100_000
RANDOM_PLIES = {"adjito": 2, "adjiboto": 4}


def truth(pos: adji.Position, tables: adji.Tables):
    """(position value, {move: exact value}) or None when not known."""
    if pos.game_over:
        return None
    if not pos.in_opening and pos.level < tables.covered:
        r = tables.probe(pos)
        return r["value"], {m["move"]: m["value"] for m in r["moves"]}
    r = adji.solve(pos, tables=tables, threads=1, hash_mib=16, nodes=TRUTH_NODES)
    if not r["exact"]:
        return None
    # a move whose value stayed a bound is not known
    return r["value"], {m["move"]: m["value"] for m in r["moves"] if m["value"] is not None}


def play(game: str, tables: adji.Tables, sims: int, opening: int, mcts_player: int) -> dict:
    g = pyspiel.load_game(f"python_{game}", {"utility": "wdl"})
    s = g.new_initial_state()
    rng = random.Random(opening)
    for _ in range(RANDOM_PLIES[game]):
        s.apply_action(rng.choice(s.legal_actions()))
    start = s.position.notation
    rs = np.random.RandomState(1000 * opening + mcts_player)
    bots = {
        mcts_player: mcts.MCTSBot(g, uct_c=1.4, max_simulations=sims,
                                  evaluator=mcts.RandomRolloutEvaluator(1, rs),
                                  random_state=rs, solve=True),
        1 - mcts_player: aos.AdjiBot(g, 1 - mcts_player, tables=tables),
    }
    known = {"mcts": 0, "adjibot": 0}
    optimal = {"mcts": 0, "adjibot": 0}
    loss = {"mcts": 0, "adjibot": 0}
    seconds = {"mcts": 0.0, "adjibot": 0.0}
    moves = []
    while not s.is_terminal():
        p = s.current_player()
        who = "mcts" if p == mcts_player else "adjibot"
        t0 = time.perf_counter()
        a = bots[p].step(s)
        seconds[who] += time.perf_counter() - t0
        pos = s.position
        name = s.action_to_string(a)
        if len(s.legal_actions()) > 1:
            tr = truth(pos, tables)
            if tr is not None and name in tr[1]:
                known[who] += 1
                optimal[who] += tr[1][name] == tr[0]
                loss[who] += tr[0] - tr[1][name]
        moves.append(name)
        s.apply_action(a)
    score = s.driver.score
    margin = score[mcts_player] - score[1 - mcts_player]
    return dict(game=game, sims=sims, opening=opening, mcts_player=mcts_player, start=start,
                moves=" ".join(moves), end=s.driver.end_reason, score=list(score),
                mcts_margin=margin, known=known, optimal=optimal, seeds_lost=loss,
                seconds={k: round(v, 2) for k, v in seconds.items()})


def run(game: str, tdir: str, out: Path, sims_list, openings: int) -> None:
    tables = adji.Tables(tdir, game=game)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["sims"], r["opening"], r["mcts_player"]))
    for sims in sims_list:
        for opening in range(openings):
            for mp in (0, 1):
                if (sims, opening, mp) in done:
                    continue
                r = play(game, tables, sims, opening, mp)
                with out.open("a") as f:
                    f.write(json.dumps(r) + "\n")
                print(game, sims, opening, mp, r["mcts_margin"], flush=True)


def load_games(path) -> list:
    """The games of a results file, once each (a rerun that overlapped an
    earlier one may have written a game twice: the first copy counts)."""
    seen, rows = set(), []
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        key = (r["game"], r["sims"], r["opening"], r["mcts_player"])
        if key not in seen:
            seen.add(key)
            rows.append(r)
    return rows


def summary(files) -> None:
    rows = []
    for f in files:
        rows += load_games(f)
    print("| game | MCTS simulations | games | MCTS won / drawn / lost | MCTS mean margin (seeds) "
          "| MCTS moves optimal (known) | AdjiBot moves optimal (known) | seeds lost per known move, MCTS / AdjiBot |")
    print("|---|---:|---:|---|---:|---|---|---|")
    keys = sorted({(r["game"], r["sims"]) for r in rows})
    for game, sims in keys:
        rs = [r for r in rows if (r["game"], r["sims"]) == (game, sims)]
        m = [r["mcts_margin"] for r in rs]
        w = sum(x > 0 for x in m)
        d = sum(x == 0 for x in m)
        k = {s: sum(r["known"][s] for r in rs) for s in ("mcts", "adjibot")}
        o = {s: sum(r["optimal"][s] for r in rs) for s in ("mcts", "adjibot")}
        lost = {s: sum(r["seeds_lost"][s] for r in rs) for s in ("mcts", "adjibot")}
        pct = lambda s: f"{100 * o[s] / k[s]:.0f} % ({o[s]}/{k[s]})" if k[s] else "–"  # noqa: E731
        per = lambda s: f"{lost[s] / k[s]:.2f}" if k[s] else "–"  # noqa: E731
        print(f"| {game} | {sims} | {len(rs)} | {w} / {d} / {len(rs) - w - d} | {np.mean(m):+.2f} "
              f"| {pct('mcts')} | {pct('adjibot')} | {per('mcts')} / {per('adjibot')} |")


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2:])
    else:
        sims = [int(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "30,100,300").split(",")]
        openings = int(sys.argv[5]) if len(sys.argv) > 5 else 8
        run(sys.argv[1], sys.argv[2], Path(sys.argv[3]), sims, openings)
