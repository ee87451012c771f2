"""Tester 36c (session 36): a replay stopped early reports its interruption rate over the days it replayed.

``chaos replay --run`` of the published InfiniteHBD trace stopped by SIGTERM after ~30 s printed "replay: 0.000757
interruptions per node-day" beside the trace's 0.007244: the 64 faults of the ~30 days it replayed were divided by
all 349 days of the trace. The figure is now over the replayed window (time 0 to where the run stopped), with the
trace's own rate over the same days beside it, and the text says the run stopped early.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from opsbrain import chaos
from opsbrain.scenario import replay as rp
from tests.test_replay import GENERATED, write


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_an_interrupted_replay_counts_interruptions_over_the_days_it_replayed(tmp_path: Path) -> None:
    events = [e for e in json.loads(GENERATED.read_text()) if e["event_time"] <= 40.0]
    plan, rep = rp.replay_plan(str(write(tmp_path, events)), time_unit="days")
    stop_at = rep.trace.end_s / 2

    def ctrl_c(now: float, _end: float) -> None:  # the operator's Ctrl-C, half-way through the trace
        if now >= stop_at:
            raise KeyboardInterrupt

    journal = chaos.run(plan, progress=ctrl_c)
    assert journal["status"] == "interrupted" and journal["ended_at_s"] < rep.trace.end_s
    r = rp.replay_statistics(plan, rep, journal)
    days = journal["ended_at_s"] / 86400
    assert r["days"] == pytest.approx(days, abs=1e-3) and r["stopped_early"], r
    trace_in = sum(1 for f in rep.trace.faults if f.start_s <= journal["ended_at_s"])
    servers = rep.trace.statistics()["servers"]
    assert r["trace_interruptions_per_node_day"] == pytest.approx(trace_in / (servers * days), rel=1e-3)
    assert math.isclose(r["interruptions_per_node_day"], r["trace_interruptions_per_node_day"], rel_tol=0.25), r
    out = rp.summary(rep, plan) | {"run": r | {"run_id": journal["run_id"]}}
    text = "\n".join(rp.summary_lines(out))
    assert "stopped early" in text and f"{days:.1f}" in text, text
