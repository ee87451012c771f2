"""The diagnosis engine: shipped model and sidecar, held-out diagnoses, abstention, one-click diagnosis of text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from faultlib.telemetry import formats as fmt
from opsbrain.cli import cli
from opsbrain.diagnosis.model import DiagnosisModel, ModelMismatch, sidecar
from opsbrain.ingest import Signal
from opsbrain.kb import cases as case_lib
from opsbrain.kb.training import kb_hash, load_engine, shipped_model_path
from opsbrain.runner.scoring import localized


@pytest.fixture(scope="module")
def engine():  # type: ignore[no-untyped-def]
    return load_engine()


def test_shipped_model_matches_this_install(engine) -> None:  # type: ignore[no-untyped-def]
    meta = engine.model.meta
    assert meta["kb_hash"] == kb_hash() and meta["cases"] > 1000 and meta["cv_accuracy"] > 0.9
    assert set(engine.model.classes) >= set(case_lib.KINDS)


def test_loading_refuses_a_mismatched_sidecar(tmp_path: Path) -> None:
    model = tmp_path / "m.npz"
    shutil.copy(shipped_model_path(), model)
    meta = json.loads(sidecar(shipped_model_path()).read_text())
    sidecar(model).write_text(json.dumps(meta | {"format": 1}))
    with pytest.raises(ModelMismatch, match="format"):
        DiagnosisModel.load(model, kb_hash())
    sidecar(model).write_text(json.dumps(meta | {"arrays_sha256": "0" * 64}))
    with pytest.raises(ModelMismatch, match="digest"):
        DiagnosisModel.load(model, kb_hash())
    sidecar(model).write_text(json.dumps(meta))
    with pytest.raises(ModelMismatch, match="kb_hash"):
        DiagnosisModel.load(model, "another knowledge base")


@pytest.mark.parametrize("kind", ["node_crash", "l2_switch_failure", "hbm_uce", "link_down", "roce_port_down",
                                  "aicore_hang", "qingtian_failure"])
def test_held_out_incidents_are_classified_and_localized(engine, topo1, kind: str) -> None:  # type: ignore[no-untyped-def]
    seed = case_lib.EVAL_SEEDS[0] + case_lib.KINDS.index(kind)
    cases = [c for c in case_lib.run_case(seed, kind, topo=topo1, keep_signals=True) if c.injected]
    assert cases, f"no incident for {kind}"
    last = cases[-1]
    d = engine.decide(last.features, last.signals, last.at_s)
    assert d.fault_class == kind and d.confidence >= 0.5
    assert localized(kind, str(last.component), d.component), (d.component, last.component)
    assert d.evidence and d.runbook == "rb-" + kind.replace("_", "-")


def test_unfamiliar_signals_abstain(engine) -> None:  # type: ignore[no-untyped-def]
    sigs = [Signal(0.0, "dev:DEADBEEF", "pod0/node1/npu2", "pod0/node1", 2, "x"),
            Signal(0.5, "dev:0BADF00D", "pod0/node1/npu2", "pod0/node1", 2, "y")]
    d = engine.diagnose_signals(sigs, 1.0)
    assert d.abstained and d.runbook is None and any("unfamiliar" in e for e in d.evidence)
    assert engine.diagnose_signals([], 0.0).abstained


def _diag(tmp_path: Path, text: str | bytes, *extra: str) -> tuple[int, dict, str]:
    f = tmp_path / "pasted.log"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(f), "--json", *extra],
                             env={"OPSBRAIN_HOME": str(tmp_path)})
    return res.exit_code, json.loads(res.stdout) if res.stdout.strip() else {}, res.stderr


def test_pasted_uce_logs_are_diagnosed(tmp_path: Path) -> None:
    from datetime import datetime

    dt = datetime(2025, 3, 1, 10, 3, 20)
    lines = [fmt.device_os_event(dt, 3, "80E01801"),
             fmt.plog_runtime_error(dt, 1234, 1235, 507053, 3),
             fmt.device_plugin_fault(dt, 3, "80E01801", "RestartBusiness")]
    text = "\n".join(line.replace("dev3", "dev3") for line in lines) + "\n"
    code, out, err = _diag(tmp_path, "pod0-node7 " + text.replace("\n", "\npod0-node7 "))
    assert code == 0, err
    assert out["diagnosis"]["fault_class"] == "hbm_uce"
    assert out["diagnosis"]["component"] == "pod0/node7/npu3/hbm"
    assert any(k["code"] == "80E01801" for k in out["knowledge"])


@pytest.mark.parametrize("junk", [bytes(range(256)) * 20, b"x" * 2_000_000 + b"\n", "故障 日志 无法 解析\n" * 50,
                                  b"\x00\x00\n\n\r\n"])  # no bytes at all is refused (test_cli_ux33, session 33)
def test_any_text_gets_an_answer(tmp_path: Path, junk: bytes | str) -> None:
    code, out, err = _diag(tmp_path, junk)
    assert code == 0 and "Traceback" not in err
    assert out["diagnosis"]["fault_class"] == "unknown"


def test_incident_file_and_its_errors(tmp_path: Path) -> None:
    good = tmp_path / "incident.json"
    dt = __import__("datetime").datetime(2025, 3, 1)
    lines = []
    for n in range(48):  # what one L2 chip's death shows: every node's uplink alarm (the dead chip logs nothing)
        lines.append({"t": 0, "source": "switch", "text": fmt.switch_alarm(dt, f"pod0-node{n}-l1sw3", "0x08520003",
                                                                           "L2", 7)})
    good.write_text(json.dumps({"lines": lines}))
    res = CliRunner().invoke(cli, ["diagnose", str(good), "--json"], env={"OPSBRAIN_HOME": str(tmp_path)})
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["diagnosis"]["fault_class"] == "l2_switch_failure"
    assert out["diagnosis"]["component"] == "pod0/l2plane3/sw07"
    bad = tmp_path / "bad.json"
    bad.write_text('{"lines": [{"t": "soon", "text": "x"}]}')
    res = CliRunner().invoke(cli, ["diagnose", str(bad)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and "lines[0].t" in res.stderr and "Traceback" not in res.stderr


def test_array_forest_equals_the_fitted_pipeline() -> None:
    """Parity: the exported arrays give the fitted scikit-learn pipeline's probabilities."""
    import numpy as np

    rng = np.random.default_rng(0)
    feats = [{f"f{j}": float(rng.random()) for j in rng.choice(8, size=4, replace=False)} for _ in range(200)]
    labels = ["a" if f.get("f1", 0) + f.get("f2", 0) > 0.7 else ("b" if f.get("f3", 0) > 0.5 else "c")
              for f in feats]
    m = DiagnosisModel.train(feats, labels, "h", seed=1)
    want = m.pipeline.predict_proba(feats)
    got = m.predict_proba(feats)
    assert np.allclose(want, got, atol=1e-6)


def test_link_evidence_names_tied_chips_in_a_fixed_order() -> None:
    """Two L2 chips tie: the sentence names the first in sorted order (not whatever set order the hash seed gives)."""
    from opsbrain.diagnosis.engine import evidence
    from opsbrain.ingest import NO_HISTORY, Signal

    links = ["pod0/node3/l1sw2~pod0/l2plane2/sw09", "pod0/node3/l1sw1~pod0/l2plane1/sw04"]
    sigs = [Signal(0.0, "sw:down", ln, None, 2, "x") for ln in links]
    line = next(e for e in evidence(sigs, NO_HISTORY) if "links down" in e)
    assert "1 share L2 chip pod0/l2plane1/sw04" in line
