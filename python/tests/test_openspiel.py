"""The OpenSpiel games: rules through adji's driver, OpenSpiel's own
algorithms unmodified, and AdjiBot."""

from __future__ import annotations

import random

import numpy as np
import pytest

import adji
import adji.openspiel as aos
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax
from open_spiel.python.bots import uniform_random

GAMES = ["adjito", "adjiboto"]


def load(game: str, **params):
    return pyspiel.load_game(f"python_{game}", params)


def test_both_games_are_registered():
    names = pyspiel.registered_names()
    assert "python_adjito" in names and "python_adjiboto" in names
    g = load("adjito")
    assert g.num_distinct_actions() == 12 and g.num_players() == 2
    assert g.max_utility() == 48 and g.min_utility() == -48
    b = load("adjiboto", utility="wdl")
    assert b.num_distinct_actions() == 11 and b.max_utility() == 1
    s = g.new_initial_state()
    assert s.current_player() == 0  # B moves first
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["1B", "2B", "3B", "4B", "5B", "6B"]
    assert b.new_initial_state().action_to_string(10) == "pass"
    assert aos.action_names("adjito")[6] == "1A"


@pytest.mark.parametrize("game", GAMES)
def test_a_random_game_ends_where_adji_replay_ends_it(run, game):
    rng = random.Random(17)
    for _ in range(4):
        g = load(game)
        s = g.new_initial_state()
        while not s.is_terminal():
            assert s.current_player() == s.position.side
            s.apply_action(rng.choice(s.legal_actions()))
        names = [s.action_to_string(a) for a in s.history()]
        want = run.json("replay", "--game", game, "--moves", " ".join(names))
        assert want["result"] is not None, "adji replay ends the game too"
        assert len(want["steps"]) == len(names)
        assert s.position.notation == want["steps"][-1]["position"]
        sides = ("B", "A") if game == "adjito" else ("0", "1")
        score = [want["result"]["score"][n] for n in sides]
        assert s.returns() == [score[0] - score[1], score[1] - score[0]]
        # the same game under the win/draw/loss utility
        w = load(game, utility="wdl").new_initial_state()
        for a in s.history():
            w.apply_action(a)
        assert w.returns()[0] == np.sign(score[0] - score[1])


def test_a_game_from_a_position_parameter():
    g = load("adjiboto", position="0,0,1,0,3/2,0,0,0,1 0 47-46 main")
    s = g.new_initial_state()
    assert str(s) == "0,0,1,0,3/2,0,0,0,1 0 47-46 main"
    with pytest.raises(Exception, match="stores"):
        load("adjito", position="4,4,4,4,4,4/4,4,4,4,4,4 B 1-0").new_initial_state()


def random_small_position(game: str, rng: random.Random, n: int) -> adji.Position:
    pits = 12 if game == "adjito" else 10
    board = [0] * pits
    for _ in range(n):
        board[rng.randrange(pits)] += 1
    total = 48 if game == "adjito" else 100
    rest = total - n
    top = rest // 2 + rng.choice([0, 0, 1]) if game == "adjito" else rng.randint(0, rest)
    h = pits // 2
    if game == "adjito":
        text = f"{','.join(map(str, board[h:]))}/{','.join(map(str, board[:h]))} {rng.choice('AB')} {top}-{rest - top}"
    else:
        text = f"{','.join(map(str, board[:h]))}/{','.join(map(str, board[h:]))} {rng.choice('01')} {top}-{rest - top} main"
    return adji.Position(text, game)


@pytest.mark.parametrize("game,levels,utility", [("adjito", (3, 4, 5), "wdl"), ("adjiboto", (5, 6, 7, 8), "score")])
def test_openspiel_minimax_equals_adjis_values(game, levels, utility):
    """OpenSpiel's exact alpha-beta over the literal game equals adji's value
    on positions that are not loop-sensitive (there the literal loop rule,
    whose repeats score within [lo, hi], cannot change the value). Adjito is
    compared under the win/draw/loss utility, which its early end (a player
    past 24) never changes."""
    rng = random.Random(23)
    compared = 0
    while compared < 12:
        p = random_small_position(game, rng, rng.choice(levels))
        if p.game_over:
            continue
        r = adji.solve(p, threads=1, hash_mib=1)
        assert r["exact"]
        if r["loop_sensitive"]:
            continue
        g = load(game, position=p.notation, utility=utility)
        try:
            value, action = minimax.alpha_beta_search(
                g, maximum_depth=80, maximizing_player_id=p.side)
        except NotImplementedError:
            continue  # a line longer than the depth cap; try another position
        me, opp = p.stores[p.side], p.stores[1 - p.side]
        margin = me - opp + r["value"]
        want = float(np.sign(margin)) if utility == "wdl" else float(margin)
        assert value == want, (p.notation, r)
        compared += 1


