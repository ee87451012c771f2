"""Tester 36c (session 36): a day/night schedule whose window cannot show what its bounds check.

``dusk: '30 21 * * *'``, ``dawn: '0 7 * * *'`` over the schedule's default 31 h (from midnight) puts the dawn at
111,600 s, the schedule's very end: no hand-back ran, "hand-backs on time 0/0" met the hand-back bound vacuously.
A switch fault on a switch the window never holds (``switch: 5`` of two) was silently never injected. Both are now
refused at load, one line each with their YAML path, exit 2 (as a scripted fault at or after the run's end is).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from opsbrain.cli import cli


def _write(tmp_path: Path, schedule: dict[str, Any]) -> Path:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "dn36c", "description": "day/night window"},
           "spec": {"duration": 111600, "seed": 1, "superpod": {"seeds": 1, "schedule": schedule}}}
    path = tmp_path / "dn36c.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _validate(path: Path) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["chaos", "validate", str(path)])
    return res.exit_code, res.output


def test_a_schedule_with_no_hand_back_in_its_window_is_refused(tmp_path: Path) -> None:
    code, out = _validate(_write(tmp_path, {"dusk": "30 21 * * *", "dawn": "0 7 * * *"}))
    assert code == 2, out
    lines = [x for x in out.splitlines() if x.strip()]
    assert len(lines) == 1 and "spec.superpod.schedule.dawn" in lines[0] and "hand-back" in lines[0], out
    assert "Traceback" not in out


def test_a_switch_fault_on_a_switch_the_window_never_holds_is_refused(tmp_path: Path) -> None:
    code, out = _validate(_write(tmp_path, {"faults": [{"switch": 1, "after": 60}, {"switch": 5, "after": 60}]}))
    assert code == 2, out
    lines = [x for x in out.splitlines() if x.strip()]
    assert len(lines) == 1 and "spec.superpod.schedule.faults[1].switch" in lines[0] and "2 switches" in lines[0], out


def test_the_built_in_day_night_schedule_is_valid(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["chaos", "validate", "day-night-switch"])
    assert res.exit_code == 0, res.output
