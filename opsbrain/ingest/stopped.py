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
  it"), and SIGHUP (1) a lost terminal; neither is read as a stop asked for;
- CANN's TBE compile workers once the process that started them is gone: ``[ERROR] TBE Subprocess[task_distribute]
  raise error[], main process disappeared!`` (``runnotices.EXIT_NOTICES``: vllm-project/vllm-ascend#1706, #787, at a
  run's end). Not a stop asked for, but the same teardown: whatever ended the main process was printed above it and
  keeps its reading; after it, TBE's repository-manager daemon (``tbe/common/repository_manager/utils/common.py``
  ``daemon_process``: once its parent no longer exists it warns "The main process does not exist. We would kill
  multiprocess manager process" and sends the manager SIGKILL) fails with ``ProcessLookupError: [Errno 3] No such
  process`` where the manager is gone already, and multiprocessing prints that child's traceback under ``Process
  ForkServerProcess-10:`` (CPython Lib/multiprocessing/process.py ``BaseProcess._bootstrap``: ``Process %s:`` then
  the traceback). Session 55, tester55d: a verl run on Ascend that finished (``Epoch 0 completed``, exit code 0 in its
  notes) read framework_error 0.50 from that traceback (Weigaa/qwen30b_tpu_verl, blind b55d-01).

After such a line, in the same file, the stop's own leftovers are left out (:class:`StopScan`):

- vLLM's ``[shutdown]`` lines themselves (vllm#43707: every step of the stop is logged so, among them ``[shutdown]
  Process manager: force killing remaining processes count=1`` at WARNING, the abort mode's end);
- asyncio's ``Task exception was never retrieved`` with its ``future: <Task finished ...>`` line and traceback:
  vllm-project/vllm#16807 (merged, "Avoid socket errors during shutdown when requests are in-flight"): "if there are
  requests in flight when the API server is shutdown via a SIGINT, there can be exception stacktraces in the log
  because there's an attempt to send an abort to the engine for the cancelled request using a socket that's already
  closed" (``exception=ZMQError('Socket operation on non-socket')``);
- a child process's uncaught exception, ``Process <name>:`` and its traceback, where the exception is the
  teardown's (``ProcessLookupError``: the TBE daemon above);
- vLLM's ``AsyncLLM output_handler failed.`` with its ``EngineDeadError`` traceback: vllm-project/vllm#48745
  ("Spurious EngineDeadError traceback logged during graceful shutdown"; #49000: on an intentional SIGTERM/SIGINT the
  output queue's own cancellation pushes an EngineDeadError "poison pill" that the handler logs "even though the
  shutdown is proceeding normally and completes successfully").

A failure before the stop is read as before: a crash whose log ends in cleanup text keeps its cause (an ``NPU out of
memory`` line above the stop still reads npu_oom). The same blocks without a stop shown above them are read as
before too (a pasted ``Task exception was never retrieved`` alone cannot tell a stop from an engine that died).

What follows a block is read (review49): a block ends with its exception line unless a chained exception's header
(``During handling of the above exception``, ``The above exception was the direct cause``) follows, so a traceback of
its own printed after it (a device error while the stop went on) keeps its signal; and a start of the program in the
same file (:data:`STARTED`: a log appended to across runs) ends the stop, so a later run's engine death is read.

A block is the stop's only while its exceptions are the teardown's (:data:`TEARDOWN_EXCEPTION`; review49's note,
session 50): a block whose exception is another (``RuntimeError: ACL stream synchronize failed, error code:507035``
inside a ``Task exception was never retrieved`` block, a device failing while the stop went on) is read, the lines
already left out of it as well (:attr:`StopScan.released`)."""

from __future__ import annotations

from opsbrain.ingest.runnotices import EXIT_NOTICES
from opsbrain.lazyre import lazy_compile

STOP_SHOWN = lazy_compile(r"\[shutdown\] (?:EngineCore: trigger received signal=SIG(?:INT|TERM)\b|"
                          r"API server: shutdown triggered\b)|"
                          r"\bReceived (?:2|Signals\.SIGINT) death signal, shutting down workers\b|"
                          + EXIT_NOTICES.pattern)
"""A program's own line for the stop signal it received, or TBE's for a main process gone (the sources above; that
line is :data:`~opsbrain.ingest.runnotices.EXIT_NOTICES`' one pattern, not a copy)."""
STOP_CUES = ("[shutdown]", "death signal", "main process disappeared")
"""Substrings one of which a line of :data:`STOP_SHOWN` holds (a search in C before the regex)."""
SHUTDOWN_STEP = lazy_compile(r"\[shutdown\] (?:EngineCore|API server|AsyncLLM|MPClient|Process manager|WorkerProc|"
                             r"Worker|Executor|Engine|Client)\b")
"""vLLM's own line of a step of the stop (``[shutdown] <component>: ...``, vllm#43707)."""
LEFTOVER_HEAD = lazy_compile(r"\bTask exception was never retrieved\s*$|\bAsyncLLM output_handler failed\.?\s*$|"
                             r"^Process [\w.-]{1,80}:\s*$")
"""The head of a block the teardown prints (vllm#16807, vllm#48745; multiprocessing's ``Process <name>:``)."""
VLLM_PREFIX = lazy_compile(r"^(?:\(\w[\w ]*pid=\d+\)\s+)?(?:(?:ERROR|WARNING|INFO|DEBUG|CRITICAL)\s+\d\d-\d\d "
                           r"\d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]]{1,80}\]\s?)?")
"""vLLM's prefix on each line of a logged traceback (``(APIServer pid=1) ERROR 07-15 10:00:00 [async_llm.py:480]``)."""
CHAINED = lazy_compile(r"^During handling of the above exception|^The above exception was the direct cause")
"""The header of an exception chained to the one above (CPython Lib/traceback.py ``_context_message`` and
``_cause_message``): the block goes on past its exception line."""
EXCEPTION_LINE = lazy_compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Cancelled)\b(?::|\s*$)")
"""A traceback's exception line (``zmq.error.ZMQError: Socket operation on non-socket``): it ends the block unless a
chained exception follows (:data:`CHAINED`)."""
TEARDOWN_EXCEPTION = lazy_compile(r"^(?:[\w.]*\.)?(?:CancelledError|ZMQError|EngineDeadError|KeyboardInterrupt|"
                                  r"SystemExit|ProcessLookupError)\b")
"""The exceptions a stop's teardown raises: asyncio's ``CancelledError`` of the cancelled request and pyzmq's
``ZMQError`` of the abort sent on the closed socket (vllm#16807's chained tracebacks), vLLM's ``EngineDeadError`` poison
pill (vllm#48745), and CPython's own for a stop: ``KeyboardInterrupt`` (the default SIGINT handler raises it, Python's
signal module documentation) and ``SystemExit`` (``sys.exit`` from a handler); ``ProcessLookupError`` of a kill sent to
a process already gone (the TBE daemon's, module docstring)."""
BLOCK_LINE = lazy_compile(r"^(?:\s|$)|^Traceback \(most recent call last\):|^future: <Task |" + CHAINED.pattern + "|"
                          + EXCEPTION_LINE.pattern)
"""A line of such a block after its head: the future's line, a traceback's lines, its exception line."""
STARTED = lazy_compile(r"\bvLLM API server version \S|\bInitializing a V1 LLM engine \(v|"
                       r"\bStarting elastic_operator with launch configs\b")
"""A start of the program, which ends the stop above it (review49): vLLM's API server (vllm/entrypoints/openai/
api_server.py ``run_server``: ``logger.info("vLLM API server version %s", VLLM_VERSION)``), its engine core
(vllm/v1/engine/core.py ``EngineCore.__init__``: ``"Initializing a V1 LLM engine (v%s) with config: %s"``), torchrun's
agent (torch/distributed/launcher/api.py ``launch_agent``: ``"Starting elastic_operator with launch configs:\\n"``)."""
START_CUES = ("vLLM API server version", "Initializing a V1 LLM", "elastic_operator")
"""Substrings one of which a line of :data:`STARTED` holds (a search in C before the regex)."""
BLOCK_MOST = 400
"""reason: the most lines one leftover block is read to hold (vllm#16807's two chained tracebacks run to about 40;
a block is ended sooner by any line of another kind); a coarse bound, not fitted."""


class StopScan:
    """One file's lines in order: the numbers of those that are a stop's leftovers (module docstring), in
    :attr:`lines`. ``step`` says whether the line it is given is one."""

    def __init__(self) -> None:
        self.stopped = False
        """Whether a stop was shown above (and no start since)."""
        self._block = 0
        """Lines left in the open leftover block (0: none open)."""
        self._ended = False
        """Whether the open block's exception line went by (only its indented rest or a chained exception is its)."""
        self._current: list[int] = []
        """The open block's lines so far."""
        self.lines: set[int] = set()
        self.released: list[int] = []
        """The lines the last :meth:`step` took back from :attr:`lines` (a block whose exception is not the
        teardown's, module docstring): a reader that left them out reads them now, in order."""

    def step(self, n: int, text: str) -> bool:
        """Line ``n``: whether it is a leftover of a stop shown above (or the stop's own ``[shutdown]`` line)."""
        if self.stopped and any(c in text for c in START_CUES) and STARTED.search(text):
            self.stopped, self._block, self._ended = False, 0, False  # the program started again: the stop is over
        if not self.stopped:
            if not any(c in text for c in STOP_CUES) or not STOP_SHOWN.search(text):
                return False
            self.stopped = True
        self.released = []
        body = VLLM_PREFIX.sub("", text, count=1) if "pid=" in text or "[" in text else text
        if self._block and self._in_block(body):
            if EXCEPTION_LINE.match(body) and not TEARDOWN_EXCEPTION.match(body):  # another failure: read the block
                self.released = self._current
                self.lines.difference_update(self._current)
                self._block, self._ended, self._current = 0, False, []
                return False
            self._block -= 1
            self._current.append(n)
            self.lines.add(n)
            return True
        self._block, self._ended, self._current = 0, False, []
        head = LEFTOVER_HEAD.search(body) is not None
        if head or "[shutdown]" in text and SHUTDOWN_STEP.search(text):
            self._block = BLOCK_MOST if head else 0
            self._current = [n] if head else []
            self.lines.add(n)
            return True
        return False

    @property
    def block(self) -> list[int]:
        """The open leftover block's lines so far (empty: none open)."""
        return self._current

    def _in_block(self, body: str) -> bool:
        """Whether ``body`` (a line without vLLM's prefix) goes on the open block."""
        if self._ended:  # past its exception line: a chained exception, or that line's indented rest
            if CHAINED.match(body):
                self._ended = False
                return True
            return not body.strip() or body[:1].isspace()
        if not BLOCK_LINE.match(body):
            return False
        self._ended = EXCEPTION_LINE.match(body) is not None
        return True


def may_stop(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may show a stop (:data:`STOP_SHOWN`): a search in C, the bundle walk's cue."""
    return any(c.encode() in data for c in STOP_CUES)

