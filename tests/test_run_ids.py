"""Tester D13: a campaign's auto and manual runs of one seed got ids that differ only by a "-2" suffix; the policy is
part of a run id now, ids stay unique (a second run of the same policy in the same second takes the suffix) and
ids stored before keep working."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from opsbrain import store as store_mod
from opsbrain.store import RunStore


class _Frozen(datetime):
    @classmethod
    def now(cls, tz: object = None) -> _Frozen:  # type: ignore[override]
        return cls(2026, 12, 5, 3, 0, 0, tzinfo=UTC)


def test_runs_of_one_seed_under_two_policies_differ_by_their_policy(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_mod, "datetime", _Frozen)
    store = RunStore(tmp_path)
    auto = store.begin_run("campaign-llama3-1pod-10d", 6, "auto", campaign_id="c1")
    manual = store.begin_run("campaign-llama3-1pod-10d", 6, "manual", campaign_id="c1")
    again = store.begin_run("campaign-llama3-1pod-10d", 6, "auto")
    assert auto == "20261205T030000-campaign-llama3-1pod-10d-s6-auto"
    assert manual == "20261205T030000-campaign-llama3-1pod-10d-s6-manual"
    assert again == auto + "-2" and store.new_run_id("campaign-llama3-1pod-10d", 6, "auto") == auto + "-3"


def test_a_run_id_stored_before_keeps_working(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    old = "20261205T024627-campaign-llama3-1pod-10d-s6-2"  # the form ids had before the policy was in them
    store.start(old, "campaign-llama3-1pod-10d", 6, "manual")
    store.finish(old, {"verdict": "passed", "incidents": []})
    assert (store.get_run(old) or {})["policy"] == "manual" and store.get_journal(old) is not None
