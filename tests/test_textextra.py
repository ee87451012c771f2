"""Extra training data for the real-text fallback (opsbrain/kb/textextra.py; ``kb text-train --also FILE``,
``kb eval --real --cross-fit G --cross-fit-also FILE``, ``kb eval --real FILE --text-model M``): a blind set's labelled
excerpts change what is fitted, a healthy set's are read as ``other``, a label of no class is left out, an excerpt
whose id or text is in the corpus is refused (exit 2, one line), and every fold of a cross-fit gets the extras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.diagnosis.realtext import model_from_doc
from opsbrain.kb.realeval import split_of
from tests.test_realtext import _tiny_corpus

WORD = "zqwidget"
EXTRA = [  # two excerpts with a word no corpus excerpt has: in two documents, so in the vocabulary (min_df 2)
    {"id": "bx-01", "source": "https://example.org/a", "label": "framework_error", "confidence": "likely",
     "basis": "test", "trap": False, "root": None, "text": f"RuntimeError: {WORD} exploded in the operator"},
    {"id": "bx-02", "source": "https://example.org/b", "label": "framework_error", "confidence": "symptom",
     "basis": "test", "trap": False, "root": None, "text": f"TypeError: the {WORD} layer got a bad argument"},
]


def _root(tmp_path: Path) -> Path:
    (tmp_path / "c").mkdir()
    return _tiny_corpus(tmp_path / "c")


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump(rows), encoding="utf-8")
    return path


def test_two_extra_excerpts_change_the_vocabulary_and_the_reading(tmp_path: Path) -> None:
    from opsbrain.kb.realtext_fit import fit_text_model
    from opsbrain.kb.texttokens import text_tokens

    root = _root(tmp_path)
    extra = _write(tmp_path / "blind.yaml", EXTRA + [{**EXTRA[0], "id": "bx-03", "label": "node_hang",
                                                     "text": "a class the text model has not"}])
    alone = model_from_doc(fit_text_model(root, with_codes=False))
    doc = fit_text_model(root, with_codes=False, also=[extra])
    both = model_from_doc(doc)
    assert WORD not in alone.vocab and WORD in both.vocab
    probe = text_tokens(f"ValueError: {WORD} failed")
    k = both.classes.index("framework_error")
    assert both.proba(probe)[k] > alone.proba(probe)[alone.classes.index("framework_error")] + 0.05
    assert both.classes == alone.classes  # no class made (node_hang left out)
    assert doc["meta"]["also_excerpts"] == 2 and doc["meta"]["excerpts"] == alone.meta["excerpts"]
    (a,) = doc["meta"]["also"]
    assert a["kind"] == "fault" and a["labels"] == {"framework_error": 2} and a["left_out_no_class"] == ["bx-03"]


def test_a_healthy_set_is_read_as_other(tmp_path: Path) -> None:
    from opsbrain.kb.realtext_fit import extra_examples

    root = _root(tmp_path)
    healthy = _write(tmp_path / "h.yaml", [
        {"id": "bh-01", "source": "s", "program": "p", "basis": "b", "text": "WARNING: the cache is cold, warming up"},
        {"id": "bh-02", "source": "s", "program": "p", "basis": "b", "text": "INFO: started\nINFO: serving"}])
    extra, summary = extra_examples(root, [healthy], [], None)
    # "other" is a class of the fit when the dev excerpts have it; the tiny corpus has not: left out, no class made
    assert extra == [] and summary[0]["left_out_no_class"] == ["bh-01", "bh-02"]
    extra, summary = extra_examples(root, [healthy], [(["x"], "other")], None)
    assert [label for _d, label in extra] == ["other"]  # the INFO-only run gives no token: left out
    assert summary[0]["kind"] == "healthy" and summary[0]["left_out_no_token"] == 1


@pytest.mark.parametrize("split", ["dev", "test"])
def test_an_extra_excerpt_of_the_corpus_is_refused(tmp_path: Path, split: str) -> None:
    from opsbrain.cli import cli

    root = _root(tmp_path)
    rows = yaml.safe_load((root / "corpus_a.yaml").read_text(encoding="utf-8"))
    if split == "test":  # a test excerpt of the corpus (never fitted) given again as extra data
        tid = next(f"zz{i}" for i in range(200) if split_of(f"zz{i}") == "test")
        rows.append({**rows[0], "id": tid, "text": "only in the test split"})
        _write(root / "corpus_a.yaml", rows)
        clash = {**EXTRA[0], "id": tid}
    else:
        clash = {**EXTRA[0], "id": rows[0]["id"]}
    extra = _write(tmp_path / "blind.yaml", [clash, EXTRA[1]])
    out = tmp_path / "m.json"
    res = CliRunner().invoke(cli, ["kb", "text-train", "--real", str(root), "--also", str(extra), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "also in the real-log corpus" in res.output and len(res.output.strip().splitlines()) == 1
    assert not out.exists()
    same_text = _write(tmp_path / "blind2.yaml", [{**EXTRA[0], "text": rows[1]["text"]}])
    res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(root), "--split", "dev", "--cross-fit", "thread",
                                   "--cross-fit-also", str(same_text), "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 2 and "'s text is also in the real-log corpus" in res.output


def test_every_fold_is_fitted_on_the_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.kb import crossfit
    from opsbrain.kb.texttokens import text_tokens
    from tests.test_crossfit import _corpus

    monkeypatch.setattr("opsbrain.kb.crossfit.code_examples",
                        lambda: [(["npu", "memory"], "npu_oom"), (["version"], "config_error")])
    extra = [(text_tokens(str(e["text"])), str(e["label"])) for e in EXTRA]
    rows = _corpus()
    models = crossfit.fold_models(rows, "thread", folds=2, extra=extra)
    assert len({id(m) for m in models.values()}) == 2 and all(WORD in m.vocab for m in models.values())
    assert not any(WORD in m.vocab for m in crossfit.fold_models(rows, "thread", folds=2).values())


def test_eval_reads_with_the_given_text_model(tmp_path: Path) -> None:
    from opsbrain.cli import cli

    faults = _write(tmp_path / "f.yaml", [{**EXTRA[0], "text": f"RuntimeError: {WORD} exploded"}])
    doc = {"format": 1, "classes": ["config_error", "framework_error"], "intercept": [0.0, 0.0],
           "vocab": [[WORD, 1.0, [5.0, -5.0]]], "meta": {"excerpts": 1}}
    got = []
    for sign in (1, -1):
        m = tmp_path / f"m{sign}.json"
        m.write_text(json.dumps({**doc, "vocab": [[WORD, 1.0, [5.0 * sign, -5.0 * sign]]]}), encoding="utf-8")
        res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(faults), "--split", "all", "--text-model", str(m),
                                       "--data-dir", str(tmp_path / "d"), "--json"])
        assert res.exit_code in (0, 1), res.output
        got.append(json.loads(res.stdout)["rows"][0]["predicted"])
    assert got == ["config_error", "framework_error"]
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(faults), "--text-model", str(bad),
                                   "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 2 and "not a readable text model" in res.output
