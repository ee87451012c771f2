"""Model files (issue 19): ``kb train`` writes to the data directory, ``diagnose``/``kb eval --model`` use another
model file, checked with its sidecar as a pair; the shipped model is never written by default."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.diagnosis.model import DiagnosisModel, sidecar
from opsbrain.kb.training import kb_hash, load_engine, shipped_model_path, trained_model_path

UCE = "[ERROR] RAS(1234,devmm):2026-01-01-00:00:00.000.000 [hbm] HBM multi-bit ECC error, uncorrectable (UCE)"


def _copy_model(dst: Path, note: str) -> Path:
    """A copy of the shipped pair whose sidecar carries ``note`` (same arrays: the digest still matches)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(shipped_model_path(), dst)
    meta = json.loads(sidecar(shipped_model_path()).read_text())
    sidecar(dst).write_text(json.dumps(meta | {"note": note}))
    return dst


def _invoke(args: list[str], home: Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, args, env={"OPSBRAIN_HOME": str(home)})
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr


def test_engine_prefers_the_trained_model_in_the_data_directory(tmp_path: Path) -> None:
    assert "note" not in load_engine(tmp_path).model.meta  # nothing trained here: the shipped model
    _copy_model(trained_model_path(tmp_path), "trained here")
    assert load_engine(tmp_path).model.meta["note"] == "trained here"
    other = _copy_model(tmp_path / "elsewhere" / "m.npz", "explicit")
    assert load_engine(tmp_path, model=other).model.meta["note"] == "explicit"


def test_kb_train_writes_to_the_data_directory_not_the_package(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import opsbrain.kb.training as training

    shipped = shipped_model_path()
    before = (shipped.stat().st_mtime_ns, sidecar(shipped).read_bytes())
    model = DiagnosisModel.load(shipped, kb_hash())  # stands in for minutes of training: the path is under test
    monkeypatch.setattr(training, "train_model", lambda **_kw: model)
    code, out, err = _invoke(["kb", "train", "--json", "--data-dir", str(tmp_path)], tmp_path)
    assert code == 0, err
    assert json.loads(out)["path"] == str(tmp_path / "models" / "diagnosis.npz")
    assert DiagnosisModel.load(tmp_path / "models" / "diagnosis.npz", kb_hash()).classes == model.classes
    assert (shipped.stat().st_mtime_ns, sidecar(shipped).read_bytes()) == before


def test_diagnose_with_a_model_file(tmp_path: Path) -> None:
    logs = tmp_path / "device.log"
    logs.write_text(UCE + "\n")
    good = _copy_model(tmp_path / "good.npz", "x")
    code, out, err = _invoke(["diagnose", "--logs", str(logs), "--model", str(good), "--json"], tmp_path)
    assert code == 0, err
    assert json.loads(out)["diagnosis"]["fault_class"]


@pytest.mark.parametrize("damage", ["no_sidecar", "wrong_digest", "not_npz", "missing"])
def test_a_bad_model_file_is_one_line_exit_2(tmp_path: Path, damage: str) -> None:
    logs = tmp_path / "device.log"
    logs.write_text(UCE + "\n")
    path = _copy_model(tmp_path / "m.npz", "x")
    if damage == "no_sidecar":
        sidecar(path).unlink()
    elif damage == "wrong_digest":
        meta = json.loads(sidecar(path).read_text())
        sidecar(path).write_text(json.dumps(meta | {"arrays_sha256": "0" * 64}))
    elif damage == "not_npz":
        path = path.with_suffix(".bin")
    else:
        path = tmp_path / "none.npz"
    for args in (["diagnose", "--logs", str(logs)], ["kb", "eval", "--quick"]):
        code, _out, err = _invoke([*args, "--model", str(path)], tmp_path)
        lines = [x for x in err.splitlines() if x.strip()]
        assert code == 2 and len(lines) == 1 and "--model" in lines[0] and str(path) in lines[0], (code, err)


def test_kb_train_takes_the_forest_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Session 49 (kbstable49): ``kb train --seed N`` refits with another forest seed on the same case library, the
    noise floor a knowledge-base refit is measured against (a refit at seed 1 moved 2 of 535 blind answers)."""
    import opsbrain.kb.training as training

    model = DiagnosisModel.load(shipped_model_path(), kb_hash())  # stands in for minutes of training
    seeds: list[int] = []

    def fake(**kw: int) -> DiagnosisModel:
        seeds.append(kw.get("seed", 0))
        return model

    monkeypatch.setattr(training, "train_model", fake)
    code, _, err = _invoke(["kb", "train", "--json", "--seed", "1", "--out", str(tmp_path / "m.npz")], tmp_path)
    assert code == 0, err
    assert seeds == [1]
