"""The text classifier's cross-validation (opsbrain/kb/textcv.py): tokens of real lines, the dev-only guard, grouped
folds that never train on the scored group, and the tau table's arithmetic."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.kb import textcv
from opsbrain.kb.realeval import split_of
from opsbrain.kb.texttokens import line_tokens, text_tokens, words


def test_tokens_of_real_lines_keep_codes_and_drop_what_names_one_log() -> None:
    # real dev lines (tests/data/real_logs: a050-ascend-pytorch-66, a018-vllm-ascend-486, b012-hiascend-aicore-...)
    w = words("RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: "
              "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035")
    assert "507035" in w and "aclrtsynchronizestreamwithtimeout" in w and "25" not in w
    assert w[:2] == ["runtimeerror", "operator"] and "npu" in w  # c10_npu -> "npu": the digits go
    w = words("[rank1]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: "
              "Remote Rank did not send the data in time.")
    assert w[:4] == ["rank", "ei0006", "pid", "getting"]  # the pid and the timestamp are dropped
    w = words("[ERROR] RUNTIME(3813,python3):2025-01-10-17:53:52.846.403 [device_error_proc.cc:1409] 3813 "
              "ProcessStarsCoreErrorInfo:[INIT][DEFAULT]report error module_type=5, module_name=EZ9999")
    assert "ez9999" in w and "python" in w and "3813" not in w
    assert words("event 0x80E01801 at 0x7fff1234abcd, kernel te_interp_1ead9f4957880f1e_0") == [
        "event", "0x80e01801", "at", "kernel", "te", "interp"]  # an address and a kernel hash are dropped
    assert words("ERR99999 UNKNOWN application exception")[0] == "err99999"
    assert line_tokens("NPU out of memory") == ["npu", "out", "of", "memory", "npu out", "out of", "of memory"]
    assert text_tokens("a bb\ncc dd", ["mem:oom"]) == ["bb", "cc", "dd", "cc dd", "sig:mem:oom"]  # no cross-line bigram


def _ids(split: str, n: int, prefix: str = "t") -> list[str]:
    out: list[str] = []
    i = 0
    while len(out) < n:
        if split_of(f"{prefix}{i}") == split:
            out.append(f"{prefix}{i}")
        i += 1
    return out


def _excerpt(i: str, label: str, text: str, file: str, source: str = "https://github.com/o/r/issues/1") -> dict:
    return {"id": i, "label": label, "text": text, "file": file, "source": source, "confidence": "firm",
            "split": split_of(i)}


def test_a_test_split_excerpt_never_reaches_the_text_model() -> None:
    dev, test = _ids("dev", 3), _ids("test", 1)
    rows = [_excerpt(i, "npu_oom", "NPU out of memory", "p.yaml") for i in dev]
    assert textcv.dev_only(rows) == rows
    leaked = rows + [{**_excerpt(test[0], "npu_oom", "NPU out of memory", "p.yaml"), "split": "dev"}]
    with pytest.raises(textcv.LeakError):  # its id hashes to test: marking it dev does not pass
        textcv.dev_only(leaked)
    with pytest.raises(textcv.LeakError):
        textcv.out_of_fold(leaked, "part", "words")


PARTS = ("alpha", "bravo", "charlie")


def _mini() -> list[dict[str, Any]]:
    texts = {"npu_oom": "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB",
             "config_error": "rank table file is invalid: device ip not found in the config",
             "other": "npu-smi info shows all devices OK health normal"}
    ids = iter(_ids("dev", 18))
    return [_excerpt(next(ids), label, f"{text} {part}", f"corpus_{part}.yaml", f"github:o/r{k}:x")
            for k in range(2) for label, text in texts.items() for part in PARTS]  # parts interleaved


def test_grouped_folds_never_train_on_the_scored_group(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _mini()
    seen: list[set[str]] = []
    real_fit = textcv.fit

    def spy(docs: list[list[str]], labels: list[str], weights: list[float], strength: float, balanced: bool) -> Any:
        seen.append({t for d in docs for t in d if t in PARTS})
        return real_fit(docs, labels, weights, strength, balanced)

    monkeypatch.setattr(textcv, "fit", spy)
    monkeypatch.setattr(textcv, "kinds_of", lambda text: [])
    oof = textcv.out_of_fold(rows, "part", "words")
    assert sorted(map(sorted, seen)) == [["alpha", "bravo"], ["alpha", "charlie"], ["bravo", "charlie"]]
    assert [p for p, _ in oof] == [r["label"] for r in rows]  # each part is learned from the other two
    seen.clear()
    textcv.out_of_fold(rows, "project", "words")  # two projects (r0, r1): two folds, not five
    assert len(seen) == 2


def test_groups_by_project_and_part() -> None:
    assert textcv.project_of("https://github.com/vllm-project/vllm-ascend/issues/486") == "vllm-project/vllm-ascend"
    assert textcv.project_of("github:Ascend/mind-cluster:docs/en/x.md@22bb") == "ascend/mind-cluster"
    assert textcv.project_of("https://www.hiascend.com/document/detail/en/x.html") == "www.hiascend.com"


def test_tau_rows_count_coverage_precision_and_the_veto() -> None:
    rows = [_excerpt(i, lab, "x", "p.yaml") for i, lab in zip(_ids("dev", 4), ["npu_oom", "npu_oom", "other",
                                                                               "config_error"], strict=True)]
    oof = [("npu_oom", 0.9), ("config_error", 0.5), ("config_error", 0.45), ("config_error", 0.35)]
    engine = {rows[0]["id"]: ("unknown", 0.3), rows[1]["id"]: ("npu_oom", 0.7), rows[2]["id"]: ("unknown", 0.2),
              rows[3]["id"]: ("config_error", 0.6)}
    by_tau = {r["tau"]: r for r in textcv.tau_rows(rows, oof, engine)}
    r = by_tau[0.4]
    assert r["all"] == {"n": 4, "answered": 3, "coverage": 0.75, "precision": round(1 / 3, 3)}
    assert r["engine_abstains"] == {"n": 2, "answered": 2, "coverage": 1.0, "precision": 0.5}
    # combined: row 0 answered right by the text model, row 2 (other) answered wrongly
    assert r["combined_firm_or_likely"] == {"agreement": 1.0, "abstention": 0.0, "answered_precision": 0.75}
    assert r["veto"] == {"engine_answers_overruled": 1, "of_them_engine_wrong": 0}  # row 1: engine right
    assert by_tau[0.6]["engine_abstains"]["answered"] == 1 and by_tau[0.6]["veto"]["engine_answers_overruled"] == 0


def test_text_cv_command_refuses_a_missing_corpus_in_one_line() -> None:
    from opsbrain.cli import cli

    res = CliRunner().invoke(cli, ["kb", "text-cv", "--real", "/nonexistent/corpus"])
    assert res.exit_code == 2
    assert "no such file or directory" in res.output and len(res.output.strip().splitlines()) == 1
