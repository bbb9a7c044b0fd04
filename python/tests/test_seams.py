"""Where the Python layer hands over to the library (issue 37, items 9-11):
a Solver shared across rules, model files read with bounds, and batches of
boards that must be seed counts. Each test failed before its fix."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import numpy as np
import pytest

import adji

# Its value differs between Adjito's default reading and slam-forbidden.
SLAM = "0,0,0,1,0,1/0,0,1,0,1,2 B 20-22"

RULE_SETS = {"adjito": ["default", "must-reach", "slam-forbidden"], "adjiboto": ["default", "valdez"]}


def same_solve(a: dict, b: dict) -> bool:
    keys = ("value", "exact", "lower", "upper", "loop_sensitive", "moves", "wdl", "final_score")
    return {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}


def fresh(pos: adji.Position, loop: str) -> dict:
    return adji.solve(pos, loop=loop, threads=1, hash_mib=1)


# --- item 9: one Solver, any rules --------------------------------------


def test_a_solver_gives_the_default_value_after_a_slam_forbidden_solve():
    s = adji.Solver(threads=1, hash_mib=1)
    slam = s.solve(SLAM, rules="slam-forbidden")
    default = s.solve(SLAM)
    want = fresh(adji.Position(SLAM), "start")
    assert not same_solve(slam, want), "the readings differ on this position"
    assert same_solve(default, want), (default, want)


def twin_positions(rng: random.Random, n: int):
    """An Adji-Boto position and an Adjito one with the same board relative
    to the mover (Adjito's pits 11 and 12 empty): the same table key but for
    the game."""
    board = [0] * 10
    for _ in range(n):
        board[rng.randrange(10)] += 1
    boto = adji.Position(
        f"{','.join(map(str, board[:5]))}/{','.join(map(str, board[5:]))} 1 {50 - n // 2}-{50 - n + n // 2} main",
        "adjiboto",
    )
    rel = boto.board + [0, 0]  # the mover's row first, in sowing order
    rest = 48 - n
    ito = adji.Position(
        f"{','.join(map(str, rel[6:]))}/{','.join(map(str, rel[:6]))} B {rest // 2}-{rest - rest // 2}",
        "adjito",
    )
    assert ito.board[:10] == boto.board and ito.side == 0
    return boto, ito


def test_any_sequence_of_solves_on_one_solver_gives_the_values_of_fresh_solves():
    """A property over random sequences: games, rule sets and loop rules
    mixed on one Solver, each solve compared with a fresh one."""
    rng = random.Random(37)
    pool = []
    for _ in range(6):
        boto, ito = twin_positions(rng, rng.randint(5, 9))
        pool += [boto, ito]
    want = {}
    for trial in range(3):
        s = adji.Solver(threads=1, hash_mib=1)
        for _ in range(60):
            p = rng.choice(pool)
            rules = rng.choice(RULE_SETS[p.game])
            loop = rng.choice(["start", "even"])
            q = adji.Position(p.notation, p.game, rules)
            k = (q.notation, q.game, rules, loop)
            if k not in want:
                want[k] = fresh(q, loop)
            got = s.solve(q, loop=loop)
            assert same_solve(got, want[k]), (k, got, want[k])
    # the rules do give these boards other values: the property can fail
    by_board = {}
    for (text, game, rules, loop), r in want.items():
        by_board.setdefault((text, game), set()).add((r["value"], str(r["moves"])))
    differ = sum(len(v) > 1 for v in by_board.values())
    assert differ >= 3, by_board


def test_a_solver_names_its_loop_rule_and_refuses_a_bad_one():
    s = adji.Solver(loop="even", threads=1, hash_mib=1)
    assert s.loop == "even"
    assert same_solve(s.solve(SLAM), fresh(adji.Position(SLAM), "even"))
    with pytest.raises(adji.AdjiError, match="loop: expected `start` or `even`"):
        s.solve(SLAM, loop="odd")


# --- item 10: model files are read with bounds --------------------------

ANALYSE = """
import sys, adji
try:
    adji.analyse("start", eval=sys.argv[1], nodes=100)
except adji.AdjiError as e:
    print("AdjiError:", e)
    sys.exit(0)
sys.exit(3)
"""


def analyse_with_model(path: str) -> tuple[subprocess.CompletedProcess, float]:
    """`adji.analyse(eval=path)` in a child with 2 GiB of address space at
    most (so an unbounded read fails instead of swapping the machine) and
    30 s (so a read that blocks fails instead of hanging the suite)."""

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    t = time.monotonic()
    try:
        r = subprocess.run([sys.executable, "-c", ANALYSE, path], capture_output=True,
                           text=True, timeout=30, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"adji.analyse(eval={path!r}) still running after 30 s")
    return r, time.monotonic() - t


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_analyse_refuses_a_fifo_as_its_model_at_once(tmp_path):
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    r, secs = analyse_with_model(str(fifo))
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert "AdjiError:" in r.stdout and "not a regular file (a FIFO)" in r.stdout, r.stdout
    assert secs < 20


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_analyse_refuses_dev_zero_as_its_model_at_once():
    r, secs = analyse_with_model("/dev/zero")
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    assert "AdjiError:" in r.stdout and "not a regular file (a device)" in r.stdout, r.stdout
    assert secs < 20


def test_analyse_refuses_an_oversized_model_file(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((16 << 20) + 1)  # sparse: no disk used
    with pytest.raises(adji.AdjiError, match="more than the 16777216 this file may have"):
        adji.analyse("start", eval=str(big), nodes=100)
    with pytest.raises(adji.AdjiError, match="eval .*missing.json"):
        adji.analyse("start", eval=str(tmp_path / "missing.json"), nodes=100)


# --- item 11: boards are seed counts, never cast -------------------------


def bad_boards(game: str, dtype, at=None, value=None) -> np.ndarray:
    """Three empty boards of `game` as `dtype`, with `value` at `at`."""
    a = np.zeros((3, 12 if game == "adjito" else 10), dtype=dtype)
    if at is not None:
        a[at] = value
    return a


@pytest.mark.parametrize(
    "dtype,at,value,message",
    [
        (float, (1, 3), np.nan, r"boards\[1, 3\] is nan: expected an integer array, found dtype float64"),
        (float, (2, 0), 2.9, r"boards\[2, 0\] is 2.9: expected an integer array"),
        (float, None, None, r"boards\[0, 0\] is 0.0: expected an integer array, found dtype float64"),
        (np.float32, (0, 5), np.inf, r"boards\[0, 5\] is inf: .*float32"),
        (bool, None, None, r"boards\[0, 0\] is False: expected an integer array, found dtype bool"),
        (np.int64, (1, 2), -1, r"boards\[1, 2\] is -1: expected a seed count from 0 to 127"),
        (np.int16, (2, 7), 128, r"boards\[2, 7\] is 128: expected a seed count from 0 to 127"),
        (np.uint16, (0, 1), 256, r"boards\[0, 1\] is 256: expected a seed count"),
        (object, (1, 1), "3", r"boards\[0, 0\] is 0: expected an integer array, found dtype object"),
    ],
)
def test_probe_boards_refuses_anything_but_seed_counts(tables, dtype, at, value, message):
    for game, t in tables.items():
        with pytest.raises(adji.AdjiError, match=message):
            adji.probe_boards(t, bad_boards(game, dtype, at, value))


def test_probe_boards_refuses_what_numpy_cannot_make_an_array_of(tables):
    t = tables["adjito"]
    with pytest.raises(adji.AdjiError, match=r"boards: expected an integer array"):
        adji.probe_boards(t, [[0] * 12, [0] * 11])
    with pytest.raises(adji.AdjiError, match=r"boards\[0, 0\] is '0': .*dtype <U"):
        adji.probe_boards(t, [["0"] * 12])


def test_probe_boards_takes_every_integer_dtype(tables):
    t = tables["adjito"]
    a = np.array([[0, 1, 0, 2, 0, 0, 1, 0, 3, 0, 1, 0]])
    want = adji.probe_boards(t, a)
    for dt in (np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64):
        got = adji.probe_boards(t, a.astype(dt))
        assert all((x == y).all() for x, y in zip(got, want)), dt


def test_the_raw_batch_refuses_a_byte_above_127(tables):
    t = tables["adjiboto"]
    with pytest.raises(adji.AdjiError, match=r"boards\[1, 4\] is 200: expected a seed count from 0 to 127"):
        t._probe_boards(bytes(10) + bytes([0, 0, 0, 0, 200]) + bytes(5))
