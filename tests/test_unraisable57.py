"""An exception CPython printed under ``Exception ignored in ...`` and went on gives no signal
(opsbrain.ingest.unraisable; session 57, from blind56's b56j-11), and only its own block is left out."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.recovered import quiet_lines_in
from opsbrain.ingest.text import ingest_text
from opsbrain.ingest.unraisable import UnraisableScan, may_hold
from tests.textviews import view_of

ROOT = Path(__file__).resolve().parents[1]

BLIND = ROOT / "tests" / "data" / "blind" / "blind56_healthy.yaml"
B56J11 = next(e["text"] for e in yaml.safe_load(BLIND.read_text()) if e["id"] == "b56j-11")
"""zhshgmail/easyr1-npu@28fc2d6e workspace/task-dag-realdelta/v4_rl_loop_REAL_delta_log.txt, its last 12 lines (an RL
run that passed, then sglang's atexit shutdown)."""
ATEXIT = B56J11[B56J11.index("Exception ignored"):].rstrip("\n") + "\n"
"""Its unraisable block: the head, the traceback and the exception line (9 lines)."""
OOM = ("RuntimeError: NPU out of memory. Tried to allocate 22.00 MiB (NPU 6; 60.97 GiB total capacity; 10.24 GiB "
       "already allocated; 10.24 GiB current active; 19.79 MiB free; 10.65 GiB reserved in total by PyTorch)\n")
"""vllm-project/vllm-ascend#19 (a worker's NPU out of memory; its exception line)."""
TRACEBACK = 'Traceback (most recent call last):\n  File "serve.py", line 3, in <module>\n    main()\n'


def _diagnose(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_the_blind_excerpt_reads_no_fault(engine: Any) -> None:
    assert _diagnose(engine, B56J11)["fault_class"] == "unknown"  # was framework_error 0.50


def test_the_block_gives_no_signal_and_no_fallback_text() -> None:
    assert not [s for s in ingest_text(ATEXIT)[0] if s.kind.startswith("py:")]
    assert view_of(ATEXIT).first == []
    assert quiet_lines_in(ATEXIT.splitlines()) == set(range(1, 10))
    assert may_hold(ATEXIT.encode()) and not may_hold(OOM.encode())


def test_the_same_exception_raised_is_read(engine: Any) -> None:
    raised = ATEXIT.split("\n", 1)[1]  # no head: the exception reached the program
    assert "py:RuntimeError" in [s.kind for s in ingest_text(raised)[0]]
    assert _diagnose(engine, raised)["fault_class"] == "framework_error"


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_failure_beside_the_block_keeps_its_reading(engine: Any, where: str) -> None:
    failure = TRACEBACK + OOM
    text = failure + ATEXIT if where == "before" else ATEXIT + failure
    assert _diagnose(engine, text)["fault_class"] == "npu_oom"
    n = len(text.splitlines())
    quiet = quiet_lines_in(text.splitlines())
    assert quiet == (set(range(5, n + 1)) if where == "before" else set(range(1, 10)))


def test_the_destructor_s_head_and_a_prefixed_line_open_a_block() -> None:
    # the head is b50c-09's (blind50_healthy, vLLM's LLMEngine.__del__); the process prefix and the exception line
    # are put on by hand to test the scan's grammar
    head = "(EngineCore_DP0 pid=5) Exception ignored in: <function LLMEngine.__del__ at 0xfffdb4b605e0>"
    lines = [head, "(EngineCore_DP0 pid=5) Traceback (most recent call last):",
             "(EngineCore_DP0 pid=5) OSError: [Errno 9] Bad file descriptor", "INFO next line"]
    scan = UnraisableScan()
    assert [scan.step(n, x) for n, x in enumerate(lines, 1)] == [True, True, True, False]
    assert not UnraisableScan().step(1, "logger.warning('Exception ignored in %s', name) was called")


def test_a_bundle_reads_the_block_as_logs_does(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "node-0" / "rl.log"
    log.parent.mkdir(parents=True)
    log.write_text(ATEXIT)
    rep = diagnose_bundle(tmp_path, engine)
    assert rep["diagnosis"]["fault_class"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["fault_class"] \
        == "unknown"
