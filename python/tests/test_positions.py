"""Positions, moves, perft and replay against the command line."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import adji
from conftest import random_positions

GAMES = ["adjito", "adjiboto"]


@pytest.mark.parametrize("game", GAMES)
def test_moves_match_the_command_line(run, game):
    for pos in random_positions(game, 25, seed=7, plies=(0, 120)):
        want = run.json("moves", "--game", game, "--position", pos.notation)
        assert pos.moves() == want
        # the same moves one by one: names, actions, played positions
        names = [m["move"] for m in want["moves"]]
        assert pos.legal_moves() == names
        assert [pos.action_to_move(a) for a in pos.legal_actions()] == names
        for m in want["moves"]:
            after = pos.play(m["move"])
            assert after.notation == m["position"]
            assert pos.play(pos.move_to_action(m["move"])) == after
            assert pos.captures(m["move"]) == m["captured"]
        assert pos.game_over == (want["game_over"] is not None)
        if want["game_over"] is not None:
            assert pos.end_reason == want["game_over"]["reason"]
            split = want["game_over"]["split"]
            names = ("B", "A") if game == "adjito" else ("0", "1")
            assert pos.final_score() == (split[names[0]], split[names[1]])


@pytest.mark.parametrize("game", GAMES)
def test_notation_round_trip_and_fields(game):
    for pos in random_positions(game, 40, seed=3):
        again = adji.Position(pos.notation, game)
        assert again == pos and hash(again) == hash(pos)
        assert pickle.loads(pickle.dumps(pos)) == pos
        assert pos.level == sum(pos.pits) == sum(pos.board)
        total = 48 if game == "adjito" else 100
        assert pos.level + sum(pos.stores) == total
        assert pos.mover == ("B", "A", "0", "1")[pos.side + (2 if game == "adjiboto" else 0)]
        assert pos.notation.split()[1] == pos.mover


def test_start_positions():
    assert adji.Position().notation == "4,4,4,4,4,4/4,4,4,4,4,4 B 0-0"
    s = adji.Position.start("adjiboto")
    assert s.notation == "10,10,10,10,10/10,10,10,10,10 0 0-0 opening:"
    assert s.in_opening and s.phase == "opening:" and s.side == 0
    assert adji.num_actions("adjito") == 12 and adji.num_actions("adjiboto") == 11


@pytest.mark.parametrize("game,depth", [("adjito", 5), ("adjiboto", 6)])
def test_perft_matches_the_command_line(run, game, depth):
    for pos in [adji.Position.start(game)] + random_positions(game, 3, seed=11, plies=(20, 40)):
        want = run.json("perft", "--game", game, "--position", pos.notation,
                        "--depth", str(depth), "--divide")
        assert adji.perft(pos, depth, divide=True) == want
        assert adji.perft(pos, depth) == want["nodes"]


def test_perft_figures_of_the_rules_section():
    # docs/RULES.md §6 (and tests/data/*.perft)
    assert [adji.perft("start", d) for d in range(1, 6)] == [6, 34, 173, 875, 4430]
    boto = adji.Position.start("adjiboto")
    assert [adji.perft(boto, d) for d in range(1, 6)] == [5, 25, 100, 400, 1200]


@pytest.mark.parametrize("game", GAMES)
def test_replay_matches_the_command_line(run, game):
    rng = random.Random(5)
    for _ in range(6):
        d = adji.Driver(game=game)
        while not d.is_over:
            d.play(rng.choice(d.legal_moves()))
        line = " ".join(d.history)
        want = run.json("replay", "--game", game, "--moves", line)
        assert adji.replay("start", line, game=game) == want
        assert adji.replay("start", d.history, game=game) == want
        assert want["result"] is not None
        assert d.result() == want["result"]
        assert d.position.notation == want["steps"][-1]["position"]
        names = ("B", "A") if game == "adjito" else ("0", "1")
        assert d.score == tuple(want["result"]["score"][n] for n in names)


def test_driver_applies_the_loop_rule():
    # a position repeated with no capture in between ends the game
    d = adji.Driver("0,0,0,0,0,1/1,0,0,0,0,0 B 23-23")
    seen = {d.position.notation}
    rng = random.Random(1)
    while not d.is_over:
        d.play(rng.choice(d.legal_moves()))
        seen.add(d.position.notation)
    assert d.end_reason in ("Loop", "MoverEmpty", "CannotFeed", "MoreThanHalf")
    assert d.result()["reason"] == d.end_reason


def test_driver_copies_are_independent():
    d = adji.Driver()
    d.play("2B")
    e = copy.deepcopy(d)
    e.play("2A")
    assert d.history == ["2B"] and e.history == ["2B", "2A"]
    assert d.position != e.position


@pytest.mark.parametrize(
    "args,position",
    [
        (("--game", "adjito"), "1,2/3 B"),
        (("--game", "adjito"), "4,4,4,4,4,4/4,4,4,4,4,4 C 0-0"),
        (("--game", "adjito"), "4,4,4,4,4,4/4,4,4,4,4,4 B 1-0"),
        (("--game", "adjiboto"), "10,10,10,10,10/10,10,10,10,10 0 0-0"),
        (("--game", "adjiboto"), "10,10,10,10,10/10,10,10,10,10 0 0-0 opening:1,2"),
    ],
)
def test_notation_errors_carry_the_command_lines_message(run, args, position):
    want = run.error("moves", *args, "--position", position)
    with pytest.raises(adji.AdjiError) as e:
        adji.Position(position, args[1])
    assert want == f"--position: {e.value}"
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    "game,moves",
    [("adjito", "2B 1B"), ("adjito", "2B 2A 7B"), ("adjiboto", "5 5"), ("adjiboto", "pass")],
)
def test_illegal_moves_carry_the_command_lines_message(run, game, moves):
    want = run.error("replay", "--game", game, "--moves", moves)
    with pytest.raises(adji.AdjiError) as e:
        adji.replay("start", moves, game=game)
    assert str(e.value) == want
    d = adji.Driver(game=game)
    with pytest.raises(adji.AdjiError) as e:
        for m in moves.split():
            d.play(m)
    assert str(e.value) == want


def test_other_errors():
    with pytest.raises(adji.AdjiError, match="game: expected"):
        adji.Position("start", "chess")
    with pytest.raises(adji.AdjiError, match="expected an action from 0 to 11"):
        adji.Position().play(12)
    with pytest.raises(TypeError):
        adji.Position().play(2.5)
    with pytest.raises(adji.AdjiError, match="loop: expected"):
        adji.solve("start", loop="sometimes", nodes=10)
