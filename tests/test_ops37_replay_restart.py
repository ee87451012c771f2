"""Session 37 (ops37): a restart that a later isolation dooms does not open an incident of its own (since session 38
it is stopped at the isolation: tests/test_ops38_doomed_restart.py).

Two chips of one training job fail in the same second (the published InfiniteHBD trace's first two faults, day
3.8955). The first response swaps a spare and restarts the job; the second isolates its chip ~2 s into that restart.
The restart, placed before the isolation, fails at its end on the isolated chip's rank ("[rank31]: ... error code is
507033", device set-up failed). That line is the isolation's consequence: before session 37 it opened an incident of
its own, diagnosed "unknown" and paged a person (a false positive; 2 in a 54-day slice of the published trace). It
now joins the incident whose response holds the chip (the rank's device, read from the job's rank table).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain import chaos
from opsbrain.scenario import replay as rp
from tests.test_replay import ev, write

DBE = ("fault_start", "Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("seed", [0, 1])
def test_a_restart_failing_on_a_chip_isolated_since_it_began_is_that_isolations_incident(tmp_path: Path,
                                                                                       seed: int) -> None:
    events = [ev("srv0", 0.5, *DBE), ev("srv1", 0.5, *DBE), ev("srv2", 0.6, *DBE)]
    plan, _rep = rp.replay_plan(str(write(tmp_path, events)), time_unit="days", seed=seed)
    j = chaos.run(plan, None, say=lambda _m: None)
    rank_lines = [i for i in j["incidents"] if i["injected"] is None
                  and any("507033" in s["text"] for s in i.get("signals", []))]
    faults = {i["id"]: i for i in j["incidents"] if i["injected"] is not None}
    # since session 38 the doomed restart is stopped when the chip is isolated (tests/test_ops38_doomed_restart.py):
    # the 507033 line no longer arises here; if it does, it still joins the isolation's incident
    handed = [f for f in faults.values() if f.get("handed_to")]
    assert rank_lines or handed, "the situation under test did not arise (no restart doomed by an isolated chip)"
    for inc in rank_lines:
        assert not inc["false_positive"] and inc["joined"] is not None, inc
        owner = next(f for f in faults.values() if inc["joined"] in f["incident_ids"])
        chip = owner["injected"]["component"].rsplit("/", 1)[0]  # pod0/nodeN/npuK (the HBM's chip)
        assert any(a["action"] == "isolate" and a["target"] == chip for a in owner["actions"]), owner
        assert chip.split("/")[1] == inc["signals"][0]["host"].split("/")[1]
    assert j["summary"]["false_positives"] == 0, j["summary"]
