"""Did the program go on after its last failing line? A training loop that logs its loss, a server that logs its
throughput, a tool that says it finished: where such lines follow the last line that failed, the failure was one the
program survived (a notice, a fallback, a retry), and a software class read from it is no failure of the run.

:class:`ProgressScan` is a line hook (every line of ``diagnose --logs``'s input, as the text view): per file, the
progress lines (:data:`PROGRESS`, no error word, not a status readout's field) since the last failing line (an error
word, not stated below WARNING) among its last :data:`TAIL` lines. A file is one the lines were written to: where
an input holds several files' lines (``grep -r``'s output, ``tail`` of several files: the reader's ``origin``), each
of them apart (review53). :func:`went_on` then asks, with the signals read from the same input and the lines the text
view saw fail, whether in every file that failed at least :data:`AFTER` progress lines follow both its last failing
line and its last failing signal.

Measured before it was written (session 53, on the first contact of seven blind sets: each set as read by the tree
of the session that collected it, before any reading was written from it): of 94 healthy runs read as a fault, 20
end with two or more progress lines after their last failing line, and none of the 204 faults read right there nor
of the 401 dev excerpts read right does (an offline regex; the figures of this code are in docs/validation.md)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from opsbrain.fastre import fast_search
from opsbrain.ingest.testruns import UNITTEST_RAN, outcome_words
from opsbrain.lazyre import lazy_compile
from opsbrain.verdict import UNKNOWN, Diagnosis

GTEST_RAN = r"^\s*\[==========\] \d+ tests? from \d+ test (?:suite|case)s? ran\."
"""googletest's closing count (``[==========] 3 tests from 1 test suite ran. (4 ms total)``; googletest/src/gtest.cc
``PrettyUnitTestResultPrinter::OnTestIterationEnd``), before its ``[  PASSED  ]`` / ``[  FAILED  ]`` verdict."""
TEST_PASSED = (r"^\s*(?:OK(?: \((?:skipped|expected failures)=\d{1,9}(?:, (?:skipped|expected failures)=\d{1,9})?\))?"
               r"\s*$|\[       OK \] \S|\[  PASSED  \] \d{1,9} tests?\.)"
               r"|\b100% tests passed, 0 tests failed out of \d{1,9}")
"""The heads of :data:`~opsbrain.ingest.testruns.PASSED_RECORD`'s unittest and googletest forms and CTest's closing
count of a run that passed (``100% tests passed, 0 tests failed out of 12``, review59), with bounded repeats
(that regex reads whole lines by ``match`` after a cheap cue; a progress line is searched for on every held line, so
no repeat may nest in another: tests/test_review53.py)."""
PROGRESS = lazy_compile(
    r"(?:\b|_)loss\b['\"]?\s*(?:is\s*|[:=]\s*)?[-+]?\d"
    r"|\b(?:acc(?:uracy)?|top-?[15](?:[-_ ]?(?:acc|err))?|map|f1|ppl|perplexity|bleu|srcc|plcc|psnr|ssim)\b"
    r"(?:\s*[:=])?\s*\d"
    r"|\b(?:epoch|step|iter(?:ation)?)['\"]?(?:\s*[:#])?\s*\[?\d+"
    r"|\btokens?/s\b|\bsamples?/s(?:ec)?\b|\bit/s\b|\bthroughput\b"
    r"|\b(?:success(?:ful(?:ly)?)?|succeed(?:ed)?|completed?|finished)\b"
    r"|\bstartup complete\b|\buvicorn running\b|\bserving on\b|\bexit(?:ed)? with (?:code )?0\b"
    rf"|(?-i:{TEST_PASSED})|(?-i:{UNITTEST_RAN.pattern})|(?-i:{GTEST_RAN})", re.I)
"""A line that says the program is working or is done: a training loop's loss, metric or step counter (``epoch: 1 step:
77, loss is 7.187697``, MindSpore's LossMonitor; ``Epoch: 20 Loss:0.0107 Accuarcy: 0.9979``; transformers' Trainer's
logs dict ``{'loss': 0.6931, ..., 'epoch': 0.3}`` and ``'train_loss': 9.11``), a server's throughput (vLLM's ``Avg
prompt throughput: 1638.4 tokens/s``, vllm/v1/metrics/loggers.py) or its start (uvicorn's ``Application startup
complete.``), a tool's ``... finished`` / ``run success`` / ``exit with 0``, unittest's closing count and verdict of
a run that passed (``Ran 17 tests in 0.038s`` then ``OK`` or ``OK (skipped=2)``, CPython Lib/unittest/runner.py
``TextTestRunner.run``; a run with failures ends ``FAILED (failures=1)``: session 58, tester58x's b58x-07,
MindIE-SD's unit tests that raise its error codes on purpose and pass, read config_error 0.60), googletest's records
of a test that passed (:data:`TEST_PASSED`: ``[       OK ] Suite.Test (0 ms)`` and ``[  PASSED  ] 3 tests.``) with
its closing count (:data:`GTEST_RAN`): tester58y's b58y-09, hicann/runtime's unit tests whose stubbed driver calls fail
on purpose, read config_error 0.60. A tally of checks that all passed is progress too (:func:`is_progress`,
:func:`tally_of`). The test runners' forms are matched
case-sensitively (a bare ``ok`` is no verdict). With an error word it is no progress line (``Wait links establish
completed failed``), nor is a status readout's field (the scan's test). The blanks around a separator are one optional
group and a repeat (``(?:\\s*[:=])?\\s*``): two repeats of blanks on either side of an optional colon split a run of
blanks in O(n^2) ways under ``re``, the path that runs without RE2 (review53: ``step`` and 32,000 blanks took ~10 s)."""
AFTER = 2
"""reason: how many progress lines must follow the last failing line. One is too few: a platform's ``Training
completed.`` after a crash it reported, a tool's ``analyze model finished.`` after its error (session 53, the
offline check: 1 first-contact and 2 dev answers lost at one, none at two); more lines lose healthy runs that end
soon after their notice (20 of 94 at two, 14 at three)."""

TAIL = 48
"""reason: the lines of each file kept to look for the progress after its last failure (the last failure is either
among them or before all of them): a run that went on logs a loss, a step or a throughput line every few lines; a
coarse bound, not fitted, that keeps the scan to one append a line (reading every line's words cost ~6 us a line)."""

HELD = 256
"""reason: the files whose last lines are held as they are, read only where an answer asks (:func:`went_on`); past
them the earliest file's lines are read into its reading (its last failing line and the progress after it), and only
the reading is kept. A bound on the state, not a fit (review53: every file's 48 lines held to the end came to ~340 MB
for a directory of 20,000 short plogs; reading every file's lines as the next one starts added ~10% to the read of
1,000 such files, so the first 256 wait for an answer that asks)."""

MAX_TURNS = 100_000
"""reason: the points where an input of several files' lines passes from one file to another, kept to tell which
file a failing line or a signal was written to (a ``tail`` of ``dirwalk.MAX_FILES``' 20,000 files has 20,000, with
room); an input past it is not read apart, and a failure in it keeps its answer (a bound on the state, not a fit)."""

_progress_words = fast_search(PROGRESS)


def is_progress(line: str) -> bool:
    """A progress line: :data:`PROGRESS`'s words, or a tally whose checks all passed (:func:`tally_of`)."""
    return _progress_words(line) is not None or tally_of(line, short=False) is not None
_MIXED = object()
"""The key of a failure that cannot be placed in one of the files an input holds (past :data:`MAX_TURNS`, or the
whole input named): :func:`went_on` then answers None."""
_NONE = object()


class ProgressScan:
    """The line hook (see the module). ``has_error_word`` and ``below_warning`` tell a failing line (the text view's
    test: an error word, not stated below WARNING, on the line or in the head a collector put before it);
    ``error_head`` a line whose head states ERROR, its words none (a traceback's frame a logger wrote at ERROR: the
    text view's test too); ``is_readout`` a line that is no progress though its words say so (a status readout's
    ``net health status: Success``: a state a tool read, not the program going on).

    A line is read under its key: its file, or (file, origin) where the reader says it was written to another file
    (an input of several files' lines). The last :data:`TAIL` lines of up to :data:`HELD` keys are held; the
    earliest key's are read into its reading when another key would pass that, and a later run of its lines
    continues the reading."""

    def __init__(self, has_error_word: Any, below_warning: Any, is_readout: Any = None,
                 error_head: Any = None) -> None:
        self._error = has_error_word
        self._below = below_warning
        self._readout = is_readout
        self._error_head = error_head
        self.tails: dict[Any, deque[tuple[int, str, str]]] = {}
        self._key: Any = _NONE
        self._open: deque[tuple[int, str, str]] = deque(maxlen=TAIL)
        self._read: dict[Any, tuple[int, array[int]]] = {}
        self._turns: dict[str | None, tuple[array[int], list[str | None]]] = {}
        """file -> (the line numbers where its lines' origin changes, the origin from there on)."""
        self._turned = 0
        self._unplaced: set[str | None] = set()

    def __call__(self, line: str, file: str | None, line_no: int, head: str = "", origin: str | None = None) -> None:
        key = file if origin is None else (file, origin)
        if key != self._key:
            self._switch(key, file, line_no, origin)
        self._open.append((line_no, line, head))

    def _switch(self, key: Any, file: str | None, line_no: int, origin: str | None) -> None:
        """Another key's lines start: its held lines (past :data:`HELD` keys, the earliest key's read first); where
        the file's origin changes, noted."""
        self._key = key
        if (tail := self.tails.get(key)) is None:
            if len(self.tails) >= HELD:
                early = next(iter(self.tails))
                self._fold(early, self.tails.pop(early))
            tail = self.tails[key] = deque(maxlen=TAIL)
        self._open = tail
        if (origin is None and file not in self._turns) or file in self._unplaced:
            return
        nums, names = self._turns.setdefault(file, (array("q"), []))
        if names and names[-1] == origin:
            return
        if self._turned >= MAX_TURNS:
            self._unplaced.add(file)
            return
        nums.append(line_no)
        names.append(origin)
        self._turned += 1

    def _fold(self, key: Any, tail: deque[tuple[int, str, str]]) -> None:
        """The held lines of ``key`` read into its reading."""
        last, kept = self._read.get(key, (0, array("q")))
        new = array("q")
        for n, line, head in tail:
            if self._error(line) is not None or (self._error_head is not None and self._error_head(head)):
                if not (self._below(head) or self._below(line)):
                    last, kept, new = n, array("q"), array("q")
            elif is_progress(line) and not (self._readout and self._readout(line)):
                new.append(n)
        both = kept + new
        if last or both:
            self._read[key] = (last, both[-TAIL:])

    def key_of(self, file: str | None, line_no: int | None) -> Any:
        """The key line ``line_no`` of ``file`` was read under (``line_no`` None: the whole file)."""
        if file in self._unplaced:
            return _MIXED
        if (turns := self._turns.get(file)) is None:
            return file
        if line_no is None:
            return _MIXED
        nums, names = turns
        i = bisect_right(nums, line_no) - 1
        origin = names[i] if i >= 0 else None
        return file if origin is None else (file, origin)

    def readings(self) -> dict[Any, tuple[int, list[int]]]:
        """Each key's last failing line among its last lines (0: none) and the progress lines after it (of those
        with either): the held lines read (a line handed after this starts a new run of its key)."""
        for key, tail in self.tails.items():
            self._fold(key, tail)
        self.tails.clear()
        self._key = _NONE
        return {k: (last, list(p)) for k, (last, p) in self._read.items()}

    def read(self, file: str | None, origin: str | None = None) -> tuple[int, list[int]]:
        """The reading of ``file`` (of its lines written to ``origin``): :meth:`readings`."""
        return self.readings().get(file if origin is None else (file, origin), (0, []))


@dataclass(frozen=True)
class WentOn:
    file: str | None
    lines: tuple[int, ...]
    """The line numbers of the progress lines after the last failure of a file that failed."""
    origin: str | None = None
    """The file those lines were written to, where ``file`` holds several files' lines."""


def _keyed(key: Any) -> tuple[str | None, str | None]:
    return key if isinstance(key, tuple) else (key, None)


def went_on(scan: ProgressScan, signals: Iterable[Any],
            failed: Iterable[tuple[str | None, int] | str | None] = ()) -> WentOn | None:
    """Where every file that failed (``failed``: the (file, line) of the lines the text view saw fail, or files it
    saw fail; a failing line among its last lines; a signal at warning level or above that is not the level's or a
    vendor entry's) shows :data:`AFTER` progress lines after both its last failing line and its last failing
    signal: the first such file and those lines, else None (nothing failed, a file failed at its end, or a failure
    that cannot be placed in one of the files an input holds)."""
    read = scan.readings()
    last_signal: dict[Any, int] = {}
    for s in signals:
        if s.severity >= 1 and not s.kind.startswith(("level:", "vendor:")) and s.line_no is not None:
            key = scan.key_of(s.file, s.line_no)
            last_signal[key] = max(last_signal.get(key, 0), s.line_no)
    files = {scan.key_of(*f) if isinstance(f, tuple) else scan.key_of(f, None) for f in failed}
    files |= set(last_signal) | {k for k, (last, _) in read.items() if last}
    if not files or _MIXED in files:
        return None
    found: dict[Any, list[int]] = {}
    for key in files:
        last, progress = read.get(key, (0, []))
        after = [n for n in progress if n > last_signal.get(key, 0)]
        if len(after) < AFTER:
            return None
        found[key] = after
    first = min(found, key=lambda k: tuple("" if x is None else x for x in _keyed(k)))
    file, origin = _keyed(first)
    return WentOn(file, tuple(found[first][-AFTER:]), origin)


PASS_TALLY = lazy_compile(r"\b(\d{1,9})/(\d{1,9}) (?:(?:cases?|tests?) )?passed\b")
"""A tally of checks that passed, ``8/8 passed``, ``OVERALL: 16/16 cases passed``."""


def tally_of(line: str, short: bool) -> re.Match[str] | None:
    """A tally on ``line`` (:data:`PASS_TALLY`) whose checks all passed (``short`` False: a progress line; session
    59, tester59b's b59b-01, cann-bench's run, whose notice that a submission lacked one operator read
    framework_error 0.60, then 16 cases passed) or that passed fewer than it counts (``short`` True: ``→ 7/8
    passed``, a failing line of the scan, though it has no error word; review59: one operator's ``8/8 passed``
    after another's failure and ``OVERALL: 23/24`` read as gone on). Not in :data:`PROGRESS` as a back-reference:
    that took the whole pattern off RE2 (:func:`opsbrain.fastre.fast_search`) onto ``re`` (the hook's read)."""
    if "passed" not in line:
        return None
    for m in PASS_TALLY.finditer(line):
        passed, counted = int(m.group(1)), int(m.group(2))
        if (passed < counted) if short else (0 < passed == counted):
            return m
    return None


def short_tally(line: str) -> re.Match[str] | None:
    """A tally that passed fewer checks than it counts (:func:`tally_of`)."""
    return tally_of(line, short=True)


def progress_scan() -> ProgressScan:
    """The scan with the text view's tests of a failing line (:mod:`opsbrain.diagnosis.realtext`) and the readouts'
    test of a status field (:func:`opsbrain.ingest.readouts.readout_line`)."""
    from opsbrain.diagnosis.realtext import BELOW_WARNING, has_error_word, stated_error
    from opsbrain.ingest.benign import BENIGN
    from opsbrain.ingest.readouts import readout_line
    from opsbrain.ingest.runnotices import EXIT_NOTICES

    below, notice, benign = BELOW_WARNING.search, EXIT_NOTICES.search, BENIGN.search

    def failing(line: str) -> Any:
        """An error word, not an exit notice's (:data:`~opsbrain.ingest.runnotices.EXIT_NOTICES`) nor a documented
        harmless line's (:data:`~opsbrain.ingest.benign.BENIGN`, which the text view leaves out too; review59: pip's
        conflict report between a failure and the progress after it was the last failing line) nor a test runner's
        record of a test that passed (``[       OK ] Api.StreamCreateFailed (1 ms)``: its name is its author's words,
        :func:`~opsbrain.ingest.testruns.outcome_words`, as the text view reads it); or a tally that passed fewer
        than it counts (:func:`short_tally`)."""
        if (m := has_error_word(line)) is None:
            return short_tally(line)
        if notice(line) or benign(line):
            return None
        words = outcome_words(line)  # the line itself, unless it holds a test's record (the common line: one search)
        return m if words is line else has_error_word(words)

    return ProgressScan(failing, lambda text: below(text) if text else None, readout_line, stated_error)


def survived_run(d: Diagnosis, scan: ProgressScan, signals: list[Any], now: float,
                 failed: Iterable[tuple[str | None, int] | str | None] = ()) -> Diagnosis | None:
    """``d`` as an abstention where it answers a software class (:data:`~opsbrain.diagnosis.realtext.ANSWERABLE`)
    and the program went on after its last failure (:func:`went_on`); None otherwise. The class stays the best
    guess (the first alternative)."""
    from opsbrain.diagnosis.realtext import ANSWERABLE

    if d.abstained or d.fault_class not in ANSWERABLE or (w := went_on(scan, signals, failed)) is None:
        return None
    where = f" of {w.file}" if w.file not in (None, "-", "<stdin>") else ""
    if w.origin:
        where += f" (those written to {w.origin})"
    lines = ", ".join(str(n) for n in w.lines)
    why = (f"the program went on after its last failure: progress lines (loss, steps, throughput, a finish) follow "
           f"it, lines {lines}{where}; {d.fault_class} at {d.confidence:.0%} was read from a failure it survived; "
           "escalate")
    return Diagnosis(UNKNOWN, d.component, d.confidence, [*d.evidence, why], now, None,
                     [(d.fault_class, d.confidence), *[a for a in d.alternatives if a[0] != d.fault_class]])


__all__ = ["AFTER", "HELD", "MAX_TURNS", "PROGRESS", "TAIL", "ProgressScan", "WentOn", "is_progress", "progress_scan",
           "short_tally", "survived_run", "tally_of", "went_on"]
