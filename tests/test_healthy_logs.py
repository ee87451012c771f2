"""False alarms on real healthy logs (opsbrain.kb.healthyeval; `opsbrain kb eval --healthy`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from opsbrain.errors import InputError
from opsbrain.kb.healthyeval import default_healthy_dir, evaluate_healthy, load_healthy


@pytest.fixture(scope="module")
def engine_and_matcher() -> tuple[Any, Any]:
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    return load_engine(), SignatureMatcher(load_kb())


def _write(path: Path, excerpts: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump(excerpts, allow_unicode=True), encoding="utf-8")
    return path


def _one(i: str, text: str, program: str = "vllm-ascend") -> dict[str, str]:
    return {"id": i, "source": "https://example.invalid/" + i, "program": program, "basis": "test", "text": text}


@pytest.mark.parametrize(("doc", "where"), [
    ({"id": "x"}, ""),                                       # not a list
    ([{"id": "a", "source": "s", "program": "p", "basis": "b"}], "[0]"),  # no text
    ([_one("a", "x"), _one("a", "y")], "[1].id"),              # duplicate id
    ([{**_one("a", "x"), "program": ""}], "[0].program"),
])
def test_bad_healthy_files_are_one_clear_error(tmp_path: Path, doc: Any, where: str) -> None:
    f = tmp_path / "h.yaml"
    f.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_healthy(f)
    assert err.value.path == (where or None) and "h.yaml" in str(err.value.file)


def test_an_answer_is_a_false_alarm_and_an_abstention_is_not(tmp_path: Path,
                                                             engine_and_matcher: tuple[Any, Any]) -> None:
    # vllm-ascend#2873's start (the lines before its failure) and the same with an NPU out-of-memory after it
    start = ("INFO 09-11 21:56:52 [__init__.py:232] Platform plugin ascend is activated\n"
             "WARNING 09-11 21:56:54 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError(\"No "
             "module named 'vllm._C'\")\n")
    oom = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
    _write(tmp_path / "h.yaml", [_one("ok", start), _one("fails", start + oom, "torch_npu")])
    res = evaluate_healthy(*engine_and_matcher, tmp_path)
    assert res["n"] == 2 and res["false_alarms"] == 1 and res["by_class"] == {"npu_oom": 1}
    assert res["by_program"] == {"torch_npu": {"n": 1, "alarms": 1}, "vllm-ascend": {"n": 1, "alarms": 0}}


@pytest.mark.skipif(default_healthy_dir() is None, reason="no healthy-log set in this checkout")
def test_no_confident_false_alarm_on_the_healthy_set(engine_and_matcher: tuple[Any, Any]) -> None:
    root = default_healthy_dir()
    assert root is not None
    res = evaluate_healthy(*engine_and_matcher, root)
    assert res["n"] >= 10
    assert res["confident_false_alarms"] == 0, [r for r in res["rows"] if r["alarm"] and r["confidence"] >= 0.8]
