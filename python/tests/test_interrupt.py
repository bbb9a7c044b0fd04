"""Ctrl-C stops long calls: a timer thread raises SIGINT in the main thread
(`_thread.interrupt_main`) while the call runs with the GIL released."""

from __future__ import annotations

import _thread
import signal
import threading
import time

import pytest

import adji


def interrupted_after(delay: float, call) -> float:
    """Runs `call` with a Ctrl-C after `delay` s; returns the seconds until
    KeyboardInterrupt came out of it. Python's own SIGINT handler is put in
    place for the call: a process started in the background by a shell
    inherits SIGINT ignored, and then `interrupt_main` does nothing."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(delay, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    return time.monotonic() - t0


def test_ctrl_c_stops_an_exact_solve():
    # Adjito's start without tables takes far longer than its 60 s limit;
    # the interrupt must stop it at once
    took = interrupted_after(0.5, lambda: adji.solve("start", threads=2, hash_mib=16, time=60))
    assert took < 5


def test_ctrl_c_stops_analyse():
    took = interrupted_after(0.5, lambda: adji.analyse("start", game="adjiboto", time=60))
    assert took < 5


def test_ctrl_c_stops_a_table_build(tmp_path):
    events = []
    took = interrupted_after(
        1.0, lambda: adji.build_tables(str(tmp_path), 24, progress=events.append)
    )
    assert took < 10
    assert events, "the build had started"
    # whatever was written checks: a later build resumes from it
    t = adji.Tables(str(tmp_path))
    assert 1 <= t.covered < 25


def test_ctrl_c_stops_perft():
    took = interrupted_after(0.5, lambda: adji.perft("start", 14))
    assert took < 5


def test_the_gil_is_released_during_a_solve():
    # another Python thread runs while a solve holds the worker threads
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    th = threading.Thread(target=tick)
    th.start()
    try:
        r = adji.solve("start", threads=1, time=1.0, hash_mib=16)
    finally:
        stop.set()
        th.join()
    assert not r["exact"] and r["lower"] <= r["upper"]
    assert len(ticks) > 20
