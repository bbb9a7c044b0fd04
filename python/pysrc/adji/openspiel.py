"""Adjito and Adji-Boto as OpenSpiel games, and a bot that plays adji's values.

``import adji.openspiel`` registers two Python games with ``pyspiel``:

- ``python_adjito``: Adjito (2x6 pits, 48 seeds);
- ``python_adjiboto``: Adji-Boto (2x5 pits and stores, 100 seeds), with its
  ten-move opening and the pass.

The rules are docs/RULES.md, applied by the adji library
itself (``adji.Driver``): every end rule, including the loop rule applied
literally along the played history (§4, "Playing a game") and Adjito's end
when a player has captured more than 24, so a game ends exactly where
``adji replay`` ends it.

Players: player 0 moves first from the start (B in Adjito, 0 in
Adji-Boto); player ``p`` is the absolute side ``p`` of adji's notation.

Actions: the absolute pit, in sowing order (Adjito: 0..5 = 1B..6B,
6..11 = 1A..6A; Adji-Boto: 0..9 = pits 0..9), and 10 = ``pass`` in
Adji-Boto. ``action_to_string`` gives adji's move notation (``2B``, ``7``,
``pass``).

Parameters:

- ``position`` (str, default ``start``): the position the game starts from,
  in adji's notation, so that small positions can be searched. OpenSpiel's
  game strings separate parameters with commas, so the game keeps the
  commas of the notation as ``;`` (either is accepted:
  ``python_adjito(position=0;1;0;2;0;1/1;0;3;0;1;2 A 18-19)``);
- ``rules`` (str, default ``default``): the rule set, as ``adji rules``
  lists them (``must-reach`` and ``slam-forbidden`` for Adjito, ``valdez``
  for Adji-Boto; docs/RULES.md describes each). The driver
  plays it exactly, Valdez's early end included;
- ``utility`` (str, default ``score``): ``score`` makes the returns the
  final score difference (player 0's seeds minus player 1's, zero-sum);
  ``wdl`` makes them +1/0/-1 for a win, draw or loss.

Information state: perfect recall. Under the loop rule a position alone
does not tell what a move does (it may end the game by repetition after one
history and not after another), so ``information_state_string`` is the start
position and every move played, ``"<start> | <move> <move> ..."``; equal
strings are equal games. There is no information-state tensor (a history
has no fixed size); the observation below is the position alone.

States can be copied and saved: ``copy.deepcopy``, ``pickle`` and
``pyspiel.serialize_game_and_state`` keep the start and the moves, and the
copy replays them.

Observation tensor (from the point of view of player ``p``; raw seed
counts as floats):

========================  =====================================================
index                     meaning
========================  =====================================================
``0 .. H-1``              ``p``'s pits in sowing order (H = 6 or 5)
``H .. 2H-1``             the opponent's pits in sowing order
``2H``, ``2H+1``          ``p``'s store, the opponent's store
``2H+2``                  1 if ``p`` is to move
``2H+3`` (Adji-Boto)      1 while the opening is in progress
``2H+4 .. 3H+3``          (Adji-Boto) 1 for each of ``p``'s pits already played
                          in the opening, in sowing order
``3H+4 .. 4H+3``          (Adji-Boto) the same for the opponent's pits
========================  =====================================================

So Adjito's tensor has 15 entries and Adji-Boto's 24; the observer's
``dict`` gives the same memory as ``pits`` (2, H), ``stores`` (2,),
``to_move`` (1,) and, for Adji-Boto, ``opening`` (1,) and ``played`` (2, H).
"""

from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np
import pyspiel

import adji

__all__ = ["AdjiBot", "GAMES", "action_names"]

_DEFAULT_PARAMS = {"position": "start", "rules": "default", "utility": "score"}

# Per game: pits, seeds, the absolute index of each side's first pit.
_SPECS = {
    "adjito": dict(pits=12, total=48, row_start=(0, 6), has_pass=False),
    "adjiboto": dict(pits=10, total=100, row_start=(5, 0), has_pass=True),
}

# A practical bound on the length of a game for algorithms that need one
# (OpenSpiel does not enforce it; the loop rule ends every game).
_MAX_GAME_LENGTH = 100_000


def action_names(game: str) -> List[str]:
    """The move name of every action of ``game``, by action number."""
    pos = adji.Position.start(game)
    return [pos.action_to_move(a) for a in range(adji.num_actions(game))]


