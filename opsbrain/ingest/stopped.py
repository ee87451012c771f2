"""The leftovers of a stop asked for, once the log shows the stop: they give no signal and are left out of the text the
fallback reads (session 49, tester49i).

A serving engine stopped by Ctrl-C or SIGTERM tears its processes down while requests may still be in flight, and the
teardown prints tracebacks that read like a failure. The stop is read only where the log itself shows it, by the
program's own line for the signal (:data:`STOP_SHOWN`):

- vLLM's engine core, from its SIGINT/SIGTERM handler: ``[shutdown] EngineCore: trigger received signal=SIGTERM``
  (vllm/v1/engine/core.py ``signal_handler``, ``logger.info("[shutdown] EngineCore: trigger received signal=%s", ...)``,
  registered for SIGTERM and SIGINT; vllm-project/vllm#43707, "Optimize shutdown logs": ``^C(EngineCore pid=3946143)
  INFO ... [shutdown] EngineCore: trigger received signal=SIGINT``);
- vLLM's API server, from its SIGINT/SIGTERM handler: ``[shutdown] API server: shutdown triggered``
  (vllm/entrypoints/launcher.py ``signal_handler``, ``loop.add_signal_handler(signal.SIGINT, ...)`` and SIGTERM; on
  vllm-ascend, vllm-project/vllm-ascend#11051: ``[UC][I] [shutdown] API server: shutdown triggered
  [27696,27696][launcher.py:100,signal_handler]`` after an ais_bench run);
- torchrun's agent on Ctrl-C: ``Received 2 death signal, shutting down workers`` (torch/distributed/elastic/agent/
  server/api.py, ``except SignalException as e: logger.warning("Received %s death signal, shutting down workers",
  e.sigval)``; MCG-NJU/RTD-Action#31). Only SIGINT: a SIGTERM (15) reaching torchrun is also what a platform sends a
  job it ends for host memory (NeMo's "HOST OOM issues": ``Received 15 death signal`` "without any other error above
  it"), and SIGHUP (1) a lost terminal; neither is read as a stop asked for.

After such a line, in the same file, the stop's own leftovers are left out (:class:`StopScan`):

- vLLM's ``[shutdown]`` lines themselves (vllm#43707: every step of the stop is logged so, among them ``[shutdown]
  Process manager: force killing remaining processes count=1`` at WARNING, the abort mode's end);
- asyncio's ``Task exception was never retrieved`` with its ``future: <Task finished ...>`` line and traceback:
  vllm-project/vllm#16807 (merged, "Avoid socket errors during shutdown when requests are in-flight"): "if there are
  requests in flight when the API server is shutdown via a SIGINT, there can be exception stacktraces in the log
  because there's an attempt to send an abort to the engine for the cancelled request using a socket that's already
  closed" (``exception=ZMQError('Socket operation on non-socket')``);
- vLLM's ``AsyncLLM output_handler failed.`` with its ``EngineDeadError`` traceback: vllm-project/vllm#48745
  ("Spurious EngineDeadError traceback logged during graceful shutdown"; #49000: on an intentional SIGTERM/SIGINT the
  output queue's own cancellation pushes an EngineDeadError "poison pill" that the handler logs "even though the
  shutdown is proceeding normally and completes successfully").

A failure before the stop is read as before: a crash whose log ends in cleanup text keeps its cause (an ``NPU out of
memory`` line above the stop still reads npu_oom). The same blocks without a stop shown above them are read as
before too (a pasted ``Task exception was never retrieved`` alone cannot tell a stop from an engine that died)."""

from __future__ import annotations

from opsbrain.lazyre import lazy_compile

STOP_SHOWN = lazy_compile(r"\[shutdown\] (?:EngineCore: trigger received signal=SIG(?:INT|TERM)\b|"
                          r"API server: shutdown triggered\b)|"
                          r"\bReceived (?:2|Signals\.SIGINT) death signal, shutting down workers\b")
"""A program's own line for the stop signal it received (the sources above)."""
SHUTDOWN_STEP = lazy_compile(r"\[shutdown\] (?:EngineCore|API server|AsyncLLM|MPClient|Process manager|WorkerProc|"
                             r"Worker|Executor|Engine|Client)\b")
"""vLLM's own line of a step of the stop (``[shutdown] <component>: ...``, vllm#43707)."""
LEFTOVER_HEAD = lazy_compile(r"\bTask exception was never retrieved\s*$|\bAsyncLLM output_handler failed\.?\s*$")
"""The head of a block the teardown prints (vllm#16807, vllm#48745)."""
VLLM_PREFIX = lazy_compile(r"^(?:\(\w[\w ]*pid=\d+\)\s+)?(?:(?:ERROR|WARNING|INFO|DEBUG|CRITICAL)\s+\d\d-\d\d "
                           r"\d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]]{1,80}\]\s?)?")
"""vLLM's prefix on each line of a logged traceback (``(APIServer pid=1) ERROR 07-15 10:00:00 [async_llm.py:480]``)."""
BLOCK_LINE = lazy_compile(r"^(?:\s|$)|^Traceback \(most recent call last\):|^During handling of the above exception|"
                          r"^The above exception was the direct cause|^future: <Task |"
                          r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Cancelled)\b(?::|\s*$)")
"""A line of such a block after its head: the future's line, a traceback's lines, its exception line."""
BLOCK_MOST = 400
"""reason: the most lines one leftover block is read to hold (vllm#16807's two chained tracebacks run to about 40;
a block is ended sooner by any line of another kind); a coarse bound, not fitted."""


class StopScan:
    """One file's lines in order: the numbers of those that are a stop's leftovers (module docstring), in
    :attr:`lines`. ``step`` says whether the line it is given is one."""

    def __init__(self) -> None:
        self.stopped = False
        """Whether a stop was shown above."""
        self._block = 0
        """Lines left in the open leftover block (0: none open)."""
        self.lines: set[int] = set()

    def step(self, n: int, text: str) -> bool:
        """Line ``n``: whether it is a leftover of a stop shown above (or the stop's own ``[shutdown]`` line)."""
        if not self.stopped:
            if "death signal" not in text and "[shutdown]" not in text or not STOP_SHOWN.search(text):
                return False
            self.stopped = True
        body = VLLM_PREFIX.sub("", text, count=1) if "pid=" in text or "[" in text else text
        if self._block and BLOCK_LINE.match(body):
            self._block -= 1
            self.lines.add(n)
            return True
        self._block = 0
        if "[shutdown]" in text and SHUTDOWN_STEP.search(text) or LEFTOVER_HEAD.search(text):
            self._block = BLOCK_MOST if LEFTOVER_HEAD.search(text) else 0
            self.lines.add(n)
            return True
        return False


def may_stop(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may show a stop (:data:`STOP_SHOWN`): a search in C, the bundle walk's cue."""
    return b"[shutdown]" in data or b"death signal" in data

