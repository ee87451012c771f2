"""Review43c: a chaos run's stop hold (operator43, :mod:`opsbrain.stophold`) in the paths its tests did not take.

- A run whose scoring fails with an error (not a stop) left SIGINT and SIGTERM noted by the hold for the rest of the
  process: ``chaos.run`` hands ``run_plan`` its hold and released it only on KeyboardInterrupt.
- A stop during a scenario's ``spec.superpod`` block (run after the chaos run, with the stop no longer held) left
  the run ``running`` with no journal, although the chaos run's own journal was complete.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from opsbrain import chaos
from opsbrain.runner import run as runner_run
from opsbrain.store import RunStore

SCENARIO = "hbm-uce-training"  # one hour, one fault: a few seconds


def _handlers() -> dict[int, Any]:
    return {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}


def test_handlers_restored_when_scoring_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("scoring failed")

    monkeypatch.setattr(runner_run, "score", broken)
    before = _handlers()
    with pytest.raises(RuntimeError, match="scoring failed"):
        chaos.run(chaos.plan(SCENARIO), store=RunStore(tmp_path / "home"), home=tmp_path / "home")
    assert _handlers() == before  # a Ctrl-C after this acts again


def test_stop_during_the_superpod_block_keeps_the_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = chaos.plan(SCENARIO)
    original = runner_run.run_plan

    def then_a_block(*a: Any, **k: Any) -> Any:  # the scenario has a superpod block once the chaos run is over
        out = original(*a, **k)
        object.__setattr__(p.scenario.spec, "superpod", object())  # (a frozen model; this plan is the test's own)
        return out

    def stopped(*_a: Any, **_k: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner_run, "run_plan", then_a_block)
    monkeypatch.setattr(chaos, "run_superpod_block", stopped)
    store = RunStore(tmp_path / "home")
    with pytest.raises(KeyboardInterrupt):
        chaos.run(p, store=store, home=tmp_path / "home")
    runs = store.list_runs()
    assert len(runs) == 1 and runs[0]["status"] == "interrupted", runs
    journal = store.get_journal(runs[0]["id"])
    assert journal is not None and journal["verdict"] == "aborted"
    assert any(i.get("injected") for i in journal["incidents"])  # the chaos run's own journal, complete
    assert _handlers()[signal.SIGINT] is signal.default_int_handler