def _game_type(game: str) -> pyspiel.GameType:
    long = {"adjito": "Adjito (adji)", "adjiboto": "Adji-Boto (adji)"}[game]
    return pyspiel.GameType(
        short_name=f"python_{game}",
        long_name=long,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULT_PARAMS),
    )


class _AdjiGame(pyspiel.Game):
    """One of the two games; see the module documentation."""

    GAME = "adjito"

    def __init__(self, params: Optional[Dict] = None):
        params = dict(_DEFAULT_PARAMS, **(params or {}))
        spec = _SPECS[self.GAME]
        self.utility = str(params["utility"])
        if self.utility not in ("score", "wdl"):
            raise adji.AdjiError(
                f"utility: expected `score` or `wdl`, found '{self.utility}'"
            )
        # OpenSpiel's game strings separate parameters by commas, so the
        # position is kept with `;` between pit counts (and read either way).
        params["position"] = str(params["position"]).replace(",", ";")
        self.rules = str(params["rules"])
        self.start = adji.Position(
            params["position"].replace(";", ","), self.GAME, self.rules
        )
        bound = 1.0 if self.utility == "wdl" else float(spec["total"])
        super().__init__(
            _game_type(self.GAME),
            pyspiel.GameInfo(
                num_distinct_actions=adji.num_actions(self.GAME),
                max_chance_outcomes=0,
                num_players=2,
                min_utility=-bound,
                max_utility=bound,
                utility_sum=0.0,
                max_game_length=_MAX_GAME_LENGTH,
            ),
            params,
        )
        self.action_names = action_names(self.GAME)

    def new_initial_state(self):
        """The state at the game's ``position`` parameter."""
        return AdjiState(self, adji.Driver(self.start))

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the module documentation: the position for an
        observation, the whole game (start and moves) for a perfect-recall
        information state."""
        if iig_obs_type is None or not iig_obs_type.perfect_recall:
            return _Observer(self.GAME, params)
        return _HistoryObserver(params)


class AdjitoGame(_AdjiGame):
    """Adjito, 2x6 pits, 48 seeds (OpenSpiel name ``python_adjito``)."""

    GAME = "adjito"


class AdjiBotoGame(_AdjiGame):
    """Adji-Boto, 2x5 pits and stores, 100 seeds (``python_adjiboto``)."""

    GAME = "adjiboto"


class AdjiState(pyspiel.State):
    """A game in play: an ``adji.Driver`` applies every move and end rule."""

    def __init__(self, game: _AdjiGame, driver: "adji.Driver"):
        super().__init__(game)
        # Plain data only: OpenSpiel clones a state by serialising it.
        self._utility = game.utility
        self._names = game.action_names
        self.driver = driver

    @property
    def position(self) -> "adji.Position":
        """The current adji position (board, mover, stores, phase)."""
        return self.driver.position

    def current_player(self):
        if self.driver.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.driver.position.side

    def _legal_actions(self, player):
        return sorted(self.driver.legal_actions())

    def _apply_action(self, action):
        self.driver.play(int(action))

    def _action_to_string(self, player, action):
        return self._names[action]

    def is_terminal(self):
        return self.driver.is_over

    def returns(self):
        score = self.driver.score
        if score is None:
            return [0.0, 0.0]
        d = float(score[0] - score[1])
        if self._utility == "wdl":
            d = float(np.sign(d))
        return [d, -d]

    def __str__(self):
        s = self.driver.position.notation
        if self.driver.is_over:
            s += f" (game over: {self.driver.end_reason}, final {self.driver.score})"
        return s



class _Observer:
    """Observation tensor and string; layout in the module documentation."""

    def __init__(self, game: str, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        spec = _SPECS[game]
        self._spec = spec
        h = spec["pits"] // 2
        self._h = h
        size = 2 * h + 3 + (1 + 2 * h if spec["has_pass"] else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {
            "pits": self.tensor[: 2 * h].reshape(2, h),
            "stores": self.tensor[2 * h : 2 * h + 2],
            "to_move": self.tensor[2 * h + 2 : 2 * h + 3],
        }
        if spec["has_pass"]:
            self.dict["opening"] = self.tensor[2 * h + 3 : 2 * h + 4]
            self.dict["played"] = self.tensor[2 * h + 4 :].reshape(2, h)

    def set_from(self, state: AdjiState, player: int):
        pos = state.driver.position
        spec, h = self._spec, self._h
        pits = pos.pits
        self.tensor.fill(0)
        for i, side in enumerate((player, 1 - player)):
            s = spec["row_start"][side]
            self.dict["pits"][i] = pits[s : s + h]
            self.dict["stores"][i] = pos.stores[side]
        self.dict["to_move"][0] = float(
            not state.driver.is_over and pos.side == player
        )
        if spec["has_pass"] and pos.in_opening:
            self.dict["opening"][0] = 1.0
            played = pos.phase.split(":", 1)[1]
            for name in filter(None, played.split(",")):
                a = int(name)
                for i, side in enumerate((player, 1 - player)):
                    s = spec["row_start"][side]
                    if s <= a < s + h:
                        self.dict["played"][i, a - s] = 1.0

    def string_from(self, state: AdjiState, player: int) -> str:
        return str(state)


class _HistoryObserver:
    """The information state: the start position and every move played.

    Under the loop rule the position alone does not tell what a move does
    (the same position ends the game by repetition after one history and
    not after another), so the information state is perfect-recall: equal
    strings are equal games, hence equal legal actions, outcomes and
    returns. Both players see the same (perfect information); there is no
    tensor (``provides_information_state_tensor`` is false), as a history
    has no fixed size."""

    def __init__(self, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.tensor = None
        self.dict = {}

    def set_from(self, state: AdjiState, player: int):
        pass

    def string_from(self, state: AdjiState, player: int) -> str:
        d = state.driver
        return f"{d.start.notation} | {' '.join(d.history)}"


GAMES = {"adjito": AdjitoGame, "adjiboto": AdjiBotoGame}

for _name, _cls in GAMES.items():
    pyspiel.register_game(_game_type(_name), _cls)


class AdjiBot(pyspiel.Bot):
    """Plays adji's best move: exact where the tables or a limited search
    prove the value, the engine's estimate elsewhere.

    For each decision, in order:

    1. ``tables`` (an ``adji.Tables`` of the game) cover the position: a
       best move by the tables' values (exact);
    2. ``adji.solve`` within ``solve_nodes`` nodes (or ``solve_time``
       seconds) proves the value: one of its best moves (exact);
    3. otherwise the best move by ``adji.analyse``'s estimate within
       ``analyse_nodes`` nodes (or ``analyse_time`` seconds).

    Values are adji's (docs/RULES.md §4: the position taken as the
    start of a stretch), not aware of the positions already played in the
    current stretch. ``last`` holds how the last move was chosen:
    ``{"source": "tables"|"solve"|"estimate", "value": int|None,
    "estimate": float|None, "move": str}``.
    """

    def __init__(
        self,
        game: _AdjiGame,
        player_id: int = 0,
        tables: Optional["adji.Tables"] = None,
        solve_nodes: Optional[int] = 20_000,
        solve_time: Optional[float] = None,
        analyse_nodes: Optional[int] = 20_000,
        analyse_time: Optional[float] = None,
        threads: int = 1,
        hash_mib: int = 16,
    ):
        pyspiel.Bot.__init__(self)
        self._game_name = game.GAME
        self._player_id = player_id
        self.tables = tables
        self.rule = tables.loop if tables is not None else "start"
        self.solve_limits = dict(nodes=solve_nodes, time=solve_time)
        self.analyse_limits = dict(nodes=analyse_nodes, time=analyse_time)
        self.threads = threads
        self.hash_mib = hash_mib
        self.last: Optional[dict] = None

    def player_id(self) -> int:
        return self._player_id

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass

    def provides_policy(self) -> bool:
        return False

    def choose(self, pos: "adji.Position") -> dict:
        """How this bot values ``pos`` and the move it picks (see ``last``)."""
        t = self.tables
        if t is not None and not pos.in_opening and pos.level < t.covered:
            r = t.probe(pos)
            return dict(source="tables", value=r["value"], estimate=None,
                        move=r["best_moves"][0])
        limits = {k: v for k, v in self.solve_limits.items() if v is not None}
        if limits:
            r = adji.solve(pos, tables=t, loop=self.rule, threads=self.threads,
                           hash_mib=self.hash_mib, **limits)
            if r["exact"] and r["best_moves"]:
                return dict(source="solve", value=r["value"], estimate=None,
                            move=r["best_moves"][0])
        limits = {k: v for k, v in self.analyse_limits.items() if v is not None}
        r = adji.analyse(pos, tables=t, loop=self.rule, **limits)
        return dict(source="estimate", value=r["value"], estimate=r["estimate"],
                    move=r["best"])

    def step(self, state: AdjiState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            pos = state.position
            self.last = dict(source="forced", value=None, estimate=None,
                             move=pos.action_to_move(legal[0]))
            return legal[0]
        pos = state.position
        self.last = self.choose(pos)
        return pos.move_to_action(self.last["move"])
