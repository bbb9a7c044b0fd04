"""Issue 49: a damaged compressed block is never a value in Python either,
and a count out of range is an AdjiError, not an OverflowError."""

from __future__ import annotations

import numpy as np
import pytest

import adji

# Where the block index starts in a `.adjz` file, and its entry size.
INDEX_AT, INDEX_ENTRY = 128 + 64, 12

NINE = ["1,0,2,0,0,1/0,1,0,3,1,0 A 20-19", "2,1,0,0,1,0/0,0,3,0,1,1 A 19-20",
        "0,0,1,1,1,1/1,1,1,1,1,0 B 24-15", "3,0,0,0,0,0/0,0,0,0,0,6 A 30-9"]


def damage_every_block(path) -> int:
    """Flips a bit in the middle of every block (checksums left as they
    were); returns the number of blocks."""
    b = bytearray(path.read_bytes())
    blocks = int.from_bytes(b[56:64], "little")

    def at(i):
        o = INDEX_AT + i * INDEX_ENTRY
        return int.from_bytes(b[o:o + 8], "little")

    for i in range(blocks):
        b[(at(i) + at(i + 1)) // 2] ^= 0x10
    path.write_bytes(bytes(b))
    return blocks


@pytest.fixture
def damaged(run, tmp_path):
    raw, z = tmp_path / "raw", tmp_path / "z"
    for args in (("tables", "build", "--game", "adjito", "--max-seeds", "9", "--dir", str(raw)),
                 ("tables", "compress", "--dir", str(raw), "--out", str(z), "--block", "700")):
        r = run.run(*args)
        assert r.returncode == 0, r.stderr
    assert damage_every_block(z / "adjito-start-009.adjz") > 3
    return z


def assert_names_the_block(e):
    msg = str(e.value)
    assert "adjito-start-009.adjz" in msg and "block " in msg, msg


def test_a_damaged_block_is_refused_by_every_reader(damaged):
    t = adji.Tables(str(damaged), trust=True)
    assert t.covered == 10
    for pos in NINE:
        with pytest.raises(adji.AdjiError) as e:
            t.probe(pos)
        assert_names_the_block(e)
        with pytest.raises(adji.AdjiError) as e:
            t.value(pos)
        assert_names_the_block(e)
        with pytest.raises(adji.AdjiError) as e:
            adji.solve(pos, tables=t, threads=1)
        assert_names_the_block(e)
        with pytest.raises(adji.AdjiError) as e:
            adji.Solver(tables=t, threads=1).solve(pos)
        assert_names_the_block(e)
    boards = np.array([adji.Position(p).board for p in NINE], dtype=np.int64)
    with pytest.raises(adji.AdjiError) as e:
        adji.probe_boards(t, boards)
    assert_names_the_block(e)
    with pytest.raises(adji.AdjiError) as e:
        t.stats(9)
    assert_names_the_block(e)
    # Checked in full (the default), the level is refused when opened.
    with pytest.raises(adji.AdjiError, match="block 0"):
        adji.Tables(str(damaged))


@pytest.mark.parametrize("call", [
    lambda t: t.stats(-1),
    lambda t: adji.solve("start", nodes=-5),
    lambda t: adji.solve("start", threads=-1, nodes=10),
    lambda t: adji.Solver(hash_mib=-1),
    lambda t: adji.analyse("start", depth=-2),
    lambda t: adji.perft("start", -1),
    lambda t: adji.build_tables("unused", -1),
    lambda t: t.stats(2**70),
])
def test_counts_out_of_range_are_adji_errors(tables, call):
    with pytest.raises(adji.AdjiError, match="out of range"):
        call(tables["adjito"])
