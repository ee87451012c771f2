"""A line stated at ERROR by its head is a failing line, whatever its words (session 54).

vLLM's and Ray's workers log an exception's traceback one record a line, each at ERROR (``logger.exception``); a
pasted excerpt is often cut before the exception's own line. The reader takes the head (``(WorkerDict pid=...) ERROR
12-04 17:33:31 [worker_base.py:275]``) off each line, and the frames left (``File "...", line 116, in ...``) hold no
error word: such an excerpt gave the text view no failing line, and a traceback header alone (as a run stopped with
Ctrl-C prints) says nothing failed. Now the head's level counts, for the text view, for the "anything failed" gate
(a traceback header and lines stated at ERROR) and for the "went on" scan; the client's exit line
that the change exposed is a documented notice (opsbrain.ingest.servenotices), and the TBE workers' exit line
no failing line (opsbrain.ingest.runnotices.EXIT_NOTICES).

Real lines: verl + vllm-ascend 0.11.0rc2's worker traceback (vllm-project/vllm-ascend#4718, as verl's issue pasted
it); vLLM's multiproc executor's (vllm-ascend, "NPU model runner misses the device context"); vLLM Ascend's
installation guide's exit lines (docs/source/installation.md @182b75ea); vllm-ascend#1706's and #787's TBE lines
(at a task's end) and #787's ignored exception."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import BELOW_WARNING, TextView, has_error_word, stated_error
from opsbrain.diagnosis.wenton import ProgressScan, went_on

HEAD = "(WorkerDict pid=3381073) ERROR 12-04 17:33:31 [worker_base.py:275] "
FRAMES = [
    "    hidden_states = self._dummy_run(self.max_num_tokens,",
    '  File "/cache/env/lib/python3.10/site-packages/torch/utils/_contextlib.py", line 116, in decorate_context',
    "    return func(*args, **kwargs)",
    '  File "/cache/env/lib/python3.10/site-packages/vllm_ascend/worker/model_runner_v1.py", line 2493, in _dummy_run',
    "    hidden_states = self._generate_dummy_run_hidden_states(",
    '  File "/cache/env/lib/python3.10/site-packages/vllm/model_executor/custom_op.py", line 79, in forward_oot',
    "    return self.forward_native(*args, **kwargs)",
]
EXECUTOR = "ERROR 04-22 02:06:41 [v1/executor/multiproc_executor.py:751] "
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/vllm-workspace/vllm/vllm/v1/executor/multiproc_executor.py", line 722, in worker_main',
    "    worker = WorkerProc(*args, **kwargs)",
    '  File "/vllm-workspace/vllm/vllm/v1/worker/worker_base.py", line 600, in init_device',
    "    self.worker.init_device()  # type: ignore",
]
EXIT = [
    "(EngineCore pid=970) INFO 05-12 11:36:00 [core.py:1201] Shutdown initiated (timeout=0)",
    "(EngineCore pid=970) INFO 05-12 11:36:00 [core.py:1224] Shutdown complete",
    "ERROR 05-12 11:36:01 [core_client.py:704] Engine core proc EngineCore died unexpectedly, shutting down client.",
]
TBE = ["[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!"] * 4


def _view(head: str, lines: list[str]) -> TextView:
    view = TextView()
    for n, line in enumerate(lines, 1):
        view(line, "x.log", n, head)
    return view


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_the_heads_level_is_read() -> None:
    assert stated_error(HEAD) and stated_error(EXECUTOR) and stated_error("[ERROR] RUNTIME(1,python3):")
    assert not stated_error("(WorkerDict pid=3381073) INFO 12-04 17:33:31 [worker_base.py:275] ")
    assert not stated_error("WARNING 12-04 17:33:31 [x.py:1] ") and not stated_error("")


def test_frames_stated_at_error_are_failing_lines() -> None:
    view = _view(HEAD, FRAMES)
    assert view.fails() and len(view.error_stated) == len(FRAMES)
    quiet = _view(HEAD.replace("ERROR", "INFO"), FRAMES)
    assert not quiet.fails() and not quiet.error_stated


def test_a_worker_traceback_cut_before_its_exception_is_read(engine: Any) -> None:
    d = _diagnose(engine, [HEAD + line for line in FRAMES])
    assert d["fault_class"] == "framework_error"  # was: no fault found (no failing line)
    assert d["confidence"] <= 0.6  # the text fallback's cap: the words decide, not a documented code


def test_a_traceback_header_stated_at_error_is_a_failure(engine: Any) -> None:
    assert _diagnose(engine, [EXECUTOR + line for line in TRACEBACK])["fault_class"] != "unknown"
    # the same frames with no level: a header alone, as a run stopped with Ctrl-C prints, says nothing failed
    assert _diagnose(engine, TRACEBACK)["fault_class"] == "unknown"


def test_exit_lines_of_a_run_that_finished_are_notices(engine: Any) -> None:
    assert _diagnose(engine, EXIT)["fault_class"] == "unknown"
    # behind a fan-out tool's head the worker's process prefix stays on the line; its INFO is still below WARNING
    assert _diagnose(engine, [f"gpu-srv85.dc1.example.com: {line}" for line in EXIT])["fault_class"] == "unknown"


def test_the_tbe_workers_exit_notice_is_no_failing_line(engine: Any) -> None:
    # the lines a run prints as its main process ends: read, not failing (opsbrain.ingest.runnotices.EXIT_NOTICES)
    metrics = ["(\"Final validation metrics: {'val-core/openai/gsm8k/reward/mean@1': \"", "'0.3661865049279757}')"]
    assert _diagnose(engine, metrics + TBE)["fault_class"] == "unknown"
    assert not _view("", TBE).fails() and _view("", TBE).first  # kept for its words
    # msModelSlim's FAQ: the shell's Killed before them keeps its reading (host memory)
    assert _diagnose(engine, ["Killed", TBE[0]])["fault_class"] == "npu_oom"


def test_an_ignored_exception_at_exit_is_no_failure(engine: Any) -> None:
    # CPython's unraisable hook: "Exception ignored in" and a traceback, no level: the header's line is not stated at
    # ERROR, so the ERROR lines of other programs beside it do not make the header a failure (vllm-ascend#787)
    lines = TBE + ["Exception ignored in: <function LLMEngine.__del__ at 0xfffdb4b605e0>", *TRACEBACK[:3]]
    assert _diagnose(engine, lines)["fault_class"] == "unknown"


def test_the_went_on_scan_counts_a_line_its_head_states_failing() -> None:
    scan = ProgressScan(has_error_word, lambda t: BELOW_WARNING.search(t) if t else None, None, stated_error)
    loop = ["epoch: 1 step: 77, loss is 7.187697", "epoch: 1 step: 78, loss is 7.101342"]
    for n, line in enumerate(loop, 1):
        scan(line, "x.log", n, "")
    for n, line in enumerate(FRAMES, 3):
        scan(line, "x.log", n, HEAD)
    assert went_on(scan, [], [("x.log", 3)]) is None  # the loop ran before the failure, not after it
