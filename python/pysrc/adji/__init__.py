"""adji: exact values for the mancala games Adjito and Adji-Boto.

A Python binding of the adji library (Rust). Positions use the notation of
docs/RULES.md (§5); values are the mover's seeds minus the
opponent's over the seeds on the board, under perfect play (§4).

    >>> import adji
    >>> p = adji.Position("1,0,0,0,0,1/0,1,0,2,7,8 B 5-23")
    >>> adji.solve(p)["value"]                     # exact, as `adji solve --json`
    2

Reports (``solve``, ``analyse``, ``Tables.probe``, ``Position.moves``,
``replay``, ``perft(divide=True)``) are dicts with the fields of the
command line's JSON. An estimate is never a value: ``analyse`` gives
``estimate`` and sets ``value`` only when the proven bounds meet.

Every function and class that takes a ``game`` also takes ``rules``
(default ``"default"``): the rule set, as ``adji rules`` lists them
(``must-reach``, ``slam-forbidden`` for Adjito, ``valdez`` for Adji-Boto).
A ``Position`` carries its rule set (``Position.rules``), and so does
everything played from it.

``import adji.openspiel`` registers the games ``python_adjito`` and
``python_adjiboto`` with OpenSpiel.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ._adji import (
    AdjiError,
    Driver,
    Position,
    Solver,
    Tables,
    __version__,
    analyse,
    build_tables,
    num_actions,
    perft,
    replay,
    solve,
)

__all__ = [
    "AdjiError",
    "Driver",
    "Position",
    "Solver",
    "Tables",
    "__version__",
    "analyse",
    "build_tables",
    "num_actions",
    "perft",
    "probe_boards",
    "replay",
    "solve",
]

_PITS = {"adjito": 12, "adjiboto": 10}


def probe_boards(tables: Tables, boards) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values of many positions at once, NumPy in and out.

    ``boards`` is an integer array of shape ``(n, pits)`` (12 for Adjito, 10
    for Adji-Boto), one row per position, each *relative to the mover*: the
    mover's row first, in sowing order (``Position.board`` gives this form);
    Adji-Boto positions are after the opening. Returns three ``int32``
    arrays of length ``n``: ``value`` (under the tables' loop rule), ``lo``
    and ``hi`` (the values when endless play is worst/best for the mover;
    ``lo < hi`` marks a loop-sensitive position; ±1000 stand for ±infinity).
    Raises AdjiError naming the first bad entry (its index and value) when
    ``boards`` is not an integer array of counts from 0 to 127 (floats are
    refused, never rounded or cast), and the first board whose level is not
    covered.
    """
    pits = _PITS[tables.game]
    try:
        a = np.asarray(boards)
    except (ValueError, TypeError, OverflowError) as e:
        raise AdjiError(f"boards: expected an integer array of shape (n, {pits}): {e}") from None
    if a.ndim == 1 and a.size == pits:
        a = a.reshape(1, pits)
    if a.ndim != 2 or a.shape[1] != pits:
        raise AdjiError(
            f"boards: expected an array of shape (n, {pits}), found shape {a.shape}"
        )
    bad = _first_bad_entry(a)
    if bad is not None:
        (i, j), v, why = bad
        raise AdjiError(f"boards[{i}, {j}] is {v!r}: {why}")
    raw = np.ascontiguousarray(a, dtype=np.uint8).tobytes()
    v, lo, hi = tables._probe_boards(raw)
    conv = lambda b: np.frombuffer(b, dtype="<i4").astype(np.int32)  # noqa: E731
    return conv(v), conv(lo), conv(hi)


def _first_bad_entry(a: np.ndarray):
    """The first entry of ``a`` that is not a seed count (an integer from 0
    to 127), as ``((row, column), value, why)``, or None. An array that is
    not of integers is refused whatever its values (a float ``2.0`` is not a
    count): its first entry is named, or the first one that is not even a
    whole number."""
    if a.size == 0:
        return None
    if a.dtype.kind in "iu":
        out = (a < 0) | (a > 127)
        if not out.any():
            return None
        i, j = np.argwhere(out)[0]
        return (int(i), int(j)), int(a[i, j]), "expected a seed count from 0 to 127"
    why = f"expected an integer array, found dtype {a.dtype}"
    if a.dtype.kind in "fc":
        with np.errstate(invalid="ignore"):
            frac = ~np.isfinite(a) | (a != np.round(a.real))
        if frac.any():
            i, j = np.argwhere(frac)[0]
            return (int(i), int(j)), _scalar(a[i, j]), why
    return (0, 0), _scalar(a[0, 0]), why


def _scalar(x):
    """A NumPy scalar as the Python value it holds (for messages)."""
    return x.item() if isinstance(x, np.generic) else x


Tables.probe_boards = probe_boards  # type: ignore[attr-defined]
