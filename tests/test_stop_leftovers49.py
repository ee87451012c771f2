# ruff: noqa: E501  (real log lines, kept whole)
"""A stop asked for, once the log shows it: the teardown's leftovers give no signal and leave the fallback's text
(session 49, tester49i; :mod:`opsbrain.ingest.stopped`).

vllm#16807's traceback (an abort sent on the closed socket after a SIGINT, ``Task exception was never retrieved``)
read framework_error 0.60 from the fallback after vllm#43707's SIGINT lines; vllm-ascend#11051's SIGTERM stop after
an ais_bench run read config_error 0.35 from vLLM's own ``[shutdown]`` lines. A crash whose log ends in the same
cleanup keeps its cause, and the leftovers without a stop shown above them are read as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.recovered import quiet_lines_in
from opsbrain.ingest.stopped import StopScan
from opsbrain.ingest.text import ingest_text

SIGINT = """\
^C(EngineCore pid=3946143) INFO 05-26 19:19:56 [core.py:1155] [shutdown] EngineCore: trigger received signal=SIGINT
(Worker_TP0 pid=3946523) INFO 05-26 19:19:56 [multiproc_executor.py:905] [shutdown] WorkerProc: terminated by shutdown signal
(APIServer pid=3945527) INFO 05-26 19:19:56 [launcher.py:100] [shutdown] API server: shutdown triggered
"""
"""https://github.com/vllm-project/vllm/pull/43707 (Ctrl-C of ``vllm serve``)."""
LEFTOVER = """\
[2025-04-18 00:06:57] ERROR runners.py:118: Task exception was never retrieved
future: <Task finished name='Task-10' coro=<create_chat_completion() done, defined at /workspace/my-vllm/lib64/python3.12/site-packages/vllm/entrypoints/utils.py:75> exception=ZMQError('Socket operation on non-socket')>
Traceback (most recent call last):
  File "/workspace/my-vllm/lib64/python3.12/site-packages/vllm/v1/engine/async_llm.py", line 296, in generate
    out = q.get_nowait() or await q.get()
                            ^^^^^^^^^^^^^
  File "/workspace/my-vllm/lib64/python3.12/site-packages/vllm/v1/engine/output_processor.py", line 50, in get
    await self.ready.wait()
  File "/usr/lib64/python3.12/asyncio/locks.py", line 212, in wait
    await fut
asyncio.exceptions.CancelledError

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/workspace/my-vllm/lib64/python3.12/site-packages/vllm/entrypoints/utils.py", line 85, in wrapper
"""
"""https://github.com/vllm-project/vllm/pull/16807 (merged): printed when the API server is stopped by SIGINT with
requests in flight."""
ASCEND_SIGTERM = """\
[2026-06-29 04:26:29,737] [ais_bench] [INFO] Performance Result files located in outputs/default/20260629_041856/performances/vllm-api-stream-chat.
[2026-06-29 04:26:31.716397][UC][I] [shutdown] API server: shutdown triggered [27696,27696][launcher.py:100,signal_handler]
[2026-06-29 04:26:31.716519][UC][I] [shutdown] API server: stopping engine client mode=abort timeout=0s [27696,27696][launcher.py:116,handle_shutdown]
[2026-06-29 04:26:31.717271][UC][I] [shutdown] MPClient: start timeout=0s [27696,103546][core_client.py:652,shutdown]
[2026-06-29 04:26:31.717309][UC][I] [shutdown] MPClient: stopping engine manager [27696,103546][core_client.py:654,shutdown]
[2026-06-29 04:26:31.717661][UC][W] [shutdown] Process manager: force killing remaining processes count=1 [27696,103546][utils.py:607,shutdown]
[2026-06-29 04:26:31.717859][UC][I] [shutdown] EngineCore: trigger received signal=SIGTERM [27731,27731][core.py:1178,signal_handler]
[2026-06-29 04:26:31.718344][UC][I] [shutdown] EngineCore: start mode=abort timeout=0s [27731,27731][core.py:1297,_handle_shutdown]
"""
"""https://github.com/vllm-project/vllm-ascend/pull/11051 (vllm-ascend's log format, the server stopped after the
benchmark)."""
OOM = ("(VllmWorkerProcess pid=20493) ERROR 03-05 07:15:39 multiproc_worker_utils.py:240] RuntimeError: NPU out of "
       "memory. Tried to allocate 22.00 MiB (NPU 6; 60.97 GiB total capacity; 10.24 GiB already allocated; 10.24 GiB "
       "current active; 19.79 MiB free; 10.65 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
       "memory try setting max_split_size_mb to avoid fragmentation.\n")
