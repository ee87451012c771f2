"""An abstention's best guess names a class the input's documented signatures name (session 51).

The lines: the head of a vLLM engine traceback cut before its exception line (tester51d's blind excerpt b51d-05,
vllm-ascend issue text: ``EngineCore failed to start.`` then ``Traceback (most recent call last):`` and frames)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.engine import _guess_words
from opsbrain.diagnosis.oneclick import diagnose_logs

BARE = ["ERROR 11-24 08:50:34 [core.py:842] EngineCore failed to start.",
        "ERROR 11-24 08:50:34 [core.py:842] Traceback (most recent call last):",
        'ERROR 11-24 08:50:34 [core.py:842]   File "/vllm-workspace/vllm/vllm/v1/engine/core.py", line 833, in '
        "run_engine_core",
        "ERROR 11-24 08:50:34 [core.py:842]     engine_core = EngineCoreProc(*args, **kwargs)"]


def test_a_bare_traceback_names_the_documented_class_as_its_guess(engine: Any, tmp_path: Path) -> None:
    """Before: "best guess silent_data_corruption at 15%" (the forest's prior on a lone traceback). The lines without
    their ERROR head (a bare header, as a run stopped with Ctrl-C prints: no failure); stated at ERROR, since session
    54 the header is a logger's record of an exception, and the words answer (tests/test_error_head54.py)."""
    p = tmp_path / "bare.log"
    p.write_text("\n".join(line.split("] ", 1)[1] for line in BARE) + "\n", encoding="utf-8")
    d = diagnose_logs(str(p), engine)["diagnosis"]
    assert d["fault_class"] == "unknown"
    said = [e for e in d["evidence"] if e.startswith("best guess")]
    assert said and said[0].startswith("best guess framework_error"), d["evidence"]
    p.write_text("\n".join(BARE) + "\n", encoding="utf-8")
    d = diagnose_logs(str(p), engine)["diagnosis"]
    assert d["fault_class"] == "framework_error" and d["confidence"] <= 0.6


def test_the_model_top_is_named_where_no_signature_names_another() -> None:
    classes = ["a", "b", "c"]
    probs = [0.2, 0.3, 0.1]
    assert _guess_words("b", 0.3, probs, classes, {}, 0.4).startswith("best guess b at 30%")
    assert _guess_words("b", 0.3, probs, classes, {"kb:b:primary": 1.0}, 0.4).startswith("best guess b at 30%")
    got = _guess_words("b", 0.3, probs, classes, {"kb:a:ambiguous": 0.7, "kb:c:secondary": 1.0}, 0.4)
    assert got.startswith("best guess a at 20%") and "b at 30%" in got
    assert "b at 30%, is named by none of them" in got  # review51: what was checked, no more
