"""Exceptions CPython could not raise and printed instead: the program went on (or was already exiting), so the
block gives no signal and is left out of the text the fallback reads (session 57, blind56's b56j-11).

Where an exception cannot be raised to a caller -- in a destructor (``__del__``), during garbage collection, in a
callback run at interpreter exit -- CPython hands it to ``sys.unraisablehook``, whose default prints ``Exception
ignored in: <object>`` and the traceback, and goes on (Python's ``sys.unraisablehook`` documentation: "Called when an
exception has occurred but there is no way for Python to handle it. For example, when a destructor raises an exception
or during garbage collection"; Python/errors.c ``PyErr_WriteUnraisable``). An atexit callback's exception is printed
by the same hook with its own words, ``Exception ignored in atexit callback: <function>`` (Modules/atexitmodule.c,
``_PyErr_WriteUnraisableMsg("in atexit callback", cb->func)``; PyPy's lib_pypy/atexit.py the same words). Such an
exception ended nothing: the statement that raised it was a clean-up, and the run's own outcome is printed elsewhere.

Session 56, tester56j: an sglang RL run that passed ("V4 RL LOOP PASS with REAL trained delta") and then, in the
engine's atexit ``Engine.shutdown``, printed ``RuntimeError: kill_process_tree: 150 process(es) not reaped within 60s
after SIGKILL`` under ``Exception ignored in atexit callback: <bound method Engine.shutdown ...>``; it read
framework_error 0.50 (blind56_healthy b56j-11).

A block (:class:`UnraisableScan`) is the head line, the traceback's lines (header, indented frames and source, the
caret lines) and its exception line, and a chained exception's (``During handling of the above exception``) after it;
any other line ends it. Left as a trade: a device error raised inside such a block (a destructor's call failing on a
device already lost) gives no signal there; the failure that lost the device is read where the program met it."""

from __future__ import annotations

from opsbrain.ingest.stopped import CHAINED, EXCEPTION_LINE, VLLM_PREFIX
from opsbrain.lazyre import lazy_compile

CUE = "Exception ignored"
"""The substring every head holds (a search in C before the regex)."""
HEAD = lazy_compile(r"^Exception ignored (?:in|on|while|when)\b.{0,400}$")
"""CPython's head of an unraisable exception (``Exception ignored in: <function LLMEngine.__del__ ...>``,
``Exception ignored in atexit callback: <bound method Engine.shutdown ...>``), after any vLLM process prefix."""
BODY = lazy_compile(r"^(?:\s|$)|^Traceback \(most recent call last\):")
"""A traceback's line: its header, an indented frame or source or caret line (or a blank one)."""
BLOCK_MOST = 400
"""reason: the most lines one block is read to hold (a deep traceback with chained exceptions runs to about 100); a
coarse bound, not fitted, as :data:`opsbrain.ingest.stopped.BLOCK_MOST`."""


class UnraisableScan:
    """One file's lines in order: the numbers of those of unraisable-exception blocks (module docstring), in
    :attr:`lines`."""

    def __init__(self) -> None:
        self._left = 0
        """Lines the open block may still hold (0: none open)."""
        self._ended = False
        """Whether the open block's exception line went by (only a chained exception or its indented rest goes on)."""
        self.lines: set[int] = set()

    def step(self, n: int, text: str) -> bool:
        """Line ``n``: whether it is a line of such a block."""
        if not self._left and CUE not in text:
            return False
        body = VLLM_PREFIX.sub("", text, count=1) if "pid=" in text else text
        if self._left and self._goes_on(body):
            self._left -= 1
            self.lines.add(n)
            return True
        self._left, self._ended = 0, False
        if CUE in body and HEAD.match(body):
            self._left = BLOCK_MOST
            self.lines.add(n)
            return True
        return False

    def _goes_on(self, body: str) -> bool:
        if self._ended:  # past its exception line: a chained exception, or that line's indented rest
            if CHAINED.match(body):
                self._ended = False
                return True
            return body[:1].isspace()
        if BODY.match(body) or CHAINED.match(body):
            return True
        if EXCEPTION_LINE.match(body):
            self._ended = True
            return True
        return False


def may_hold(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may hold such a block: a search in C, the bundle walk's cue."""
    return CUE.encode() in data
