"""Session 47 (the lead): what session 46 left untested.

- A `decode_tokens_per_npu` probe with a fault at t=0 had no baseline (no fault-free moment was run, and the model
  stated none for that metric), so the probe was `unchecked` and the run `inconclusive`; the same fault at t=1
  `passed`. The model now states the service's fault-free decode rate per decode NPU.
- `served_fault_free` had no test of its own (review46b).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.runner.monitor import served_fault_free

SERVE = [{"name": "serve", "kind": "inference", "first_node": 0}]
LINK = "pod0/node3/l1sw0~pod0/l2plane0/sw01"
DECODE = {"name": "decode", "metric": "decode_tokens_per_npu", "workload": "serve", "op": ">=", "of_baseline": 0.95}


def _run(tmp_path: Path, at: float) -> dict[str, Any]:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": f"decode-probe-{at:g}", "description": "a decode probe and a link down"},
           "spec": {"duration": 1800, "seed": 1, "topology": {"pods": 1, "spares": 2}, "workloads": SERVE,
                    "steady_state": {"tolerance_s": 300, "probes": [DECODE]},
                    "faults": [{"at": at, "kind": "link_down", "target": LINK}]}}
    path = tmp_path / f"decode-{at:g}.yaml"
    path.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_a_decode_probe_with_a_fault_at_time_zero_has_the_models_baseline(tmp_path: Path) -> None:
    zero, one = _run(tmp_path, 0.0), _run(tmp_path, 1.0)
    assert one["steady_state"]["baseline_source"] == {"decode": "measured"}  # the control
    s0 = zero["steady_state"]
    assert s0["unchecked"] == [] and s0["baseline_source"] == {"decode": "model"}
    assert s0["baseline"]["decode"] == pytest.approx(one["steady_state"]["baseline"]["decode"], rel=1e-6)
    assert s0["hypothesis"] == one["steady_state"]["hypothesis"] != "unchecked"
    assert zero["verdict"] == one["verdict"]


class _Service:
    kind = "inference"

    def __init__(self, demand: float, capacity: float | None, output_tokens: int = 200) -> None:
        self.demand, self.capacity_req_s = demand, capacity
        self.p = type("P", (), {"output_tokens": output_tokens})()

    def rate_history(self) -> list[dict[str, float]]:
        return [{"t": 0.0, "demand_tokens_per_s": self.demand}, {"t": 60.0, "demand_tokens_per_s": 1.0}]


def test_served_fault_free_is_the_first_demand_at_most_the_capacity() -> None:
    assert served_fault_free(_Service(demand=5_000.0, capacity=100.0)) == 5_000.0  # demand below 100 x 200
    assert served_fault_free(_Service(demand=50_000.0, capacity=100.0)) == 20_000.0  # capped at capacity
    assert served_fault_free(_Service(demand=5_000.0, capacity=None)) == 0.0  # no capacity stated
    training = type("T", (), {"kind": "training", "nominal_rates": [(0.0, 1.0)]})()
    assert served_fault_free(training) == 0.0


def test_a_workload_with_a_bad_parameter_still_reserves_its_nodes(tmp_path: Path) -> None:
    """Session 46 (validate46) left it: a training job whose parameter is wrong reserved no nodes, so a second
    workload on the same nodes was refused only after the parameter was fixed. Its size does not depend on its
    parameters: both mistakes are said at once. A service whose size parameters are wrong reserves nothing (its size
    is not known), so no overlap is claimed for it."""
    from opsbrain import chaos as lib

    def paths(workloads: list[dict[str, Any]]) -> list[str]:
        doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
               "metadata": {"name": "overlap", "description": "two workloads on one node"},
               "spec": {"duration": 600, "seed": 1, "topology": {"pods": 1, "spares": 2}, "workloads": workloads,
                        "faults": [{"at": 100, "kind": "node_crash", "target": "pod0/node20"}]}}
        path = tmp_path / "overlap.yaml"
        path.write_text(yaml.safe_dump(doc))
        return [e.split(": ")[1] for e in lib.validate([str(path)])]

    bad_train = {"name": "a", "kind": "training", "first_node": 0, "nodes": 8, "params": {"no_such": 1}}
    assert paths([bad_train, {"name": "b", "kind": "training", "first_node": 4, "nodes": 4}]) == [
        "spec.workloads[0].params.no_such", "spec.workloads[1]"]
    bad_size = {"name": "s", "kind": "inference", "first_node": 0, "params": {"decode_nodes": -3}}
    assert paths([bad_size, {"name": "b", "kind": "training", "first_node": 30, "nodes": 4}]) == [
        "spec.workloads[0].params.decode_nodes"]


def test_logs_of_a_twin_bundle_is_not_capped_as_bundle_is_not(tmp_path: Path, engine: Any) -> None:
    """primcap46 caps a real-text answer no documented signature supports (hung tasks alone read the Qingtian card),
    but not on a bundle the twin wrote, where the association holds by construction: ``diagnose --bundle`` told the
    twin's export by its workers' names, ``--logs DIR`` of the same bundle capped it (0.905 against 0.6). A copy whose
    worker directory carries a real host's name is capped both ways (the control)."""
    import shutil

    from opsbrain import chaos
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.diagnosis.primcap import PRIMARY_CAP
    from opsbrain.runner.run import run_plan

    journal = run_plan(chaos.plan("qingtian-failure-training"), engine, bundle_dir=tmp_path / "out")
    twin = Path(next(b for b in journal["bundles"] if b["incident"].startswith("f"))["path"])
    by_bundle, by_logs = diagnose_bundle(twin, engine)["diagnosis"], diagnose_logs(str(twin), engine)["diagnosis"]
    assert by_bundle["fault_class"] == by_logs["fault_class"] == "qingtian_failure"
    assert by_logs["confidence"] > PRIMARY_CAP and by_bundle["confidence"] > PRIMARY_CAP
    real = tmp_path / "real"
    shutil.copytree(twin, real)
    for d in sorted(real.glob("pod0-node*")):
        d.rename(real / d.name.replace("pod0-node", "gpu-host-"))
    assert diagnose_logs(str(real), engine)["diagnosis"]["confidence"] <= PRIMARY_CAP


