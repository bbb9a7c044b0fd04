"""solve, analyse and the endgame tables against the command line."""

from __future__ import annotations

import filecmp
import random

import numpy as np
import pytest

import adji
from conftest import TABLE_LEVELS, random_positions

GAMES = ["adjito", "adjiboto"]

# Fields that measure the machine rather than the answer.
TIMING = {"time_ms", "nps"}


def strip(report: dict) -> dict:
    out = {k: v for k, v in report.items() if k not in TIMING}
    if "iterations" in out:
        out["iterations"] = [
            {k: v for k, v in i.items() if k not in TIMING} for i in out["iterations"]
        ]
    return out


def positions_at(game: str, levels, count: int, seed: int):
    """Main-phase positions of the given levels, reached by random play."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        d = adji.Driver(game=game)
        while not d.is_over:
            p = d.position
            if p.level in levels and not p.in_opening and not p.game_over:
                out.append(p)
                break
            d.play(rng.choice(d.legal_moves()))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_solve_matches_the_command_line(run, game):
    ps = positions_at(game, range(14, 19), 4, seed=1)
    for p in ps:
        want = run.json("solve", "--game", game, "--position", p.notation,
                        "--no-tables", "--threads", "1")
        got = adji.solve(p, threads=1)
        assert strip(got) == strip(want)
        assert got["exact"] and got["value"] is not None


@pytest.mark.parametrize("game", GAMES)
def test_solve_with_tables_and_limits_matches_the_command_line(run, tables, tables_dir, game):
    ps = positions_at(game, range(TABLE_LEVELS[game] + 2, TABLE_LEVELS[game] + 8), 3, seed=2)
    solver = adji.Solver(tables=tables[game], threads=1, hash_mib=4)
    for p in ps:
        want = run.json("solve", "--game", game, "--position", p.notation,
                        "--tables", str(tables_dir), "--threads", "1")
        got = adji.solve(p, tables=tables[game], threads=1)
        assert strip(got) == strip(want)
        # a solver that keeps its table between positions: the same values
        again = solver.solve(p)
        for k in ("value", "lower", "upper", "best_moves", "loop_sensitive", "moves", "wdl"):
            assert again[k] == want[k], k
        # under a node limit the stopping point may move by a few nodes:
        # the same report shape, and bounds that hold the exact values
        want_lim = run.json("solve", "--game", game, "--position", p.notation,
                            "--tables", str(tables_dir), "--threads", "1", "--nodes", "300")
        lim = adji.solve(p, tables=tables[game], threads=1, nodes=300)
        assert lim.keys() == want_lim.keys()
        exact = {m["move"]: m["value"] for m in got["moves"]}
        for r in (lim, want_lim):
            assert r["lower"] <= got["value"] <= r["upper"]
            assert (r["value"] is None) == (not r["exact"])
            for m in r["moves"]:
                assert m["lower"] <= exact[m["move"]] <= m["upper"]


def test_solve_under_a_limit_gives_bounds_holding_the_value():
    p = adji.Position("1,0,0,0,0,1/0,1,0,2,7,8 B 5-23")
    exact = adji.solve(p, threads=1)["value"]
    r = adji.solve(p, threads=1, nodes=50)
    assert r["lower"] <= exact <= r["upper"]
    r2 = adji.solve(p, threads=2, time=30)
    assert r2["value"] == exact


def test_solve_under_loop_even_matches_the_command_line(run):
    p = "0,0,0,1,0,2/1,0,2,0,1,0 A 20-21"
    want = run.json("solve", "--position", p, "--no-tables", "--loop", "even", "--threads", "1")
    assert strip(adji.solve(p, loop="even", threads=1)) == strip(want)


@pytest.mark.parametrize("game", GAMES)
def test_analyse_matches_the_command_line(run, tables, tables_dir, game):
    # a node limit makes the engine deterministic
    for p in [adji.Position.start(game)] + positions_at(game, range(20, 30), 2, seed=3):
        want = run.json("analyse", "--game", game, "--position", p.notation,
                        "--tables", str(tables_dir), "--nodes", "4000")
        got = adji.analyse(p, tables=tables[game], nodes=4000)
        assert strip(got) == strip(want)
        # an estimate is never a value
        assert (got["value"] is not None) == (got["lower"] == got["upper"])


@pytest.mark.parametrize("game", GAMES)
def test_python_built_tables_equal_the_command_lines(run, tables_dir, tmp_path, game):
    top = TABLE_LEVELS[game]
    r = run.run("tables", "build", "--game", game, "--max-seeds", str(top),
                "--dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    for n in range(top + 1):
        name = f"{game}-start-{n:03}.adjt"
        assert filecmp.cmp(tables_dir / name, tmp_path / name, shallow=False), name


@pytest.mark.parametrize("game", GAMES)
def test_probe_matches_the_command_line(run, tables, tables_dir, game):
    t = tables[game]
    assert t.covered == TABLE_LEVELS[game] + 1 and t.game == game and t.loop == "start"
    ps = positions_at(game, range(0, TABLE_LEVELS[game] + 1), 30, seed=4)
    f = tables_dir / f"probe-{game}.txt"
    f.write_text("\n".join(p.notation for p in ps) + "\n")
    want = run.json_lines("tables", "probe", "--game", game, "--dir", str(tables_dir),
                          "--positions-file", str(f))
    assert t.probe_many(ps) == want
    assert [t.probe(p) for p in ps] == want
    assert [t.value(p) for p in ps] == [w["value"] for w in want]
    # one position without stores, as the command line takes it
    board_only = " ".join(ps[0].notation.split()[:2] + ps[0].notation.split()[3:])
    assert t.probe(board_only) == want[0]


@pytest.mark.parametrize("game", GAMES)
def test_probe_boards_batches_equal_single_probes(tables, game):
    t = tables[game]
    ps = positions_at(game, range(0, TABLE_LEVELS[game] + 1), 300, seed=5)
    boards = np.array([p.board for p in ps], dtype=np.int64)
    v, lo, hi = adji.probe_boards(t, boards)
    assert v.dtype == np.int32 and v.shape == (len(ps),)
    for i, p in enumerate(ps):
        r = t.probe(p)
        assert (v[i], lo[i], hi[i]) == (r["value"], r["lo"], r["hi"])
    assert (lo <= v).all() and (v <= hi).all()
    # a big batch goes through the parallel path: same answers
    big = np.repeat(boards, 20, axis=0)
    bv, _, _ = t.probe_boards(big)
    assert (bv == np.repeat(v, 20)).all()


# How `adji` turns level files into another form every reader takes:
# (the command's arguments after --dir, the suffix of its files per level).
OTHER_FORMS = {
    "sharded": (("tables", "split", "--shards", "3"), ".shards.json"),
    "compressed": (("tables", "compress", "--block", "700"), ".adjz"),
}


@pytest.mark.parametrize("form", sorted(OTHER_FORMS))
@pytest.mark.parametrize("game", GAMES)
def test_other_forms_probe_as_the_level_files(run, tables, tmp_path, game, form):
    """Levels made by `adji tables build`, then split into 3 shards by
    `adji tables split` or compressed by `adji tables compress` (no level
    file left): Python reads them as the single files, probe for probe,
    and solves alike above them."""
    top = TABLE_LEVELS[game]
    single, other = tmp_path / "single", tmp_path / form
    r = run.run("tables", "build", "--game", game, "--max-seeds", str(top),
                "--dir", str(single))
    assert r.returncode == 0, r.stderr
    (cmd, sub, *extra), suffix = OTHER_FORMS[form]
    r = run.run(cmd, sub, "--game", game, "--dir", str(single), *extra, "--out", str(other))
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in other.iterdir())
    assert not [n for n in names if n.endswith(".adjt")], names
    assert len([n for n in names if n.endswith(suffix)]) == top + 1, names
    one, split = adji.Tables(str(single), game=game), adji.Tables(str(other), game=game)
    assert split.covered == one.covered == top + 1
    ps = positions_at(game, range(0, top + 1), 200, seed=9)
    want = one.probe_many(ps)
    assert split.probe_many(ps) == want
    assert [split.probe(p) for p in ps] == want
    boards = np.array([p.board for p in ps], dtype=np.int64)
    for a, b in zip(adji.probe_boards(one, boards), adji.probe_boards(split, boards)):
        assert (a == b).all()
    assert [split.stats(n) for n in range(top + 1)] == [one.stats(n) for n in range(top + 1)]
    # Mapped files are page cache; what a memory plan counts is apart.
    assert one.allocated_bytes == 0 and one.mapped_bytes > 0
    if form == "compressed":
        assert split.allocated_bytes > 0
    else:
        assert split.allocated_bytes == 0
    above = positions_at(game, [top + 2], 1, seed=10)[0]
    solve = [strip(adji.solve(above, tables=t, threads=1, nodes=200_000, game=game))
             for t in (one, split)]
    assert solve[0] == solve[1]


def test_probe_errors_carry_the_command_lines_message(run, tables, tables_dir):
    deep = "4,4,4,4,4,4/4,4,4,4,4,4 B"
    want = run.error("tables", "probe", "--dir", str(tables_dir), "--position", deep)
    with pytest.raises(adji.AdjiError) as e:
        tables["adjito"].probe(deep)
    assert want == f"--position: {e.value}"
    with pytest.raises(adji.AdjiError, match="board 1: level 48 is not built"):
        adji.probe_boards(tables["adjito"], np.array([[0] * 12, [4] * 12]))
    with pytest.raises(adji.AdjiError, match="shape"):
        adji.probe_boards(tables["adjito"], np.zeros((3, 10)))
    want = run.error("tables", "probe", "--dir", str(tables_dir), "--loop", "even",
                     "--position", "start")
    with pytest.raises(adji.AdjiError) as e:
        adji.Tables(str(tables_dir), loop="even")
    assert want.startswith(str(e.value))
    with pytest.raises(adji.AdjiError, match="tables were built with --loop start"):
        adji.solve("start", tables=tables["adjito"], loop="even", nodes=10)
    with pytest.raises(adji.AdjiError, match="tables are for adjito, not adjiboto"):
        adji.solve("start", game="adjiboto", tables=tables["adjito"], nodes=10)


def test_table_statistics_add_up(tables):
    for game, t in tables.items():
        for level in range(t.covered):
            s = t.stats(level)
            assert s["wins"] + s["draws"] + s["losses"] == s["positions"]
            assert sum(s["histogram"].values()) == s["positions"]


def test_build_reports_progress_and_keeps_levels(tmp_path):
    events = []
    r = adji.build_tables(str(tmp_path), 9, game="adjiboto", loop="even",
                          progress=events.append)
    assert [e["level"] for e in r] == list(range(10))
    kinds = {e["kind"] for e in events}
    assert {"start", "level"} <= kinds
    assert [e["level"]["level"] for e in events if e["kind"] == "level"] == list(range(10))
    again = adji.build_tables(str(tmp_path), 9, game="adjiboto", loop="even")
    assert all(e["skipped"] for e in again)
    t = adji.Tables(str(tmp_path), game="adjiboto", loop="even")
    assert t.loop == "even" and t.covered == 10


def test_a_failing_progress_callback_stops_the_build(tmp_path):
    def boom(event):
        if event["kind"] == "level" and event["level"]["level"] == 3:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        adji.build_tables(str(tmp_path), 12, progress=boom)
    # the levels written before the error are kept and check
    assert adji.Tables(str(tmp_path)).covered >= 3


def test_solve_and_analyse_refuse_tables_of_another_game_or_loop_rule(tables):
    """The exact search and the estimate check the tables in the one
    library function (adji::search::check_tables), with the same words."""
    start = "start"
    for f in (
        lambda **k: adji.solve(start, nodes=1000, **k),
        lambda **k: adji.analyse(start, nodes=1000, **k),
    ):
        with pytest.raises(adji.AdjiError, match="tables are for adjiboto, not adjito"):
            f(tables=tables["adjiboto"], game="adjito")
        with pytest.raises(adji.AdjiError, match="built with --loop start but the search uses --loop even"):
            f(tables=tables["adjito"], game="adjito", loop="even")
