"""The cross-fitted dev figure (opsbrain/kb/crossfit.py, ``kb eval --real --split dev --cross-fit``): each dev
excerpt's fallback model never saw the excerpt's thread or project, the test split never reaches it, the served model
is the fold's, and the CLI refuses it outside the dev split."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.diagnosis import realtext
from opsbrain.kb import crossfit, textcv
from opsbrain.kb.realeval import split_of

TEXTS = {  # two threads per class, two excerpts per thread, each thread with a word of its own
    "npu_oom": ["RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB {w}",
                "torch.OutOfMemoryError: NPU out of memory {w} while allocating"],
    "config_error": ["ImportError: libhccl.so: cannot open shared object file {w}",
                     "RuntimeError: the CANN version does not match the driver {w}"],
}


def _ids(split: str, n: int) -> list[str]:
    out, i = [], 0
    while len(out) < n:
        if split_of(f"cf{i}") == split:
            out.append(f"cf{i}")
        i += 1
    return out


def _corpus() -> list[dict]:
    ids = iter(_ids("dev", 16))
    rows = []
    for label, texts in TEXTS.items():
        for t in range(2):
            word = f"zq{label.replace('_', '')}thread{'ab'[t]}"
            for k in range(2):
                rows.append({"id": next(ids), "label": label, "confidence": "firm", "file": "corpus_a.yaml",
                             "source": f"https://github.com/o{t}/{label}/issues/{t}#c{k} (thread)", "split": "dev",
                             "text": texts[k].format(w=word), "word": word})
    return rows


@pytest.fixture()
def no_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two documented examples in place of the ~700 codes a fit: the folds are what is tested, not the codes (every
    fold still sees both classes)."""
    monkeypatch.setattr("opsbrain.kb.crossfit.code_examples",
                        lambda: [(["npu", "memory"], "npu_oom"), (["version"], "config_error")])


def test_each_excerpt_is_read_by_a_model_that_never_saw_its_thread(no_codes: None) -> None:
    rows = _corpus()
    models = crossfit.fold_models(rows, "thread", folds=2)
    assert set(models) == {r["id"] for r in rows}
    for r in rows:
        vocab = models[r["id"]].vocab
        assert r["word"] not in vocab  # the thread's own word: only in the two excerpts of its thread
        trained_on = [s for s in rows if models[s["id"]] is not models[r["id"]]]
        assert trained_on and all(s["word"] in vocab for s in trained_on)
    assert len({id(m) for m in models.values()}) == 2
    assert crossfit.thread_of("https://github.com/O/R/issues/7#issuecomment-1 (forum)") == \
        "https://github.com/o/r/issues/7"


def test_the_test_split_never_reaches_a_fold_model() -> None:
    rows = _corpus()
    test_id = _ids("test", 1)[0]
    leaked = rows + [{**rows[0], "id": test_id, "split": "dev"}]
    with pytest.raises(textcv.LeakError):
        crossfit.fold_models(leaked, "project")


def test_answer_reads_with_the_served_model() -> None:
    doc = {"classes": ["config_error", "npu_oom"], "intercept": [0.0, 0.0],
           "vocab": [["memory", 1.0, [-5.0, 5.0]]], "meta": {}}
    model = realtext.model_from_doc(doc)
    view = realtext.TextView()
    view("RuntimeError: NPU out of memory", None, 1)
    with realtext.serving(model):
        got = realtext.answer(view)
    assert got is not None and got.cls == "npu_oom" and got.probability > 0.99
    flipped = realtext.model_from_doc({**doc, "vocab": [["memory", 1.0, [5.0, -5.0]]]})
    with realtext.serving(flipped):
        got = realtext.answer(view)
    assert got is not None and got.cls == "config_error"


def _write(tmp: Path, rows: list[dict]) -> Path:
    keep = ("id", "source", "label", "confidence", "basis", "trap", "root", "text")
    (tmp / "corpus_a.yaml").write_text(yaml.safe_dump(
        [{k: r.get(k, {"basis": "b", "trap": False, "root": None}.get(k)) for k in keep} for r in rows]))
    return tmp


def test_cli_cross_fits_the_dev_split_only(tmp_path: Path, no_codes: None) -> None:
    from opsbrain.cli import cli

    root = _write(tmp_path / "c", _corpus()) if (tmp_path / "c").mkdir() is None else None
    data = tmp_path / "data"
    res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(root), "--split", "test", "--cross-fit", "thread",
                                   "--data-dir", str(data)])
    assert res.exit_code == 2 and "--split dev" in res.output
    res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(root), "--split", "dev", "--cross-fit", "thread",
                                   "--data-dir", str(data)])
    assert res.exit_code in (0, 1), res.output  # 1: below the 0.85 bar on this toy corpus
    assert "cross-fitted" in res.output and "firm_or_likely: n 8," in res.output
