"""Type stubs of the native module `adji._adji` (re-exported by `adji`).

Read-only properties are written `name: Final[T]`.

Reports are dicts with the fields of the command line's JSON (`adji solve
--json`, `adji analyse --json`, `adji tables probe --json`, `adji moves
--json`, `adji replay --json`, `adji perft --divide --json`).
"""

from os import PathLike
from typing import Any, Callable, Dict, Final, Iterable, List, Optional, Tuple, Union

__version__: str

Report = Dict[str, Any]
MoveArg = Union[str, int]
PositionArg = Union["Position", str]
StrPath = Union[str, PathLike]

class AdjiError(ValueError):
    """Bad input or an impossible request; the message is the command line's."""

class Position:
    """A position with the seeds captured so far (immutable)."""

    def __init__(self, text: str = "start", game: str = "adjito", rules: str = "default") -> None: ...
    @staticmethod
    def start(game: str = "adjito", rules: str = "default") -> Position: ...
    game: Final[str]
    rules: Final[str]
    side: Final[int]
    """0 (Adjito B, Adji-Boto 0: the first player) or 1."""
    mover: Final[str]
    stores: Final[Tuple[int, int]]
    """Seeds captured, by absolute side (side 0, side 1)."""
    level: Final[int]
    pits: Final[List[int]]
    """Seeds per pit in absolute sowing order."""
    board: Final[List[int]]
    """Seeds per pit relative to the mover (mover's row first)."""
    phase: Final[Optional[str]]
    in_opening: Final[bool]
    notation: Final[str]
    game_over: Final[bool]
    end_reason: Final[Optional[str]]
    def final_score(self) -> Tuple[int, int]: ...
    def legal_moves(self) -> List[str]: ...
    def legal_actions(self) -> List[int]: ...
    def action_to_move(self, action: int) -> str: ...
    def move_to_action(self, name: MoveArg) -> int: ...
    def play(self, mv: MoveArg) -> Position: ...
    def captures(self, mv: MoveArg) -> int: ...
    def moves(self) -> Report: ...
    def diagram(self) -> str: ...

class Driver:
    """A game in play, every end rule applied literally (as `adji replay`)."""

    def __init__(self, position: Optional[PositionArg] = None, game: str = "adjito", rules: str = "default") -> None: ...
    position: Final[Position]
    start: Final[Position]
    history: Final[List[str]]
    is_over: Final[bool]
    end_reason: Final[Optional[str]]
    score: Final[Optional[Tuple[int, int]]]
    def result(self) -> Optional[Report]: ...
    def legal_moves(self) -> List[str]: ...
    def legal_actions(self) -> List[int]: ...
    def play(self, mv: MoveArg) -> int: ...
    def copy(self) -> Driver: ...
    def __reduce__(self) -> Tuple[Any, Tuple[Position], List[str]]: ...
    def __setstate__(self, history: List[str]) -> None: ...

class Tables:
    """Endgame tables of one game and loop rule."""

    def __init__(
        self, dir: StrPath = "tables", game: str = "adjito", rules: str = "default", loop: str = "start", trust: bool = False
    ) -> None: ...
    game: Final[str]
    rules: Final[str]
    loop: Final[str]
    dir: Final[str]
    covered: Final[int]
    mapped_bytes: Final[int]
    allocated_bytes: Final[int]
    def probe(self, position: PositionArg) -> Report: ...
    def value(self, position: PositionArg) -> int: ...
    def probe_many(self, positions: Iterable[PositionArg]) -> List[Report]: ...
    def stats(self, level: int) -> Report: ...
    def probe_boards(self, boards: Any) -> Tuple[Any, Any, Any]: ...
    def _probe_boards(self, boards: bytes) -> Tuple[bytes, bytes, bytes]: ...

class Solver:
    """An exact solver keeping its transposition table between positions."""

    def __init__(
        self,
        tables: Optional[Tables] = None,
        loop: str = "start",
        threads: Optional[int] = None,
        hash_mib: int = 64,
    ) -> None: ...
    def solve(
        self,
        position: PositionArg,
        time: Optional[float] = None,
        nodes: Optional[int] = None,
        game: str = "adjito", rules: str = "default",
        loop: Optional[str] = None,
    ) -> Report: ...
    loop: Final[str]

def perft(position: PositionArg, depth: int, divide: bool = False, game: str = "adjito", rules: str = "default") -> Any: ...
def replay(
    position: PositionArg, moves: Union[str, Iterable[MoveArg]], game: str = "adjito", rules: str = "default"
) -> Report: ...
def solve(
    position: PositionArg,
    tables: Optional[Tables] = None,
    loop: str = "start",
    time: Optional[float] = None,
    nodes: Optional[int] = None,
    threads: Optional[int] = None,
    hash_mib: int = 64,
    game: str = "adjito", rules: str = "default",
) -> Report: ...
def analyse(
    position: PositionArg,
    depth: Optional[int] = None,
    eval: Optional[StrPath] = None,
    tables: Optional[Tables] = None,
    loop: str = "start",
    time: Optional[float] = None,
    nodes: Optional[int] = None,
    game: str = "adjito", rules: str = "default",
) -> Report: ...
def build_tables(
    dir: StrPath,
    max_seeds: int,
    game: str = "adjito", rules: str = "default",
    loop: str = "start",
    progress: Optional[Callable[[Dict[str, Any]], Any]] = None,
    memory: Optional[int] = None,
) -> List[Report]: ...
def num_actions(game: str = "adjito", rules: str = "default") -> int: ...
