"""Did the program go on after its last failing line? A training loop that logs its loss, a server that logs its
throughput, a tool that says it finished: where such lines follow the last line that failed, the failure was one the
program survived (a notice, a fallback, a retry), and a software class read from it is no failure of the run.

:class:`ProgressScan` is a line hook (every line of ``diagnose --logs``'s input, as the text view): per file, the
progress lines (:data:`PROGRESS`, no error word) since the last failing line (an error word, not stated below
WARNING) among its last :data:`TAIL` lines. :func:`went_on` then asks, with the signals read
from the same input, whether in every file that failed at least :data:`AFTER` progress lines follow both its last
failing line and its last failing signal.

Measured before it was written (session 53, on the first contact of seven blind sets: each set as read by the tree
of the session that collected it, before any reading was written from it): of 94 healthy runs read as a fault, 20
end with two or more progress lines after their last failing line, and none of the 204 faults read right there nor
of the 401 dev excerpts read right does (an offline regex; the figures of this code are in docs/validation.md)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from opsbrain.fastre import fast_search
from opsbrain.lazyre import lazy_compile
from opsbrain.verdict import UNKNOWN, Diagnosis

PROGRESS = lazy_compile(
    r"\bloss\b\s*(?:is\s*|[:=]\s*)?[-+]?\d"
    r"|\b(?:acc(?:uracy)?|top-?[15](?:[-_ ]?(?:acc|err))?|map|f1|ppl|perplexity|bleu|srcc|plcc|psnr|ssim)\b"
    r"\s*[:=]?\s*\d"
    r"|\b(?:epoch|step|iter(?:ation)?)\s*[:#]?\s*\[?\d+"
    r"|\btokens?/s\b|\bsamples?/s(?:ec)?\b|\bit/s\b|\bthroughput\b"
    r"|\b(?:success(?:ful(?:ly)?)?|succeed(?:ed)?|completed?|finished)\b"
    r"|\bstartup complete\b|\buvicorn running\b|\bserving on\b|\bexit(?:ed)? with (?:code )?0\b", re.I)
"""A line that says the program is working or is done: a training loop's loss, metric or step counter (``epoch: 1
step: 77, loss is 7.187697``, MindSpore's LossMonitor; ``Epoch: 20 Loss:0.0107 Accuarcy: 0.9979``), a server's
throughput (vLLM's ``Avg prompt throughput: 1638.4 tokens/s``, vllm/v1/metrics/loggers.py) or its start (uvicorn's
``Application startup complete.``), a tool's ``... finished`` / ``run success`` / ``exit with 0``. With an error word
it is no progress line (``Wait links establish completed failed``)."""
AFTER = 2
"""reason: how many progress lines must follow the last failing line. One is too few: a platform's ``Training
completed.`` after a crash it reported, a tool's ``analyze model finished.`` after its error (session 53, the
offline check: 1 first-contact and 2 dev answers lost at one, none at two); more lines lose healthy runs that end
soon after their notice (20 of 94 at two, 14 at three)."""

TAIL = 48
"""reason: the lines of each file kept to look for the progress after its last failure (the last failure is either
among them or before all of them): a run that went on logs a loss, a step or a throughput line every few lines; a
coarse bound, not fitted, that keeps the scan to one append a line (reading every line's words cost ~6 us a line)."""

_progress = fast_search(PROGRESS)


class ProgressScan:
    """The line hook (see the module): the last :data:`TAIL` lines of each file. ``has_error_word`` and
    ``below_warning`` tell a failing line (the text view's test: an error word, not stated below WARNING, on the line
    or in the head a collector put before it)."""

    def __init__(self, has_error_word: Any, below_warning: Any) -> None:
        self._error = has_error_word
        self._below = below_warning
        self.tails: dict[str | None, deque[tuple[int, str, str]]] = {}

    def __call__(self, line: str, file: str | None, line_no: int, head: str = "") -> None:
        if (tail := self.tails.get(file)) is None:
            tail = self.tails[file] = deque(maxlen=TAIL)
        tail.append((line_no, line, head))

    def read(self, file: str | None) -> tuple[int, list[int]]:
        """The last failing line among the file's last lines (0: none) and the progress lines after it."""
        last = 0
        progress: list[int] = []
        for n, line, head in self.tails.get(file, ()):
            if self._error(line) is not None:
                if not (self._below(head) or self._below(line)):
                    last, progress = n, []
            elif _progress(line) is not None:
                progress.append(n)
        return last, progress


@dataclass(frozen=True)
class WentOn:
    file: str | None
    lines: tuple[int, ...]
    """The line numbers of the progress lines after the last failure of a file that failed."""


def went_on(scan: ProgressScan, signals: Iterable[Any], failed: Iterable[str | None] = ()) -> WentOn | None:
    """Where every file that failed (``failed``: files the text view saw fail; a failing line among its last lines;
    a signal at warning level or above that is not the level's or a vendor entry's) shows :data:`AFTER` progress
    lines after both its last failing line and its last failing signal: the first such file and those lines, else
    None (nothing failed, or a file failed at its end)."""
    last_signal: dict[str | None, int] = {}
    for s in signals:
        if s.severity >= 1 and not s.kind.startswith(("level:", "vendor:")) and s.line_no is not None:
            last_signal[s.file] = max(last_signal.get(s.file, 0), s.line_no)
    read = {f: scan.read(f) for f in scan.tails}
    files = set(failed) | set(last_signal) | {f for f, (last, _) in read.items() if last}
    if not files:
        return None
    found: dict[str | None, list[int]] = {}
    for name in files:
        last, progress = read.get(name, (0, []))
        after = [n for n in progress if n > last_signal.get(name, 0)]
        if len(after) < AFTER:
            return None
        found[name] = after
    first = sorted(found, key=lambda f: "" if f is None else f)[0]
    return WentOn(first, tuple(found[first][-AFTER:]))


def progress_scan() -> ProgressScan:
    """The scan with the text view's tests of a failing line (:mod:`opsbrain.diagnosis.realtext`)."""
    from opsbrain.diagnosis.realtext import BELOW_WARNING, has_error_word

    below = BELOW_WARNING.search
    return ProgressScan(has_error_word, lambda text: below(text) if text else None)


def survived_run(d: Diagnosis, scan: ProgressScan, signals: list[Any], now: float,
                 failed: Iterable[str | None] = ()) -> Diagnosis | None:
    """``d`` as an abstention where it answers a software class (:data:`~opsbrain.diagnosis.realtext.ANSWERABLE`)
    and the program went on after its last failure (:func:`went_on`); None otherwise. The class stays the best
    guess (the first alternative)."""
    from opsbrain.diagnosis.realtext import ANSWERABLE

    if d.abstained or d.fault_class not in ANSWERABLE or (w := went_on(scan, signals, failed)) is None:
        return None
    where = f" of {w.file}" if w.file not in (None, "-", "<stdin>") else ""
    lines = ", ".join(str(n) for n in w.lines)
    why = (f"the program went on after its last failure: progress lines (loss, steps, throughput, a finish) follow "
           f"it, lines {lines}{where}; {d.fault_class} at {d.confidence:.0%} was read from a failure it survived; "
           "escalate")
    return Diagnosis(UNKNOWN, d.component, d.confidence, [*d.evidence, why], now, None,
                     [(d.fault_class, d.confidence), *[a for a in d.alternatives if a[0] != d.fault_class]])


__all__ = ["AFTER", "PROGRESS", "TAIL", "ProgressScan", "WentOn", "progress_scan", "survived_run", "went_on"]