@pytest.mark.parametrize(("line", "host"), [
    # tester47b: onnxruntime's error line (microsoft/onnxruntime#21352's form) named its exception as the root host
    ("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : CANNGRAPH failure "
     "1343225857: GE error", None),
    ("urllib3.exceptions.MaxRetryError: HTTPConnectionPool(host='127.0.0.1', port=8000): Max retries exceeded "
     "with url: /v1/models EL0004: Failed to allocate memory.", None),
    # the controls: a fan-out tool's host before the line stays the line's host
    ("worker-3: [ERROR] RUNTIME(1,python):2024-01-01-00:00:00.000.000 EL0004: Failed to allocate memory.",
     "worker-3"),
    ("10.0.0.5: [ERROR] EL0004: Failed to allocate memory.", "10.0.0.5"),
])
def test_a_python_exceptions_dotted_name_is_no_host(line: str, host: str | None, engine: Any) -> None:
    import io

    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest.surface import head_source, plain

    text, prefix = plain(line)
    assert (head_source(prefix) if prefix else None) == host
    assert host is not None or text == line  # the exception's name stays on its line
    d = diagnose_logs("-", engine, stdin=io.BytesIO((line + "\n").encode()))["diagnosis"]
    assert d["fault_class"] != "unknown" and d["root"]["host"] == host


STOP = """\
Traceback (most recent call last):
  File "/root/YoloV3/mmdetection/mmdet/models/detectors/base.py", line 251, in train_step
    losses = self(**data)
  File "/usr/local/python3.7.5/lib/python3.7/site-packages/torch/nn/modules/module.py", line 660, in __call__
    var = next((v for v in var.values() if isinstance(v, torch.Tensor)))
StopIteration
"""
"""The last frames of the Ascend/pytorch porting guide FAQ's mmdetection case (tester47k's b47k-05: the whole
traceback read nothing but its header and abstained)."""


def test_an_uncaught_stop_iteration_is_the_programs_failure(engine: Any) -> None:
    import io

    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest.text import ingest_text

    assert "py:StopIteration" in [s.kind for s in ingest_text(STOP)[0]]
    d = diagnose_logs("-", engine, stdin=io.BytesIO(STOP.encode()))["diagnosis"]
    assert d["fault_class"] == "framework_error" and any(e["kind"] == "py:StopIteration" for e in d["evidence_lines"])
    for quiet in ("    raise StopIteration", "INFO the loader caught StopIteration and ended the epoch",
                  "RuntimeError: generator raised StopIteration"):  # a frame, a sentence, PEP 479's RuntimeError
        assert "py:StopIteration" not in [s.kind for s in ingest_text(quiet + "\n")[0]], quiet