"""https://github.com/vllm-project/vllm-ascend/issues/19 (a worker's NPU out of memory)."""


def _diagnose(tmp_path: Path, engine: Any, text: str, name: str = "x.log") -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    return diagnose_logs(str(tmp_path / name), engine)["diagnosis"]


@pytest.mark.parametrize("text", [SIGINT + LEFTOVER, ASCEND_SIGTERM + LEFTOVER, ASCEND_SIGTERM])
def test_a_stop_shown_reads_no_fault(tmp_path: Path, engine: Any, text: str) -> None:
    # before: framework_error 0.60, framework_error 0.52, config_error 0.35 (the text fallback)
    assert _diagnose(tmp_path, engine, text)["fault_class"] == "unknown"
    assert not [s for s in ingest_text(text)[0] if s.kind.startswith("py:")]


@pytest.mark.parametrize("text", [OOM + SIGINT + LEFTOVER, OOM + ASCEND_SIGTERM])
def test_a_crash_before_the_stop_keeps_its_cause(tmp_path: Path, engine: Any, text: str) -> None:
    assert _diagnose(tmp_path, engine, text)["fault_class"] == "npu_oom"


def test_leftovers_without_a_stop_shown_are_read_as_before() -> None:
    scan = StopScan()
    for n, line in enumerate(LEFTOVER.splitlines(), 1):
        scan.step(n, line)
    assert scan.lines == set() and "py:traceback" in [s.kind for s in ingest_text(LEFTOVER)[0]]
    lines = (LEFTOVER + SIGINT + LEFTOVER).splitlines()
    first = len(LEFTOVER.splitlines())
    assert quiet_lines_in(lines) == set(range(first + 1, len(lines) + 1))  # the stop's own lines and what follows


def test_a_block_ends_at_a_line_of_another_kind() -> None:
    other = "(EngineCore pid=1) ERROR 01-04 17:21:04 [core.py:1] EngineCore failed: HCCL error\n"
    lines = (SIGINT + LEFTOVER + other).splitlines()
    scan = StopScan()
    kept = [n for n, line in enumerate(lines, 1) if not scan.step(n, line)]
    assert kept == [len(lines)]


