"""Is an imported regular expression safe to search every log line with? (``kb import`` refuses it otherwise.)

Imported regexes are searched with Python's backtracking ``re`` on every line a diagnosis reads, so one bad
pattern would hang every later ``diagnose``. A pattern is refused when

- it does not compile, or matches the empty line;
- google-re2 (a linear-time engine; optional) cannot compile it: back-references and look-arounds have no
  linear-time guarantee;
- a repeat (``*``, ``+``, ``{m,n}`` with n > 1) contains another repeat or an alternation: nested quantifiers
  such as ``(\\w+\\s?)+$`` or ``(a|aa)+$`` backtrack exponentially;
- searching a few hostile lines of :data:`PROBE_CHARS` characters (one character repeated, then a character the
  pattern cannot end on) takes longer than :data:`PROBE_BUDGET_S`: polynomial backtracking such as ``.*a.*b``
  (seconds per line) is caught here. The probe is interrupted by a CPU-time timer (``re`` checks signals), so it never
  hangs; off the main thread no timer can be set and a pattern with more than one unbounded repeat is refused.
"""

from __future__ import annotations

import importlib
import re
import signal
import threading
import time
from typing import Any

sre_parse: Any = importlib.import_module("re._parser")  # the re module's own parser (Python 3.11+)

PROBE_CHARS = 4096  # the scan limit of a log line (opsbrain.ingest.parsers.ctx.MAX_LINE)
PROBE_BUDGET_S = 0.05  # reason: a line costs ~10 us to parse; 50 ms per hostile line is already 5000x that
_REPEATS = {sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT} | (
    {sre_parse.POSSESSIVE_REPEAT} if hasattr(sre_parse, "POSSESSIVE_REPEAT") else set())
_UNBOUNDED = sre_parse.MAXREPEAT
_PROBE_FILL = "a0 A_.:-/=,x\t"
_SLOW = f"is too slow (more than {PROBE_BUDGET_S * 1000:.0f} ms on a hostile {PROBE_CHARS}-character line)"
MAX_PATTERN_CHARS = 1000  # reason: the vendor's patterns are < 100 characters


class _ProbeTimeout(Exception):
    pass


def compile_checked(rx: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` for a pattern a user wrote: every way it can fail is a ``ValueError`` with the reason
    (``re.error``; OverflowError for a repeat count past 2^32; RecursionError for groups nested ~1000 deep), and
    Python's FutureWarning about an ambiguous pattern (``[[``: a set whose meaning a later Python changes) is one
    too, instead of a warning printed on stderr."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)
            return re.compile(rx, flags)
    except FutureWarning as exc:
        raise ValueError(f"ambiguous ({exc}); escape the '[', '-', '&', '~' or '|' it means literally") from None
    except (re.error, OverflowError) as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _walk(items: Any, in_repeat: bool, stats: dict[str, int]) -> str | None:
    for op, arg in items:
        if op in _REPEATS:
            lo, hi, sub = arg
            if hi > 1:
                if in_repeat:
                    return "a nested quantifier (risk of catastrophic backtracking)"
                if hi == _UNBOUNDED:
                    stats["unbounded"] += 1
            reason = _walk(sub, in_repeat or hi > 1, stats)
        elif op == sre_parse.BRANCH:
            if in_repeat:
                return "a quantified alternation (risk of catastrophic backtracking)"
            reason = next((r for b in arg[1] if (r := _walk(b, in_repeat, stats))), None)
        elif op == sre_parse.SUBPATTERN:
            reason = _walk(arg[-1], in_repeat, stats)
        elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            return "a look-around (no linear-time guarantee)"
        elif op in (sre_parse.GROUPREF, sre_parse.GROUPREF_EXISTS):
            return "a back-reference (no linear-time guarantee)"
        else:
            reason = None
        if reason:
            return reason
    return None


def _probe_lines(rx: str) -> list[str]:
    chars = dict.fromkeys(c for c in rx + _PROBE_FILL if c.isprintable() or c == "\t")
    return [c * PROBE_CHARS + "\x00" for c in chars] + [("ab" * PROBE_CHARS)[:PROBE_CHARS] + "\x00"]


def _probe(compiled: re.Pattern[str], rx: str) -> str | None:
    """Time the search on hostile lines under a timer; a reason when it is too slow.

    Both the budget and the timer count this process's CPU time (``thread_time``, ``ITIMER_VIRTUAL``), not wall
    time: on a loaded machine a safe pattern would otherwise be refused because other processes had the CPU."""
    def on_alarm(_signum: int, _frame: Any) -> None:
        raise _ProbeTimeout

    previous = signal.signal(signal.SIGVTALRM, on_alarm)
    try:
        for line in _probe_lines(rx):
            t0 = time.thread_time()
            signal.setitimer(signal.ITIMER_VIRTUAL, PROBE_BUDGET_S * 4)
            try:
                compiled.search(line)
            except _ProbeTimeout:
                return _SLOW
            finally:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            if time.thread_time() - t0 > PROBE_BUDGET_S:
                return _SLOW
    finally:
        signal.signal(signal.SIGVTALRM, previous)
    return None


def regex_problem(rx: str, probe: bool = True) -> str | None:
    """Why ``rx`` must not be searched on every log line (see the module docstring), or None when it is safe.
    ``probe=False``: the structural checks only (for re-reading what an import already probed)."""
    if len(rx) > MAX_PATTERN_CHARS:
        return f"is longer than {MAX_PATTERN_CHARS} characters"
    try:
        compiled = compile_checked(rx)
        tree = sre_parse.parse(rx)
    except (re.error, OverflowError, RecursionError, ValueError):
        return "does not compile"
    if compiled.search(""):
        return "matches the empty line (it would match every line)"
    stats = {"unbounded": 0}
    reason = _walk(tree, False, stats)
    if reason:
        return f"has {reason}"
    try:
        import re2  # google-re2: the linear-time engine, when installed
    except ImportError:
        re2 = None
    if re2 is not None:
        try:
            re2.compile(rx)
        except Exception:  # noqa: BLE001 - re2 raises its own error type for unsupported syntax
            return "uses syntax the linear-time engine (RE2) does not support"
    if not probe:
        return None
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return "has more than one unbounded quantifier (cannot be timed here)" if stats["unbounded"] > 1 else None
    return _probe(compiled, rx)
