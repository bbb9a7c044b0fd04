"""Shared fixtures: the command-line binary the package is checked against,
and small endgame tables built once per session.

The binary is `target/release/adji` at the repository root, built here with
`cargo build --release` (a no-op when it is current). Without cargo the
tests that need it are skipped with a loud reason, unless ADJI_REQUIRE_CLI
is set (CI sets it): then they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import adji

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "adji"

# Levels of the session's tables: small enough to build in well under a
# second, big enough for positions with several captures.
TABLE_LEVELS = {"adjito": 10, "adjiboto": 12}


@pytest.fixture(scope="session")
def cli() -> Path:
    """The command-line binary, built if cargo is present."""
    if shutil.which("cargo") is None:
        msg = "cargo is absent: the command-line round trips cannot run"
        if os.environ.get("ADJI_REQUIRE_CLI"):
            pytest.fail(msg + " (ADJI_REQUIRE_CLI is set)")
        pytest.skip("SKIPPED LOUDLY: " + msg)
    r = subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--bin", "adji"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, f"cargo build --release failed:\n{r.stderr}"
    assert BIN.is_file()
    return BIN


class Cli:
    """Runs the binary; `json(...)` parses its `--json` output."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.path), *args], capture_output=True, text=True, timeout=120
        )

    def json(self, *args: str):
        r = self.run(*args, "--json")
        assert r.returncode == 0, f"adji {' '.join(args)} failed: {r.stderr}"
        return json.loads(r.stdout)

    def json_lines(self, *args: str):
        r = self.run(*args, "--json")
        assert r.returncode == 0, f"adji {' '.join(args)} failed: {r.stderr}"
        return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]

    def error(self, *args: str) -> str:
        """The one error line of a failing command, without `error: `."""
        r = self.run(*args)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        line = r.stderr.strip().splitlines()[-1]
        assert line.startswith("error: "), line
        return line[len("error: ") :]


@pytest.fixture(scope="session")
def run(cli) -> Cli:
    return Cli(cli)


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory) -> Path:
    """Tables of both games under the `start` rule, built through Python."""
    d = tmp_path_factory.mktemp("tables")
    for game, top in TABLE_LEVELS.items():
        events = adji.build_tables(str(d), top, game=game)
        assert [e["level"] for e in events] == list(range(top + 1))
    return d


@pytest.fixture(scope="session")
def tables(tables_dir):
    return {g: adji.Tables(str(tables_dir), game=g) for g in TABLE_LEVELS}


def random_positions(game: str, count: int, seed: int, plies=(0, 80)):
    """Positions reached by random legal play from the start (every end
    rule of the driver applied), for round trips."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        d = adji.Driver(game=game)
        n = rng.randint(*plies)
        for _ in range(n):
            moves = d.legal_moves()
            if not moves:
                break
            d.play(rng.choice(moves))
        out.append(d.position)
    return out