def test_mcts_runs_unmodified_on_both_games():
    for game in GAMES:
        g = load(game)
        rs = np.random.RandomState(3)
        bot = mcts.MCTSBot(g, uct_c=2.0, max_simulations=20,
                           evaluator=mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
        s = g.new_initial_state()
        for _ in range(3):
            a = bot.step(s)
            assert a in s.legal_actions()
            s.apply_action(a)


def test_mcts_solver_finds_a_forced_win():
    # Adji-Boto, 6 seeds: MCTS with its solver on must reach the exact value
    p = adji.Position("0,0,2,0,1/2,0,0,1,0 0 47-47 main", "adjiboto")
    exact = adji.solve(p, threads=1)
    g = load("adjiboto", position=p.notation)
    rs = np.random.RandomState(1)
    bot = mcts.MCTSBot(g, uct_c=2.0, max_simulations=3000,
                       evaluator=mcts.RandomRolloutEvaluator(1, rs), random_state=rs, solve=True)
    root = bot.mcts_search(g.new_initial_state())
    assert root.outcome is not None, "the tree is small enough to solve"
    assert root.outcome[0] == exact["value"]


def test_adjibot_is_exact_where_the_tables_cover(tables):
    g = load("adjito", position="0,1,0,2,0,0/1,0,3,0,1,0 B 20-20")
    s = g.new_initial_state()
    bot = aos.AdjiBot(g, tables=tables["adjito"])
    a = bot.step(s)
    probe = tables["adjito"].probe(s.position)
    values = {m["move"]: m["value"] for m in probe["moves"]}
    assert bot.last["source"] == "tables" and bot.last["value"] == probe["value"]
    assert values[s.action_to_string(a)] == probe["value"]


def test_adjibot_estimates_beyond_exact_reach():
    g = load("adjiboto")
    bot = aos.AdjiBot(g, solve_nodes=2000, analyse_nodes=2000)
    s = g.new_initial_state()
    a = bot.step(s)
    assert a in s.legal_actions()
    assert bot.last["source"] == "estimate"
    assert bot.last["value"] is None and isinstance(bot.last["estimate"], float)


def test_adjibot_plays_through_openspiels_evaluation():
    g = load("adjito", position="0,1,0,2,0,1/1,0,3,0,1,2 A 18-19")
    bots = [aos.AdjiBot(g, 0, solve_nodes=5000), uniform_random.UniformRandomBot(1, np.random.RandomState(2))]
    returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, np.random.RandomState(2))
    assert returns[0] == -returns[1]


def test_observation_tensor_layout():
    g = load("adjiboto", position="3,10,12,9,11/10,10,10,9,11 0 2-3 opening:2,8")
    s = g.new_initial_state()
    obs0 = np.array(s.observation_tensor(0))
    obs1 = np.array(s.observation_tensor(1))
    assert obs0.tolist() == [10, 10, 10, 9, 11, 3, 10, 12, 9, 11, 3, 2, 1, 1,
                             0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
    assert obs1.tolist() == [3, 10, 12, 9, 11, 10, 10, 10, 9, 11, 2, 3, 0, 1,
                             0, 0, 1, 0, 0, 0, 0, 0, 1, 0]
    a = load("adjito", position="0,1,0,2,0,1/1,0,3,0,1,2 A 18-19").new_initial_state()
    assert np.array(a.observation_tensor(1)).tolist() == [0, 1, 0, 2, 0, 1, 1, 0, 3, 0, 1, 2, 18, 19, 1]
    assert s.observation_string(0) == str(s)


RULE_SETS = [("adjito", "default"), ("adjito", "must-reach"), ("adjito", "slam-forbidden"),
             ("adjiboto", "default"), ("adjiboto", "valdez")]


def snapshot(s) -> tuple:
    """What a state is, as OpenSpiel sees it."""
    return (s.history(), s.legal_actions(), s.returns(), str(s), s.is_terminal(),
            s.current_player(), s.information_state_string(0), s.observation_string(0))


@pytest.mark.parametrize("game,rules", RULE_SETS)
def test_states_survive_pickle_deepcopy_and_serialisation(game, rules):
    """Issue 37, item 12: all three raised TypeError. A copy has the same
    history, legal actions, returns and string, and plays on as the
    original does (the loop rule's memory of the stretch included)."""
    import copy
    import pickle

    rng = random.Random(12)
    g = load(game, rules=rules)
    for plies in [0, 1, 7, 40, 10_000]:
        s = g.new_initial_state()
        while len(s.history()) < plies and not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        copies = [
            pickle.loads(pickle.dumps(s)),
            copy.deepcopy(s),
            pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, s))[1],
            s.clone(),
        ]
        for c in copies:
            assert snapshot(c) == snapshot(s)
            assert c.position == s.position and c.driver.history == s.driver.history
        # the copies play on as the original does
        line = []
        t = s.clone()
        while not t.is_terminal() and len(line) < 200:
            a = rng.choice(t.legal_actions())
            line.append(a)
            t.apply_action(a)
        for c in copies:
            for a in line:
                c.apply_action(a)
            assert snapshot(c) == snapshot(t)
    assert copy.deepcopy(s).driver is not s.driver


