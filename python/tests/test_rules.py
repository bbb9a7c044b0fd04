"""Rule sets through Python: every function that takes a game takes
`rules`, a rule set changes the legal moves and the game's end exactly as
the command line's `--rules` does, and the OpenSpiel games take `rules`."""

from __future__ import annotations

import random

import pytest

import adji
from conftest import random_positions

VALDEZ_LINE = "5 0 8"  # the third move captures 3 under Valdez, nothing by default


def test_an_unknown_rule_set_is_an_error_naming_the_choices():
    with pytest.raises(adji.AdjiError, match="expected one of default, valdez"):
        adji.Position.start("adjiboto", "must-reach")
    with pytest.raises(adji.AdjiError, match="must-reach, slam-forbidden"):
        adji.Driver(game="adjito", rules="valdez")


def test_positions_carry_their_rule_set():
    p = adji.Position.start("adjiboto", "valdez")
    assert (p.game, p.rules) == ("adjiboto", "valdez")
    assert p != adji.Position.start("adjiboto")
    q = p.play("5").play("0")
    assert q.rules == "valdez"
    import pickle

    assert pickle.loads(pickle.dumps(q)) == q
    # a Position keeps its rule set; naming another is an error
    with pytest.raises(adji.AdjiError, match="of the rule set 'valdez', not 'must-reach'"):
        adji.replay(p, "5", rules="must-reach")


def test_valdez_captures_from_the_third_move():
    for rules, want in [("default", 0), ("valdez", 3)]:
        d = adji.Driver(game="adjiboto", rules=rules)
        caps = [d.play(m) for m in VALDEZ_LINE.split()]
        assert caps[-1] == want, rules
        r = adji.replay("start", VALDEZ_LINE, game="adjiboto", rules=rules)
        assert r["steps"][-1]["captured"] == want
        assert ("rules" in r) == (rules != "default")


@pytest.mark.parametrize(
    "game,rules", [("adjito", "must-reach"), ("adjito", "slam-forbidden"), ("adjiboto", "valdez")]
)
def test_moves_under_a_rule_set_match_the_command_line_and_differ_somewhere(run, game, rules):
    differ = 0
    for pos in random_positions(game, 60, seed=11, plies=(0, 60)):
        text = pos.notation
        p = adji.Position(text, game, rules)
        want = run.json("moves", "--game", game, "--rules", rules, "--position", text)
        assert p.moves() == want
        assert p.legal_moves() == [m["move"] for m in want["moves"]]
        d = adji.Position(text, game)
        differ += p.moves()["moves"] != d.moves()["moves"]
    assert differ > 0, f"{rules} changed no legal move or capture in 60 positions"


def test_perft_and_replay_take_rules(run):
    for rules in ["default", "valdez"]:
        want = run.json("perft", "--game", "adjiboto", "--rules", rules, "--depth", "3")
        got = adji.perft("start", 3, game="adjiboto", rules=rules)
        assert got == want["nodes"]
    rng = random.Random(5)
    d = adji.Driver(game="adjiboto", rules="valdez")
    while not d.is_over:
        d.play(rng.choice(d.legal_moves()))
    want = run.json("replay", "--game", "adjiboto", "--rules", "valdez",
                    "--moves", " ".join(d.history))
    assert d.result() == want["result"]
    assert d.end_reason == want["result"]["reason"]


def test_solve_takes_rules(run):
    pos = "0,0,0,1,0,1/0,0,1,0,1,2 B 20-22"
    for rules in ["default", "must-reach", "slam-forbidden"]:
        want = run.json("solve", "--game", "adjito", "--rules", rules, "--position", pos,
                        "--no-tables")
        got = adji.solve(pos, game="adjito", rules=rules)
        assert got["value"] == want["value"] and got["moves"] == want["moves"]


def test_the_openspiel_games_take_rules(run):
    pyspiel = pytest.importorskip("pyspiel")
    import adji.openspiel  # noqa: F401

    g = pyspiel.load_game("python_adjiboto", {"rules": "valdez"})
    s = g.new_initial_state()
    for name in VALDEZ_LINE.split():
        s.apply_action(s.position.move_to_action(name))
    assert s.position.stores == (0, 3) or s.position.stores == (3, 0)
    d = pyspiel.load_game("python_adjiboto").new_initial_state()
    for name in VALDEZ_LINE.split():
        d.apply_action(d.position.move_to_action(name))
    assert d.position.stores == (0, 0)
    rng = random.Random(3)
    s = g.new_initial_state()
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    names = [s.action_to_string(a) for a in s.history()]
    want = run.json("replay", "--game", "adjiboto", "--rules", "valdez", "--moves", " ".join(names))
    assert want["result"] is not None
    assert s.position.notation == want["steps"][-1]["position"]
