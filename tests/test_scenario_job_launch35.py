"""The journal's ``recovery.job_launch`` says what each training job was launched with (session 35): a scenario
that sets ``ckpt_interval_s: 1200`` for its job ran with 1200 s (the scenario's own setting wins over the auto
policy's, ``runner.world.launch_params``), while the journal said 10800 s, the policy's default."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opsbrain import chaos
from opsbrain.kb.training import load_engine
from opsbrain.recovery.params import RecoveryParams
from opsbrain.runner.run import run_plan

ROOT = Path(__file__).resolve().parents[1]


def _scenario(tmp_path: Path, params: dict[str, float]) -> str:
    doc = yaml.safe_load((ROOT / "scenarios" / "node-crash-training.yaml").read_text())
    doc["spec"].update(duration=900, noise=False, steady_state={}, expectations=[], sweeps={"enabled": False})
    doc["spec"]["faults"] = [{"at": 300, "kind": "node_crash", "target": "pod0/node38"}]
    for w in doc["spec"]["workloads"]:
        if w["kind"] == "training":
            w["params"] = params
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


@pytest.mark.parametrize(("policy", "own", "interval"), [
    ("auto", {"ckpt_interval_s": 1200.0}, 1200.0),
    ("auto", {}, RecoveryParams().persistent_ckpt_interval_s),
    ("manual", {}, None),  # the job's own (training.ckpt_interval_s), not the auto policy's
])
def test_job_launch_is_what_the_job_ran_with(tmp_path: Path, policy: str, own: dict[str, float],
                                            interval: float | None) -> None:
    plan = chaos.plan(_scenario(tmp_path, own), policy=policy)
    journal = run_plan(plan, load_engine())
    launched = journal["recovery"]["job_launch"]
    (name,) = [w["name"] for w in journal["workloads"] if w["kind"] == "training"]
    expected = interval if interval is not None else plan.params.training.ckpt_interval_s
    assert launched[name]["ckpt_interval_s"] == expected
    assert launched[name]["op_retry_max_cnt"] == (10 if policy == "auto" else plan.params.training.op_retry_max_cnt)
