"""Issue 17, through the whole chain: a training node's Qingtian card (its VPC and storage path) fails while the job
writes its hourly checkpoint. The write fails instead of completing; the in-place recovery runs although the
write was under way (no escalation, no spare used) and the card's replacement ticket is opened."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from tests.test_chaos_run import run, scenario_file


def test_a_card_failing_mid_write_fails_the_write_and_recovers_in_place(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "qingtian-failure-training", **{"spec.duration": 12600})
    data = yaml.safe_load(path.read_text())
    # under the auto policy the first persistent write starts at the step boundary after 3 h (10,910.0 s in this
    # scenario, seed 7) and takes 47 s: the card fails 20 s into it
    data["spec"]["faults"][0]["at"] = 10930
    path.write_text(yaml.safe_dump(data))
    code, out, err = run(CliRunner(), "chaos", "run", str(path), "--json", home=tmp_path)
    assert "Traceback" not in err
    j = json.loads(out)
    inc = next(i for i in j["incidents"] if (i["injected"] or {}).get("kind") == "qingtian_failure")
    acts = [(a["action"], a["status"]) for a in inc["actions"]]
    assert ("restart_process", "succeeded") in acts
    assert ("ticket", "succeeded") in acts
    assert not any(a == "swap_spare" for a, _s in acts)
    train = next(w for w in j["workloads"] if w["name"] == "train")
    assert train["persistent_ckpts"] == 0  # the interrupted write did not count; its retry is 3 h later
    assert train["in_place_recoveries"] == 1 and train["restarts"] == 0


def test_a_write_retried_while_the_card_is_still_out_fails_on_its_node_not_rank_0s() -> None:
    """Session 35 (a tester's repro): the card is replaced by ticket, so the next persistent write fails while it is
    out. That I/O error was printed as rank 0's on the job's first node, whose storage path is sound; the diagnosis
    then blamed that node's card and replaced a healthy one. Each rank writes its own shard: the error is the
    writer's on the node whose storage path is lost."""
    from faultlib.engine import Simulation
    from faultlib.health import Health
    from faultlib.workloads.training import TrainingJob

    sim = Simulation(pods=1, seed=3)
    nodes = [f"pod0/node{i}" for i in range(32, 36)]
    job = TrainingJob("train", nodes, sim.params.training.model_copy(update={"ckpt_interval_s": 600.0}))
    sim.add_workload(job)
    sim.run(30.0)
    sim.state.set_health("pod0/node34/qingtian", Health.FAILED)
    sim.run(1500.0)
    errors = [ln for ln in sim.telemetry.logs if "Input/output error" in ln.text]
    assert errors, "no persistent write was tried while the card was out"
    assert {ln.origin for ln in errors} == {"pod0/node34"}
    assert all(f"[rank{job._rank_for('pod0/node34')}]:" in ln.text for ln in errors)
    assert job._rank_for("pod0/node34") != 0