def test_a_bundle_reads_the_stop_as_logs_does(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "node-0" / "serve.log"
    log.parent.mkdir(parents=True)
    log.write_text(SIGINT + LEFTOVER)
    rep = diagnose_bundle(tmp_path, engine)
    assert rep["diagnosis"]["fault_class"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["fault_class"] \
        == "unknown"


# review49: what the stop's rule must not hide.
ZMQ_END = """\
  File "/workspace/my-vllm/lib64/python3.12/site-packages/vllm/entrypoints/utils.py", line 90, in wrapper
    await abort()
zmq.error.ZMQError: Socket operation on non-socket
"""
"""The end of vllm#16807's second traceback (its exception line, as the ``future:`` line names it)."""
CRASH_AFTER = """\

Traceback (most recent call last):
  File "/home/serve.py", line 10, in main
    torch.npu.synchronize()
RuntimeError: ACL stream synchronize failed, error code:507035
"""
"""A traceback of its own after the leftover block's exception line (no ``During handling`` between them)."""
RESTARTED = """\
(APIServer pid=7) INFO 05-26 20:00:00 [api_server.py:1] vLLM API server version 0.9.1
(APIServer pid=7) ERROR 05-26 20:10:00 [async_llm.py:480] AsyncLLM output_handler failed.
(APIServer pid=7) ERROR 05-26 20:10:00 [async_llm.py:480] Traceback (most recent call last):
(APIServer pid=7) ERROR 05-26 20:10:00 [async_llm.py:480]   File "/x/vllm/v1/engine/async_llm.py", line 440, in output_handler
(APIServer pid=7) ERROR 05-26 20:10:00 [async_llm.py:480]     outputs = await engine_core.get_output_async()
(APIServer pid=7) ERROR 05-26 20:10:00 [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
"""
"""A server started again in the same log (vLLM's ``logger.info("vLLM API server version %s", VLLM_VERSION)``,
vllm/entrypoints/openai/api_server.py ``run_server``) whose engine then dies: the block is the engine's death, no
leftover of the stop above."""


def test_a_traceback_after_the_block_s_exception_is_read() -> None:
    text = SIGINT + LEFTOVER + ZMQ_END + CRASH_AFTER
    kinds = [s.kind for s in ingest_text(text)[0]]
    assert "rt:507035" in kinds, kinds
    lines = text.splitlines()
    crash = {n for n, line in enumerate(lines, 1) if "507035" in line}
    assert not crash & quiet_lines_in(lines)


def test_a_start_ends_the_stop(tmp_path: Path, engine: Any) -> None:
    text = SIGINT + RESTARTED
    assert "py:EngineDeadError" in [s.kind for s in ingest_text(text)[0]]
    assert _diagnose(tmp_path, engine, text)["fault_class"] == _diagnose(tmp_path, engine, RESTARTED, "y.log")[
        "fault_class"] != "unknown"


def test_the_text_view_leaves_out_what_the_readers_leave_out() -> None:
    from opsbrain.diagnosis.realtext import TextView

    for text in (SIGINT + LEFTOVER + ZMQ_END + CRASH_AFTER, SIGINT + RESTARTED, SIGINT + LEFTOVER):
        lines = text.splitlines()
        view = TextView()
        for n, line in enumerate(lines, 1):
            view(line, "x.log", n)
        shown = {n for _f, n, _t in view.first}
        quiet = quiet_lines_in(lines)
        assert not shown & quiet, shown & quiet
        assert {n for n, line in enumerate(lines, 1) if line.strip() and n not in quiet} - shown <= \
            {n for n, line in enumerate(lines, 1) if "INFO" in line}  # (the view leaves out INFO lines itself)


# session 50 (review49's notes): a block whose exception is not the teardown's is read; every scan sees every line.
DEVICE_BLOCK = """\
[2025-04-18 00:06:57] ERROR runners.py:118: Task exception was never retrieved
future: <Task finished name='Task-10' coro=<create_chat_completion() done, defined at /workspace/my-vllm/lib64/python3.12/site-packages/vllm/entrypoints/utils.py:75> exception=RuntimeError('ACL stream synchronize failed, error code:507035')>
Traceback (most recent call last):
  File "/home/serve.py", line 10, in main
    torch.npu.synchronize()
RuntimeError: ACL stream synchronize failed, error code:507035
"""
"""vllm#16807's block head and ``future:`` line with another exception in it: a device failing while the stop went on
(the exception line as in :data:`CRASH_AFTER`)."""


def test_a_block_whose_exception_is_not_the_teardown_s_is_read() -> None:
    text = SIGINT + DEVICE_BLOCK
    lines = text.splitlines()
    kinds = [s.kind for s in ingest_text(text)[0]]
    assert "rt:507035" in kinds, kinds
    block = set(range(len(SIGINT.splitlines()) + 1, len(lines) + 1))
    assert not block & quiet_lines_in(lines)
    assert quiet_lines_in((SIGINT + LEFTOVER + ZMQ_END).splitlines())  # the teardown's own exceptions stay left out


def test_the_text_view_reads_a_block_it_held_back() -> None:
    from opsbrain.diagnosis.realtext import TextView

    lines = (SIGINT + DEVICE_BLOCK).splitlines()
    view = TextView()
    for n, line in enumerate(lines, 1):
        view(line, "x.log", n)
    shown = {n for _f, n, _t in view.first}
    first = len(SIGINT.splitlines())
    assert {first + 1, first + 2, first + 6} <= shown, shown
