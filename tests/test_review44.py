"""Session 44 review (review44): defects found in what landed this session, each test failing before its fix.

- The readout cap (conf44) was lifted by a readout itself: ``net health status: Receive timeout`` (``hccn_tool -i N
  -net_health -g``'s whole answer, a readout by :func:`opsbrain.ingest.readouts.is_readout`) holds an error word, so
  the text view counted it as a line saying a program failed; ``link status: DOWN`` with it read roce_port_down 0.76.
- ``readouts.RE_HEALTH_FIELD`` split a run of spaces between two repeats (``\\s*[^:\\[\\]]+$``): 0.12 s for one 4 KB
  line the hccn parser reads as a net-health readout.
- A triggered fault (newuser44's not_reached) whose trigger fired but whose start (event + ``after_s``) fell after the
  run's end was in no count and said nowhere: "1 fault" for a scenario of two, as newuser44 found for timed faults.
- ``count(1.0000001, "day", spec="g")`` printed ``1 days``: the noun followed the number, not what was shown.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.regex_shape import shape_problems

LINK = "$ hccn_tool -i 0 -link -g\nlink status: DOWN\n"
HEALTH = "$ hccn_tool -i 0 -net_health -g\nnet health status: Receive timeout\n"


def _verdict(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_a_net_health_readout_does_not_lift_the_readout_cap(engine: Any) -> None:
    from opsbrain.diagnosis.statecap import READOUT_CAP

    d = _verdict(engine, LINK + HEALTH)
    assert d["fault_class"] == "roce_port_down"
    assert d["confidence"] <= READOUT_CAP, d
    assert any("readout" in e for e in d["evidence"]), d["evidence"]


def test_a_failing_program_beside_the_readouts_still_lifts_the_cap(engine: Any) -> None:
    # the job's own error (a program saying it failed) is no readout: the answer keeps the model's confidence
    d = _verdict(engine, LINK + HEALTH + "[ERROR] HCCL(1234,python):2025-03-01 10:00:01 socket timeout, "
                                         "rank 3 connect to rank 4 failed\n")
    assert not any("readout" in e for e in d["evidence"]), d["evidence"]


def test_the_net_health_field_regex_is_linear() -> None:
    from opsbrain.ingest.readouts import RE_HEALTH_FIELD

    assert shape_problems(RE_HEALTH_FIELD.pattern) == []
    line = "net health status:" + " " * 4000 + "Receive timeout:"
    t0 = time.perf_counter()
    assert RE_HEALTH_FIELD.search(line) is None
    assert time.perf_counter() - t0 < 0.02
    for ok in ("net health status: Receive timeout", "  Net Health Status :  Init  ", "net health status: Success"):
        assert RE_HEALTH_FIELD.search(ok), ok
    for no in ("net health status: a:b", "[ERROR] net health status: Receive timeout", "net health status: [x]",
               "net health status:   "):
        assert not RE_HEALTH_FIELD.search(no), no


def test_a_triggered_fault_due_after_the_end_is_said(tmp_path: Path) -> None:
    from opsbrain.cli import cli

    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "late-trigger", "description": "review44"},
           "spec": {"duration": 1800, "seed": 3,
                    "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
                    "faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node33"},
                               {"at": {"event": "fault_start", "fault": 0, "after_s": 1700}, "kind": "hbm_uce",
                                "target": "pod0/node40/npu3/hbm"}]}}
    f = tmp_path / "late.yaml"
    f.write_text(yaml.safe_dump(doc))
    runner = CliRunner()
    res = runner.invoke(cli, ["chaos", "run", str(f), "--data-dir", str(tmp_path / "home"), "--json"])
    assert res.exit_code in (0, 1), res.output
    j = json.loads(res.stdout)
    assert j["status"] == "finished" and j["summary"]["incidents"] == 1
    assert j["summary"]["faults_not_reached"] == [
        {"fault": 1, "kind": "hbm_uce", "target": "pod0/node40/npu3/hbm", "at_s": 2000.0, "source": "scripted"}]
    text = runner.invoke(cli, ["chaos", "run", str(f), "--data-dir", str(tmp_path / "home")]).stdout
    assert ("faults[1] (hbm_uce on pod0/node40/npu3/hbm): scheduled at 2000 s, not reached: the run ended at "
            "1800 s") in text


def test_the_noun_follows_the_number_shown() -> None:
    from opsbrain.report.text import count

    assert count(1.0000001, "day", spec="g") == "1 day"
    assert count(1.0, "day", spec="g") == "1 day"
    assert count(1.5, "day", spec="g") == "1.5 days"
    assert count(0.99999, "day", spec="g") == "0.99999 days"
    assert count("?", "day", spec="g") == "? days"
