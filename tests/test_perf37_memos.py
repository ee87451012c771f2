"""Session 37's cheaper paths give what the paths they replace gave: the controller's scheduled calls run in the order
a waiting process's would, the topology's cached part walks equal a fresh walk, the memoised slog stamp prints each
time zone's own wall time, and a long run's collector pace is restored after it."""

from __future__ import annotations

import gc
from collections.abc import Callable, Generator
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
import simpy

from faultlib.telemetry.devicelines import slog_stamp
from faultlib.topology import Topology
from opsbrain.controller import Controller
from opsbrain.recovery.targets import COMPUTE_KINDS
from opsbrain.runner.gcpace import GEN0_THRESHOLD, long_run_gc


def _by_process(env: simpy.Environment, delay: float, fn: Callable[[], None]) -> None:
    """The controller's scheduling before session 37: a process that waits ``delay`` and calls ``fn``."""
    def proc() -> Generator[simpy.Event, Any, None]:
        yield env.timeout(delay)
        fn()

    env.process(proc())


def _order(schedule: Callable[[simpy.Environment, float, Callable[[], None]], None]) -> list[str]:
    """Calls scheduled among plain timeouts due at the same moments, from a process and from callbacks."""
    env = simpy.Environment()
    out: list[str] = []

    def note(name: str) -> Callable[[], None]:
        return lambda: out.append(name)

    def at(delay: float, name: str) -> None:
        env.timeout(delay).callbacks.append(lambda _e: out.append(name))

    def script() -> Generator[simpy.Event, Any, None]:
        schedule(env, 1.0, note("a"))
        at(1.0, "plain-1")  # due with "a": set after it, before its start event runs
        schedule(env, 0.0, note("b"))
        at(0.0, "plain-0")
        yield env.timeout(0.5)
        schedule(env, 0.5, lambda: (out.append("c"), schedule(env, 0.0, note("d")), at(0.0, "plain-2")))
        at(0.5, "plain-3")

    env.process(script())
    env.run()
    return out


def test_scheduled_calls_run_where_a_process_would() -> None:
    def controller(env: simpy.Environment, delay: float, fn: Callable[[], None]) -> None:
        Controller._schedule(SimpleNamespace(sim=SimpleNamespace(env=env)), delay, fn)  # type: ignore[arg-type]

    want = _order(_by_process)
    assert want.index("plain-1") < want.index("a")  # the case a direct timeout would reverse
    assert _order(controller) == want


def _walk(topo: Topology, cid: str) -> list[str]:
    out, stack = [], [cid]
    while stack:
        for c in topo.children.get(stack.pop(), []):
            out.append(c)
            stack.append(c)
    return out


def test_cached_part_walks_equal_a_fresh_walk() -> None:
    topo = Topology.build(pods=1)
    for cid in ["pod0/node0", "pod0/node0/npu3", *topo.nodes()[:3]]:
        got = topo.descendants(cid)
        assert got == _walk(topo, cid)
        got.append("not a part")  # a caller's list is its own
        assert topo.descendants(cid) == _walk(topo, cid)
        assert topo.parts_of(cid, COMPUTE_KINDS) == tuple(
            d for d in _walk(topo, cid) if topo.kind.get(d) in COMPUTE_KINDS)


def test_slog_stamp_memo_keeps_each_zone_apart() -> None:
    utc = datetime(2025, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
    plus1 = utc.astimezone(timezone(timedelta(hours=1)))
    assert utc == plus1  # one instant, two wall times
    assert slog_stamp(utc) == "2025-03-01-10:00:00.123.456"
    assert slog_stamp(plus1) == "2025-03-01-11:00:00.123.456"
    assert slog_stamp(utc.replace(tzinfo=None)) == "2025-03-01-10:00:00.123.456"


def test_a_long_run_collects_the_young_generation_less_often_and_restores_the_pace() -> None:
    before = gc.get_threshold()
    with long_run_gc():
        assert gc.get_threshold() == (max(before[0], GEN0_THRESHOLD), *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), long_run_gc():
        raise RuntimeError("stopped")
    assert gc.get_threshold() == before


def test_a_long_run_leaves_automatic_collection_off_when_it_was() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(0, *before[1:])
        with long_run_gc():
            assert gc.get_threshold()[0] == 0
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)
