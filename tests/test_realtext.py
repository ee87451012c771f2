"""The real-text fallback (opsbrain.diagnosis.realtext, fitted by opsbrain.kb.realtext_fit): served in plain Python
with the fitted scikit-learn pipeline's probabilities, fitted on the dev split only, answering only where the signal
verdict abstains on a failure with no hardware evidence, and citing its lines."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.realtext import (
    ANSWERABLE,
    CONFIDENCE_CAP,
    MODEL_FILE,
    TextView,
    answer,
    excerpt_view,
    load_model,
    model_from_doc,
)
from opsbrain.kb.realeval import default_corpus_dir

CORPUS = default_corpus_dir()
needs_corpus = pytest.mark.skipif(CORPUS is None, reason="the real-log corpus is not in this checkout")


def _excerpt(i: int, label: str, text: str, file: str = "corpus_a.yaml") -> dict[str, Any]:
    return {"id": f"zz{i}", "source": "built here", "label": label, "confidence": "firm", "basis": "test",
            "trap": False, "root": None, "text": text}


def _tiny_corpus(tmp_path: Path, oom: bool = False) -> Path:
    """A small corpus of dev ids (the split is the id's hash: only dev ids are kept); ``oom``: a third class."""
    import yaml

    from opsbrain.kb.realeval import split_of

    texts = {"config_error": ["ImportError: libascendcl.so: cannot open shared object file: No such file or directory",
                              "environment variable ASCEND_HOME_PATH is not set, check the installation path",
                              "the CANN version does not match the driver version, install a matching toolkit"],
             "framework_error": ["RuntimeError: shape mismatch in operator MatMul, input dims do not agree",
                                 "TypeError: forward() got an unexpected keyword argument in the model code",
                                 "AttributeError: module object has no attribute in the operator registration"]}
    if oom:
        texts["npu_oom"] = ["RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB",
                            "halMemAlloc failed, out of memory on the device, reduce the batch size"]
    rows, i = [], 0
    for label, lines in texts.items():
        for line in lines:
            while split_of(f"zz{i}") != "dev":
                i += 1
            rows.append(_excerpt(i, label, line))
            i += 1
    (tmp_path / "corpus_a.yaml").write_text(yaml.safe_dump(rows), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("oom", [False, True], ids=["binary", "multinomial"])
def test_served_probabilities_equal_the_fitted_pipelines(tmp_path: Path, oom: bool) -> None:
    from opsbrain.kb.realtext_fit import (
        SIGNAL_REPEAT,
        _docs,
        _fit,
        dev_excerpts,
        fit_text_model,
    )
    from opsbrain.kb.textcodes import code_examples
    from opsbrain.kb.textcv import STRENGTH, kinds_of

    root = _tiny_corpus(tmp_path, oom)
    codes = code_examples() if oom else []  # without the documented codes, two classes: scikit-learn's binary form
    doc = fit_text_model(root, with_codes=oom)
    served = model_from_doc(json.loads(json.dumps(doc)))
    assert served.meta["signal_repeat"] == SIGNAL_REPEAT and any(t.startswith("sig:") for t in served.vocab)
    excerpts = dev_excerpts(root)
    vec, clf = _fit(_docs(excerpts), [e["label"] for e in excerpts], STRENGTH, codes)
    probe = ["the driver version does not match the CANN toolkit", "RuntimeError: operator shape mismatch",
             "nothing known here at all", "NPU out of memory in the operator",
             "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB"]
    from opsbrain.kb.texttokens import signal_tokens, text_tokens

    toks = [text_tokens(t) + signal_tokens(kinds_of(t), SIGNAL_REPEAT) for t in probe]
    assert any(t.startswith("sig:") for t in toks[-1])
    want = clf.predict_proba(vec.transform(toks))
    for tokens, row in zip(toks, want, strict=True):
        got = served.proba(tokens)
        assert list(served.classes) == [str(c) for c in clf.classes_]
        assert got == pytest.approx([float(v) for v in row], abs=1e-5)


def test_the_test_split_never_reaches_the_fit(tmp_path: Path) -> None:
    import yaml

    from opsbrain.kb.realeval import split_of
    from opsbrain.kb.realtext_fit import chronological
    from opsbrain.kb.textcv import LeakError

    test_id = next(f"zz{i}" for i in range(100) if split_of(f"zz{i}") == "test")
    with pytest.raises(LeakError):
        chronological([{**_excerpt(0, "config_error", "x"), "id": test_id, "file": "corpus_a.yaml",
                        "split": "test"}])
    root = _tiny_corpus(tmp_path)
    rows = yaml.safe_load((root / "corpus_a.yaml").read_text(encoding="utf-8"))
    rows.append({**_excerpt(0, "framework_error", "only in the test split"), "id": test_id})
    (root / "corpus_a.yaml").write_text(yaml.safe_dump(rows), encoding="utf-8")
    from opsbrain.kb.realtext_fit import dev_excerpts

    assert test_id not in {e["id"] for e in dev_excerpts(root)}  # read from the corpus: dev only


def test_the_view_reads_a_paste_whole_and_a_large_log_by_its_failure_and_the_lines_around_it() -> None:
    view = TextView(limit=3)
    for i, line in enumerate(["a", "b", "a", "", "c"], 1):
        view(line, None, i)
    assert [t for _f, _n, t in view.lines()] == ["a", "b", "c"] and not view.overflow
    for i, line in enumerate(["d", "RuntimeError: boom", "e", "aclInit failed"], 6):
        view(line, "x.log", i)
    # past the view's size only lines with an error word are looked at (d, e are not); the line that states the
    # failure is read with the kept lines before it (realtext.LONG_INPUT), and no more once the limit is reached
    assert view.overflow and [t for _f, _n, t in view.lines()] == ["a", "b", "c", "RuntimeError: boom"]
    assert excerpt_view("x\nx\ny\n") == "x\ny"


@pytest.mark.parametrize(("line", "head", "want"), [
    ("May  1 10:11:12 node-39 kernel: RuntimeError: boom", "", "RuntimeError: boom"),  # syslog's head off
    ("5\u6708 01 10:11:14 kylin10-5077 kubelet[84415]: aclInit failed", "", "aclInit failed"),  # the zh journal's
    ("[INFO] RUNTIME(12345,python3):2024-05-01-10:11:12.000.000 [runtime.cc:1120] Init: device init success", "",
     None),  # a plog line stated at INFO
    ("Loading model weights took 15.3 GB", "INFO 05-01 10:11:12 model_runner.py:1025] ", None),  # vLLM's INFO head
    ("Loading model weights took 15.3 GB", "2024-05-01 10:11:12,345 INFO ", None),  # Python logging's
    ("RuntimeError: boom", "(Worker_DP0_TP1 pid=12) ERROR 05-01 10:11:12 [multiproc_executor.py:340] ",
     "RuntimeError: boom"),
    ("gpu-srv42.dc1.example.com: RuntimeError: boom", "", "RuntimeError: boom"),  # pdsh's head
    ("CANN failure 507013: NPU=0 ; hostname=davinci-mini ; expr=x", "",
     "CANN failure 507013: NPU=0 ; hostname=  ; expr=x"),  # the host a line names
    ("[Runtime] [2022-11-30 00:22:53] [INFO]: Start time:2022-11-30 00:22:53", "", None),  # an installer's INFO
    ("[Runtime] [2022-11-30 00:22:53] [ERROR]: install failed", "", "[Runtime] [2022-11-30 00:22:53] [ERROR]: "
     "install failed"),
])
def test_collection_heads_and_info_lines_stay_out_of_the_view(line: str, head: str, want: str | None) -> None:
    view = TextView()
    view(line, None, 1, head)
    assert [t for _f, _n, t in view.lines()] == ([want] if want else [])


@pytest.mark.parametrize(("line", "says_failure"), [
    ("double free or corruption(!prev)", True),  # glibc's malloc abort (malloc/malloc.c malloc_printerr)
    ("device 0, vpc address is illegal, please make sure it has been allocated with acldvppMalloc.", True),
    ("[Venc]:venc_drv_check_resolution [Line]:342 max picture width (0) err! should in [128,4096]!", True),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 32768.0", False),  # a routine step
    ("queue is full, waiting", False),  # routine back-pressure
    ("Segmentation fault (core dumped)", True),
    ("Kernel panic - not syncing: Fatal exception", True),
    ("the default value of the fault tolerance window is 30 s", False),  # 'default' is no fault
    ("Loading safetensors checkpoint shards: 100% Completed | 4/4", False),
])
def test_generic_failure_words_open_the_view_to_a_line(line: str, says_failure: bool) -> None:
    view = TextView(limit=1)
    view("filler", None, 1)
    view(line, None, 2)  # past the limit, only a line with an error word is kept
    assert bool(view.errors) is says_failure


@pytest.mark.parametrize(("line", "head", "failing"), [
    ("[Runtime] [2022-11-30 00:22:53] [WARNING]: Cannot find the install path of driver.", "", 0),  # installer
    ("[WARNING] DRV(2696,npu-smi):2025-12-27-16:23:28.931.243 [dm_poller.c:896] [dmp] [poller_run 896] The system "
     "does not support adjusting sched priority, try using default thread priority", "", 0),
    ("Failed to read the config, using defaults", "WARNING 05-01 10:11:12 [config.py:12] ", 0),  # vLLM's head
    ("[Runtime] [2022-11-30 00:22:53] [ERROR]: Cannot find the install path of driver.", "", 1),
    ("RuntimeError: Cannot find the install path of driver.", "", 1),  # no level stated: a failure's words
])
def test_an_error_word_stated_at_warning_level_is_read_but_says_no_failure(line: str, head: str,
                                                                          failing: int) -> None:
    view = TextView()
    view(line, None, 1, head)
    assert len(view.errors) == 1 and view.failing == failing


@pytest.mark.skipif(load_model() is None, reason="no shipped text model")
def test_the_shipped_model_answers_only_answerable_classes_at_a_capped_confidence() -> None:
    model = load_model()
    assert model is not None and set(ANSWERABLE) <= set(model.classes)
    view = TextView()
    view("RuntimeError: Failed to load the CANN runtime library, please check the installation and version", None, 1)
    a = answer(view, model)
    assert a is not None and a.cls in ANSWERABLE and a.confidence <= CONFIDENCE_CAP and a.lines == view.lines()


@pytest.mark.skipif(not MODEL_FILE.exists(), reason="no shipped text model")
def test_the_raw_copy_of_the_text_model_serves_the_parsed_weights_bit_for_bit(tmp_path: Path) -> None:
    """Session 36: the weights kept raw in the cache (written by the first load, read by the next) give the model the
    JSON file gives: its tokens in order, every weight, and so every probability and line weight; a damaged copy is
    not read."""
    import random

    from opsbrain.diagnosis.realtext import CACHE_PREFIX

    parsed = model_from_doc(json.loads(MODEL_FILE.read_bytes()))
    load_model.cache_clear()
    assert load_model(MODEL_FILE, tmp_path) == parsed  # parsed, and the copy written
    (copy,) = tmp_path.glob(f"{CACHE_PREFIX}*")
    load_model.cache_clear()
    served = load_model(MODEL_FILE, tmp_path)
    assert served is not None and not isinstance(served.vocab, dict)  # read from the copy
    assert served == parsed and list(served.vocab) == list(parsed.vocab) and "no such token" not in served.vocab
    rng = random.Random(3)
    tokens = list(parsed.vocab)
    for _ in range(200):
        line = [rng.choice(tokens) for _ in range(rng.randrange(1, 50))] + ["no such token"]
        assert served.proba(line) == parsed.proba(line)
        assert all(served.weight(line, c) == parsed.weight(line, c) for c in parsed.classes)
    raw = bytearray(copy.read_bytes())
    raw[-3] ^= 1
    copy.write_bytes(bytes(raw))
    load_model.cache_clear()
    again = load_model(MODEL_FILE, tmp_path)
    assert again is not None and isinstance(again.vocab, dict) and again == parsed  # parsed again
    load_model.cache_clear()


@pytest.mark.skipif(not MODEL_FILE.exists(), reason="no shipped text model")
def test_a_raw_copy_made_under_another_format_is_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 36: the cache is named by the file's digest alone, so a copy written while the file's format was read
    must not serve it once the code reads another format (the JSON path then refuses the file: no model)."""
    import opsbrain.diagnosis.textmodel as rt  # (the module whose format load_model reads)

    load_model.cache_clear()
    assert load_model(MODEL_FILE, tmp_path) is not None  # the copy written under this format
    monkeypatch.setattr(rt, "FORMAT", rt.FORMAT + 1)
    load_model.cache_clear()
    try:
        assert load_model(MODEL_FILE, tmp_path) is None
    finally:
        load_model.cache_clear()


@needs_corpus
@pytest.mark.skipif(not MODEL_FILE.exists(), reason="no shipped text model")
def test_the_shipped_model_is_fitted_on_the_current_dev_corpus() -> None:
    """A corpus change without a refit fails here: run ``opsbrain kb text-train --force``."""
    from opsbrain.kb.realtext_fit import corpus_digest, dev_excerpts

    assert CORPUS is not None
    meta = json.loads(MODEL_FILE.read_bytes())["meta"]
    assert meta["corpus_digest"] == corpus_digest(dev_excerpts(CORPUS)), "refit: opsbrain kb text-train --force"


@needs_corpus
@pytest.mark.skipif(not MODEL_FILE.exists(), reason="no shipped text model")
def test_the_shipped_model_was_fitted_on_the_tokens_the_parsers_give_today() -> None:
    """A parser change that moves a signal kind of a dev excerpt, without a refit, fails here: the served model would
    read inputs otherwise than it was fitted (run ``opsbrain kb text-train --force``)."""
    from opsbrain.kb.realtext_fit import dev_excerpts, tokens_digest

    assert CORPUS is not None
    meta = json.loads(MODEL_FILE.read_bytes())["meta"]
    assert meta["tokens_digest"] == tokens_digest(dev_excerpts(CORPUS)), "refit: opsbrain kb text-train --force"
    assert meta["split"] == "dev" and meta["precision_out_of_part"] is not None


@pytest.mark.skipif(not MODEL_FILE.exists(), reason="no shipped text model")
def test_the_shipped_model_was_fitted_on_the_documented_codes_of_today() -> None:
    """A codes.yaml / categories.yaml / code-table change without a refit fails here (``opsbrain kb text-train``)."""
    from opsbrain.kb.textcodes import code_digest, code_examples

    meta = json.loads(MODEL_FILE.read_bytes())["meta"]
    assert meta["code_digest"] == code_digest(code_examples()), "refit: opsbrain kb text-train --force"
    assert meta["code_examples"] == len(code_examples()) > 0


def test_documented_codes_give_examples_of_the_one_class_their_category_names() -> None:
    """A row whose category is primary for one class is an example of it, with its code and template as words; a
    category that is secondary or ambiguous for every class, or a row marked ambiguous, gives none."""
    import knowledge_base
    from opsbrain.kb.textcodes import code_texts
    from opsbrain.yamlio import read_package_yaml

    texts = code_texts()
    cats = read_package_yaml(knowledge_base.package_dir() / "categories.yaml")
    codes = read_package_yaml(knowledge_base.package_dir() / "codes.yaml")
    rows = [r for rs in codes.values() if isinstance(rs, list) for r in rs if isinstance(r, dict)]
    primary = {k: [c for c, role in v.items() if role == "primary"] for k, v in cats.items() if v}
    kept = [r for r in rows if len(primary.get(r.get("category"), [])) == 1 and not r.get("ambiguous")]
    assert len(texts) == len(kept) and 100 < len(kept) < len(rows) - 100
    for r in kept:
        if "code" in r:
            assert any(str(r["code"]) in t.split()[:6] and c == primary[r["category"]][0] for t, c in texts), r
    assert not {"parameter_or_usage", "internal", "timeout"} & {r.get("category") for r in kept}
    star = [str(r["code"]) for r in kept if str(r.get("code", "")).startswith("ERR**")]
    assert star and all(any(f"ERR01{c[5:]} " in t and f"{c} " in t for t, _c in texts) for c in star), star
    oom = [t for t, c in texts if c == "npu_oom"]
    assert oom and all(isinstance(t, str) and t for t in oom)


def _diagnose(text: str, **params: Any) -> dict[str, Any]:
    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.diagnosis.engine import Engine
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.diagnosis.params import DiagnosisParams
    from opsbrain.kb.training import load_engine

    engine = load_engine(None, say=lambda m: None)
    if params:
        engine = Engine(engine.model, DiagnosisParams(**params))
    return diagnose_logs("-", engine, _matcher(None), stdin=io.BytesIO(text.encode()))


# A line of no documented family (a made-up tool's failure): the signal verdict has nothing to read.
UNREAD = "2026-01-02 10:00:00 ERROR the quantisation tool failed: calibration dataset path is not set in the config\n"


@pytest.mark.skipif(load_model() is None, reason="no shipped text model")
def test_an_abstention_on_a_failure_is_answered_by_the_words_and_cites_its_lines() -> None:
    off = _diagnose(UNREAD, text_fallback=False)["diagnosis"]
    assert off["fault_class"] == "unknown"
    res = _diagnose(UNREAD)
    d = res["diagnosis"]
    assert d["decided_by"] == "text" and d["fault_class"] in ANSWERABLE and d["confidence"] <= CONFIDENCE_CAP
    assert d["evidence_lines"][0]["line"] == 1 and d["evidence_lines"][0]["kind"] == "text"
    assert any("text fallback" in e for e in d["evidence"]) and d["runbook"]


@pytest.mark.skipif(load_model() is None, reason="no shipped text model")
def test_a_line_both_read_as_a_signal_and_cited_by_the_words_is_listed_once() -> None:
    # an error code of no table (read as an unfamiliar err: signal) on the line the fallback cites
    d = _diagnose("EZ1234: " + UNREAD.split(" ERROR ", 1)[1])["diagnosis"]
    assert d["decided_by"] == "text"
    rows = [(r["file"], r["line"]) for r in d["evidence_lines"]]
    assert rows.count(rows[0]) == 1 and len(rows) == len(set(rows))


@pytest.mark.parametrize("text", [
    # an HBM uncorrectable ECC event beside the Python error: hardware evidence, never the words
    "[ERROR] DRV(1,python):2024-01-01-00:00:00.000.000 fault event id 0x80E01801 on device 3\n"
    "RuntimeError: the operator failed to run, please check the installation and the version\n",
    # a run stopped with Ctrl-C: a traceback header, nothing failed
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\nKeyboardInterrupt\n",
    # an exception the program logged as a warning and survived
    "WARNING:root:RuntimeError: could not load the optional plugin, falling back\n",
])
def test_hardware_evidence_or_no_failure_keeps_the_words_out(text: str) -> None:
    assert _diagnose(text)["diagnosis"]["decided_by"] == "signals"


def test_kb_text_train_writes_a_model_and_refuses_a_wrong_name(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    root = _tiny_corpus(tmp_path / "c") if (tmp_path / "c").mkdir() is None else None
    assert root is not None
    out = tmp_path / "m.json"
    res = CliRunner().invoke(cli, ["kb", "text-train", "--real", str(root), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["meta"]["excerpts"] == 6 and set(doc["classes"]) >= {"config_error", "framework_error"}
    assert doc["meta"]["code_examples"] > 0  # the documented codes' classes are among the model's
    assert set(doc["meta"]["second_opinion_check"]) >= {"n", "changed", "to_right", "from_right"}
    bad = CliRunner().invoke(cli, ["kb", "text-train", "--real", str(root), "--out", str(tmp_path / "m.npz")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


# ---- the second opinion: the words against a weak answer of the engine -------------------------------------------
def _second_opinion(monkeypatch: pytest.MonkeyPatch, *, engine_cls: str = "framework_error", engine_conf: float = 0.5,
                    text_cls: str = "config_error", text_p: float = 0.7, documented: frozenset[str] = frozenset(),
                    vendor: bool = False) -> Any:
    """``text_fallback`` on a one-line failure whose engine verdict and text reading are given (the text model's
    answer is fixed here, so that what is tested is the rule, not the shipped model)."""
    import opsbrain.diagnosis.realtext as realtext
    from opsbrain.diagnosis.oneclick import text_fallback
    from opsbrain.ingest import Signal
    from opsbrain.kb.training import load_engine
    from opsbrain.verdict import Diagnosis

    line = "RuntimeError: the operator failed to run"
    view = TextView()
    view(line, None, 1)
    sigs = [Signal(0.0, "py:RuntimeError", None, None, 2, line, line_no=1)]
    if vendor:
        sigs.append(Signal(0.0, f"vendor:{engine_cls}", None, None, 2, line, line_no=1))
    fixed = realtext.TextAnswer(text_cls, min(text_p, CONFIDENCE_CAP), text_p, [("npu_oom", 0.05)],
                                [(None, 1, line)], "the words")
    monkeypatch.setattr(realtext, "answer", lambda v, model=None, kinds=(): fixed)
    engine = load_engine(None, say=lambda m: None)
    d = Diagnosis(engine_cls, None, engine_conf, ["a program's own failure is triaged"], 0.0)
    return text_fallback(engine, d, sigs, view, 0.0, documented)


def test_the_words_overrule_a_weak_answer_and_keep_it_first_among_the_alternatives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    d, lines = _second_opinion(monkeypatch)
    assert d.fault_class == "config_error" and d.confidence == CONFIDENCE_CAP and lines
    assert d.alternatives[0] == ("framework_error", 0.5) and all(c != "other" for c, _ in d.alternatives)
    assert any("is weak" in e for e in d.evidence)


@pytest.mark.parametrize("case", [
    {"engine_conf": 0.6},  # not weak
    {"text_p": 0.35},  # the words are not sure enough to overrule
    {"text_cls": "framework_error"},  # the words agree
    {"engine_cls": "hbm_uce"},  # not a class the words answer
    {"vendor": True},  # a vendor entry took part
    {"documented": frozenset({"framework_error"})},  # a documented match names the verdict's class
    {"documented": frozenset({"hbm_uce"})},  # a documented code of hardware
    {"documented": frozenset({"npu_oom"})},  # matches name another class than the words'
])
def test_a_weak_answer_stands_where_a_guard_holds(monkeypatch: pytest.MonkeyPatch, case: dict[str, Any]) -> None:
    d, lines = _second_opinion(monkeypatch, **case)
    assert d.fault_class == case.get("engine_cls", "framework_error") and not lines


def test_a_documented_match_of_the_words_class_lets_them_overrule(monkeypatch: pytest.MonkeyPatch) -> None:
    d, _ = _second_opinion(monkeypatch, documented=frozenset({"config_error"}))
    assert d.fault_class == "config_error"


def test_the_second_opinion_check_counts_changes_to_and_from_right() -> None:
    from opsbrain.kb.realtext_fit import second_opinion_check

    ex = [{"id": i, "label": lab} for i, lab in (("a", "config_error"), ("b", "framework_error"), ("c", "config_error"),
                                                 ("d", "config_error"), ("e", "config_error"))]
    readings = {"a": ("config_error", 0.7), "b": ("config_error", 0.7), "c": ("config_error", 0.3),
                "d": ("config_error", 0.9), "e": ("config_error", 0.9)}
    engine = {"a": ("framework_error", 0.5),  # weak and wrong: the words put it right
              "b": ("framework_error", 0.5),  # weak and right: the words put it wrong
              "c": ("framework_error", 0.5),  # the words too unsure
              "d": ("framework_error", 0.7),  # not weak
              "e": ("hbm_uce", 0.5)}  # not a class the words answer
    got = second_opinion_check(ex, readings, engine)
    assert (got["n"], got["changed"], got["to_right"], got["from_right"]) == (5, 2, 1, 1)


def test_part_of_reads_parts_after_z_as_later_parts() -> None:
    from opsbrain.kb.realtext_fit import part_of

    parts = [part_of({"file": f}) for f in ("corpus_za.yaml", "corpus_q.yaml", "corpus_z.yaml", "corpus_zb.yaml")]
    assert parts == ["za", "q", "z", "zb"]
    assert sorted(parts) == ["q", "z", "za", "zb"]


def test_the_words_do_not_depend_on_how_a_device_is_spelt() -> None:
    # each spelling the robustness variants use (opsbrain.ingest.variants.DEVICE_FORMS) gives the same tokens
    from opsbrain.ingest.variants import DEVICE_FORMS
    from opsbrain.kb.texttokens import text_tokens

    line = "[ERROR] RUNTIME(10686,msame):2025-03-19-15:09:45.659 MallocPcieBarBuffer:Pcie Host Register failed, {dev}."
    seen = {tuple(text_tokens(line.format(dev=form.format(n=3)))) for form in DEVICE_FORMS}
    assert len(seen) == 1 and "device" in next(iter(seen))


def test_signal_tokens_are_the_distinct_kinds_repeated_without_levels_or_vendor_votes() -> None:
    from opsbrain.kb.texttokens import signal_tokens

    kinds = ["cfg:env", "level:error", "vendor:hbm_uce", "cfg:env", "py:RuntimeError"]
    assert signal_tokens(kinds) == ["sig:cfg:env", "sig:py:RuntimeError"]
    assert signal_tokens(iter(kinds), 2) == ["sig:cfg:env", "sig:py:RuntimeError"] * 2
    assert signal_tokens([], 2) == []


def test_the_signal_kinds_of_the_input_move_the_words_reading() -> None:
    # a tiny served model in which one signal kind, not any word, points to npu_oom
    model = model_from_doc({"format": 1, "classes": ["config_error", "npu_oom"], "intercept": [0.5, -0.5],
                            "vocab": [["failed", 1.0, [0.2, 0.0]], ["sig:mem:oom", 1.0, [0.0, 6.0]]],
                            "meta": {"signal_repeat": 2, "signal_kinds": True}})
    view = TextView()
    view("the job failed", None, 1)
    assert answer(view, model).cls == "config_error"
    with_kind = answer(view, model, kinds=["mem:oom"])
    assert with_kind is not None and with_kind.cls == "npu_oom" and "signal kinds" in with_kind.why
    assert with_kind.lines == [(None, 1, "the job failed")]


def _frames(weights: dict[str, float], frames: list[str]) -> Any:
    """The answer of a tiny model whose words (``weights``: framework_error coefficients) are in stack frames, on a
    failure line followed by ``frames``."""
    model = model_from_doc({"format": 1, "classes": ["config_error", "framework_error"], "intercept": [0.0, 0.0],
                            "vocab": [[w, 1.0, [0.0, c]] for w, c in weights.items()], "meta": {}})
    view = TextView()
    for n, line in enumerate(["ERROR: recording the kernel failed", *frames], 1):
        view(line, None, n)
    return answer(view, model)


def test_the_line_that_says_the_program_failed_is_among_the_cited_lines() -> None:
    # the words that weigh most can all be stack frames; the failure's own line is cited with them
    got = _frames({"frame": 3.0}, ["frame a", "frame b", "frame c", "frame d"])
    assert got is not None and got.cls == "framework_error"
    assert [n for _f, n, _t in got.lines] == [1, 2, 3]


def test_the_failure_line_displaces_the_least_weighty_cited_line() -> None:
    # the cited lines are the heaviest ones; where the failure's own line joins them, the lightest one makes room (the
    # last one in the input's order was dropped, here the heaviest: "frame heavy" of line 4)
    got = _frames({"frame": 3.0, "heavy": 9.0}, ["frame a", "frame b", "frame heavy", "frame d"])
    assert got is not None and got.cls == "framework_error"
    assert [n for _f, n, _t in got.lines] == [1, 2, 4]


def test_a_view_looking_at_a_repeated_line_once_keeps_what_looking_every_time_keeps(monkeypatch: Any) -> None:
    """TextView's memo of lines looked at (MAX_DONE): over a console repeating its lines, past both limits, the kept
    lines, failing count and overflow are those of the view that looks at every line."""
    import random

    from opsbrain.diagnosis import realtext

    rnd = random.Random(3)
    pool = ["Traceback (most recent call last):", "RuntimeError: ACL stream synchronize failed, error code:507053",
            "[INFO] step done", "[WARNING] retry failed once", "epoch 1 step 5 loss 2.1"]
    feed = [(rnd.choice(pool) if rnd.random() < 0.7 else f"error {rnd.randrange(700)} failed", rnd.choice(["", "h: "]))
            for _ in range(3000)]

    def kept(limit: int) -> tuple[Any, ...]:
        view = realtext.TextView(limit)
        for n, (line, head) in enumerate(feed, 1):
            view(line, "f", n, head)
        return view.first, view.errors, view.failing, view.overflow, view.lines()

    for limit in (5, 300, 5000):
        memo = kept(limit)
        monkeypatch.setattr(realtext, "MAX_DONE", 0)
        assert kept(limit) == memo
        monkeypatch.undo()