def test_a_driver_pickles_and_refuses_a_forged_history():
    import pickle

    d = adji.Driver(game="adjiboto", rules="valdez")
    for m in ["5", "0", "8"]:
        d.play(m)
    e = pickle.loads(pickle.dumps(d))
    assert (e.history, e.position, e.start) == (d.history, d.position, d.start)
    assert e.position.rules == "valdez"
    f = adji.Driver(game="adjiboto")
    with pytest.raises(adji.AdjiError, match="illegal|cannot"):
        f.__setstate__(["5", "5"])
    assert f.history == [] and f.position == adji.Position.start("adjiboto")


def small_start(game: str, rng: random.Random) -> str:
    """A small position (few seeds, many quiet moves: repetitions are
    frequent) in the game parameter's form."""
    while True:
        p = random_small_position(game, rng, rng.randint(3, 7))
        if not p.game_over:
            return p.notation


# Adji-Boto's quiet-move cycles start at level 16 and random play rarely
# closes one: its games start on this 10-move cycle and follow it with
# probability 0.8 while on it (then play at random).
CYCLE_START = "2,1,2,1,2/1,2,2,1,2 1 42-42 main"
CYCLE = ["0", "7", "2", "9", "4", "6", "1", "8", "3", "5"]


def test_the_adjiboto_cycle_is_one():
    p = adji.Position(CYCLE_START, "adjiboto")
    q = p
    for m in CYCLE:
        assert q.captures(m) == 0
        q = q.play(m)
    assert q == p


def random_games(game: str, rules: str, rng: random.Random):
    """Games of `game` under `rules` played at random, each as its list of
    states (the last one terminal)."""
    starts = ["start"] + [small_start(game, rng) for _ in range(6)]
    if game == "adjiboto":
        starts.append(CYCLE_START)
    for start in starts:
        g = load(game, rules=rules, position=start)
        games = 3 if start == "start" else 30
        for _ in range(games):
            s = g.new_initial_state()
            states = [s.clone()]
            on_cycle = start == CYCLE_START
            while not s.is_terminal():
                on_cycle = on_cycle and rng.random() < 0.8
                if on_cycle:
                    s.apply_action(s.position.move_to_action(CYCLE[len(s.history()) % len(CYCLE)]))
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                states.append(s.clone())
            yield g, states


@pytest.mark.parametrize("game,rules", RULE_SETS)
def test_information_states_are_perfect_recall(game, rules):
    """Issue 37, item 13: the information state was the position alone, so
    under the loop rule two states with the same string could differ in
    what the same action does (one ends by repetition, the other goes on).
    Over random games: equal strings imply equal legal actions, equal
    returns and, for every action, equal next states (string, terminality,
    returns). (The game's play has no loop-rule parameter: a repetition
    ends a game whichever way the solver scores loops.)"""
    rng = random.Random(13)
    checked = repeats = 0
    seen = {}
    for g, states in random_games(game, rules, rng):
        for s in states:
            key = (str(g), s.information_state_string(0))
            assert s.information_state_string(1) == key[1]  # perfect information
            outcome = [s.legal_actions(), s.returns(), s.is_terminal()]
            for a in s.legal_actions():
                c = s.child(a)
                outcome.append((a, str(c), c.is_terminal(), c.returns(),
                                c.information_state_string(0)))
                repeats += c.driver.end_reason == "Loop"
            if key in seen:
                assert seen[key] == outcome, key
                checked += 1
            else:
                seen[key] = outcome
    assert checked > 50, "random games met few equal information states"
    assert repeats > 0, "no move ended a game by repetition: the loop rule was not exercised"
