"""``opsbrain watch``: follow log directories, group signals into incidents, diagnose each with the shipped
engine and report it with the runbook it would run, as a dry run.

Grouping and re-reporting: :mod:`opsbrain.sources.incidents` (by node; only fault-level signals keep an incident
open; a new fault, a new device or the same fault again is reported; lines replayed from before the watch are grouped
by their own time stamps). Each report says when an incident is a repeat of earlier ones of its class on the same
part (a runbook's ``repeat`` rule: the second HBM UCE on an NPU within 24 h advises separating it) and then advises
the harder runbook. Reports go to a callback (the CLI prints them) and, with a webhook URL, are POSTed as JSON from a
background thread (:class:`opsbrain.service.alerts.WebhookSender`: the poll loop never waits on the network; a stop
gives queued posts at most :data:`STOP_BUDGET_S`). Nothing is executed unless an actuator is given
(:mod:`opsbrain.sources.advice`).

On a stop, the files are polled once more and every incident not yet diagnosed for what it holds is diagnosed and
reported at once (``"at_stop": true``). With a state file, each file's offset and the reported incidents (for the
repeat rules) are kept there every :data:`STATE_EVERY_S` and at the stop; a watch started with the same state file
continues each file where the last one stopped, and groups what was written meanwhile by its time stamps.

With a telemetry source (``--url``), the watch also sweeps it every ``sweep_every_s`` and reports each
Alarm-or-worse finding that was not active in the previous sweep, or whose severity rose (a finding that clears and
comes back is reported again); a collection that fails is counted, and the next one is tried.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.errors import InputError
from opsbrain.ingest.dirwalk import check_listable
from opsbrain.sources.advice import Actuator, advise, execute
from opsbrain.sources.base import ReadingsSource
from opsbrain.sources.follow import LogFollower
from opsbrain.sources.incidents import History, IncidentGrouper, Told, WatchIncident

if TYPE_CHECKING:
    from opsbrain.detection.params import DetectorParams
    from opsbrain.service.alerts import WebhookSender
    from opsbrain.service.metrics import DiagnosisMetrics

__all__ = ["IncidentGrouper", "WatchIncident", "Watcher"]

Report = Callable[[dict[str, Any]], None]

MAX_SOURCE_ERRORS = 100
"""Distinct collection errors kept for the summary (a week of failed sweeps at 5 min is ~2,000; their count is kept
apart): the list no longer grows for ever."""
STOP_BUDGET_S = 5.0
"""Seconds a stop gives queued webhook posts (as ``sweep run``'s stop, ``service.scheduler.STOP_WAIT_S``)."""
STATE_EVERY_S = 10.0
"""reason: a state file written every 10 s costs one small atomic write; a crash re-reads at most 10 s of lines."""
STATE_VERSION = 1


class Watcher:
    """Follows ``logs`` and reports incidents (see module docstring)."""

    def __init__(self, logs: str | Path, engine: Any, report: Report, webhook: str | None = None,
                 actuator: Actuator | None = None, poll_s: float = 0.25, from_start: bool = False,
                 params: DetectorParams | None = None, clock: Callable[[], float] = time.monotonic,
                 source: ReadingsSource | None = None, sweep_every_s: float = 300.0,
                 webhook_format: str = "opsbrain", metrics: DiagnosisMetrics | None = None,
                 follow_links: bool = False, state_file: str | Path | None = None,
                 wall: Callable[[], float] = time.time,
                 on_source_error: Callable[[str], None] | None = None) -> None:
        from opsbrain.service.alerts import FORMATS, check_url

        root = Path(logs)
        if root.is_symlink() and not follow_links:
            raise InputError("refusing to follow a symbolic link (--follow-links reads it)", file=str(logs),
                             path="--logs")
        if not root.exists():  # session 42: a typo was "not a directory"
            raise InputError("no such directory", file=str(logs), path="--logs")
        if not root.is_dir():
            raise InputError("not a directory (watch follows a directory of logs)", file=str(logs), path="--logs")
        check_listable(root, "--logs")
        check_url(webhook)
        if webhook_format not in FORMATS:
            raise InputError(f"unknown webhook format {webhook_format!r}", path="--webhook-format")
        self.webhook_format = webhook_format
        self.metrics = metrics
        if not poll_s > 0:
            raise InputError(f"must be > 0, got {poll_s}", path="--poll")
        self.root = root.resolve()
        self.state_file = Path(state_file) if state_file is not None else None
        saved = self._load_state() if self.state_file is not None else None
        self.follower = LogFollower(root, from_start, follow_links, resume=saved)
        self.grouper = IncidentGrouper(params, first=int((saved or {}).get("next_incident", 1) or 1))
        self.history = History.from_json((saved or {}).get("history"))
        self.engine = engine
        self.report = report
        self.webhook = webhook
        self.actuator = actuator
        self.poll_s = poll_s
        self.clock = clock
        self.wall = wall
        self.reports = 0
        self.at_stop = 0
        self.webhook_errors: list[str] = []
        self._lock = threading.Lock()
        self._sender: WebhookSender | None = None
        if source is not None and not sweep_every_s > 0:
            raise InputError(f"must be > 0, got {sweep_every_s}", path="--sweep-interval")
        self.source = source
        self.sweep_every_s = sweep_every_s
        self._next_sweep = -float("inf")
        self._active: dict[tuple[str, str], int] = {}  # (component, check) -> its level in the last sweep
        self._ever: set[tuple[str, str]] = set()  # reported at least once
        self.sweeps = 0
        self.source_errors: list[str] = []
        self.source_error_count = 0
        self.on_source_error = on_source_error  # each distinct --url failure, said when first seen (session 41)
        self._told: set[str] = set()
        self._t0 = self.clock()
        self._wall0 = self.wall()
        self._saved_at = -float("inf")

    # ---- the loop ------------------------------------------------------------------------------------------
    def _wall_at(self, now: float) -> float:
        return self._wall0 + (now - self._t0)

    def step(self, sweep: bool = True) -> None:
        """One poll: new lines -> grouping -> diagnoses due -> reports."""
        now = self.clock()
        for a in self.follower.poll_timed(now, self._wall_at(now)):
            at = a.stamp if a.replayed and a.stamp is not None else a.sig.t
            self.grouper.feed(a.sig, now, at, a.stamp)
        for inc in self.grouper.due(now):
            self._diagnose(inc, now)
        if sweep and self.source is not None and now >= self._next_sweep:
            self._next_sweep = now + self.sweep_every_s
            self._sweep(now)

    def run(self, stop: threading.Event, max_runtime_s: float | None = None) -> dict[str, Any]:
        """Poll until ``stop`` is set or ``max_runtime_s`` wall seconds passed; then report what is open, keep the
        state, give queued webhook posts their budget; a summary."""
        from opsbrain.service.alerts import WebhookSender

        self._t0, self._wall0 = self.clock(), self.wall()
        if self.webhook and self._sender is None:
            self._sender = WebhookSender(self.webhook, self._on_post)
        try:
            while not stop.is_set():
                self.step()
                self._keep_state(False)
                if max_runtime_s is not None and self.clock() - self._t0 >= max_runtime_s:
                    break
                stop.wait(self.poll_s)
            self._finish()
        finally:
            if self._sender is not None:
                self._sender.close(STOP_BUDGET_S, "the watch stopped")
                self._sender = None
        st = self.follower.stats
        skipped = self.follower.skipped()
        return {"incidents": len(self.grouper.incidents), "reports": self.reports, "reported_at_stop": self.at_stop,
                "lines": self.follower.lines, "files": len(self.follower._tails),  # noqa: SLF001
                "wall_s": round(self.clock() - self._t0, 3), "webhook_errors": self.webhook_errors[:20],
                "not_read": skipped[:20], "not_read_n": len(skipped), "lines_cut": st.lines_cut,
                "binary_lines": st.binary_lines, "notes": st.notes[:20],
                "state_file": str(self.state_file) if self.state_file is not None else None,
                "resumed_files": self.follower.resumed,
                "sweeps": self.sweeps, "source_errors": self.source_errors[:20],
                "failed_collections": self.source_error_count}

    def _finish(self) -> None:
        """At a stop: the lines written since the last poll, then every incident with something not diagnosed yet
        (collected for less than ``collect_s``), diagnosed and reported now; the state kept."""
        self.step(sweep=False)
        now = self.clock()
        for inc in self.grouper.pending():
            self._diagnose(inc, now, at_stop=True)
        self._keep_state(True)

    # ---- incidents -----------------------------------------------------------------------------------------
    def _diagnose(self, inc: WatchIncident, now: float, at_stop: bool = False) -> None:
        from dataclasses import replace

        from opsbrain.diagnosis.oneclick import diagnose_signals

        inc.diagnosed_kinds = frozenset(inc.kinds)
        inc.dirty = False
        t0 = time.perf_counter()
        timed = [replace(s, t=at - inc.start_t) for s, at in zip(inc.signals, inc.seen, strict=True)]
        res = diagnose_signals(self.engine, timed, {"lines": len(inc.signals)}, None)
        d = res["diagnosis"]
        if self.metrics is not None:
            self.metrics.observe(d["fault_class"], float(d["confidence"]), time.perf_counter() - t0, "watch")
        verdict = (d["fault_class"], d.get("component"))
        if verdict == inc.reported and not inc.news:
            return
        first = inc.reported is None
        news = [] if first else list(inc.news)
        if not first and verdict != inc.reported:
            news.insert(0, f"verdict was {inc.reported[0]} at {inc.reported[1] or inc.key}")  # type: ignore[index]
        inc.reported, inc.news = verdict, []
        part = d.get("component") or inc.key
        runbook, repeat = self._repeat(inc, d["fault_class"], part, d.get("runbook"))
        advice = advise(runbook, d.get("component"))
        data = {"incident": inc.id, "update": not first, "news": news, "at_stop": at_stop,
                "opened_s": round(inc.opened - self._t0, 3), "reported_s": round(now - self._t0, 3),
                "opened_at": _iso(inc.start_t), "node": inc.key, "signals": len(inc.signals),
                "fault_class": d["fault_class"], "component": d.get("component"), "root": d.get("root"),
                "confidence": round(float(d["confidence"]), 4), "evidence": d["evidence"],
                "evidence_lines": d.get("evidence_lines", [])[:6], "repeat": repeat, "advice": advice,
                "actuator": self.actuator.name if self.actuator is not None else None,
                "executed": execute(self.actuator, advice)}
        self.reports += 1
        self.at_stop += at_stop
        self.report(data)
        self._post(inc.id, data)

    def _repeat(self, inc: WatchIncident, cls: str, part: str | None, runbook: str | None
                ) -> tuple[str | None, dict[str, Any] | None]:
        """The runbook to advise after its ``repeat`` rule, and what the repeat is (None: a first occurrence)."""
        from opsbrain.recovery.loader import load_runbooks
        from opsbrain.recovery.params import RecoveryParams

        self.history.note(Told(inc.id, cls, part, inc.last_t, inc.occurrences))
        rb = load_runbooks().get(runbook) if runbook else None
        rule = rb.repeat if rb is not None else None
        within = (rule.within_s if rule is not None and rule.within_s else None) or RecoveryParams().repeat_window_s
        earlier = self.history.earlier(cls, part, inc.last_t, within, inc.id)
        count = inc.occurrences + sum(r.occurrences for r in earlier)
        if count < 2:
            return runbook, None
        out: dict[str, Any] = {"count": count, "within_s": within, "earlier": [r.incident for r in earlier],
                               "part": part, "rule": None}
        if rule is not None and count >= rule.count:
            out["rule"] = {"count": rule.count, "from": runbook, "to": rule.then, "source": rule.source}
            runbook = rule.then
        return runbook, out

    # ---- telemetry -----------------------------------------------------------------------------------------
    def _sweep(self, now: float) -> None:
        from opsbrain.sources.base import sweep_source

        assert self.source is not None
        try:
            report = sweep_source(self.source)
        except InputError as exc:
            if len(self.source_errors) < MAX_SOURCE_ERRORS and str(exc) not in self.source_errors:
                self.source_errors.append(str(exc))  # once: every failed sweep of a dead page says the same
            self.source_error_count += 1
            self._tell([str(exc)] if not getattr(self.source, "not_read", None) else list(self.source.not_read))
            return
        self.sweeps += 1
        partial = False
        for x in getattr(self.source, "not_read", ()):  # one URL of several down: the others were swept
            partial = True
            if len(self.source_errors) < MAX_SOURCE_ERRORS and x not in self.source_errors:
                self.source_errors.append(x)
        self._tell(list(getattr(self.source, "not_read", ())))
        current: dict[tuple[str, str], Any] = {}
        for f in report.at_least("Alarm"):
            key = (f.component, f.check)
            if key not in current or f.level > current[key].level:
                current[key] = f
        for key, f in current.items():
            if f.level <= self._active.get(key, -1):
                continue  # still active, not worse
            data = {"finding": f.as_dict(), "source": self.source.name, "reported_s": round(now - self._t0, 3),
                    "again": key in self._ever and key not in self._active, "advisory": True}  # cleared, back
            self._ever.add(key)
            self.reports += 1
            self.report(data)
            self._post(f.component, data)
        levels = {k: f.level for k, f in current.items()}
        # a page that was not read says nothing of its findings: they stay active until a sweep reads it
        self._active = {**self._active, **levels} if partial else levels

    def _tell(self, errors: list[str]) -> None:
        """Each ``--url`` failure not said before, to ``on_source_error`` (the CLI prints it on stderr): before
        session 41 a watch whose pages could not be read (an HTML error page, a dead address) said nothing of it,
        during the run or in its text summary."""
        for x in errors:
            if self.on_source_error is not None and x not in self._told and len(self._told) < MAX_SOURCE_ERRORS:
                self._told.add(x)
                self.on_source_error(x)

    # ---- webhook and state ---------------------------------------------------------------------------------
    def _post(self, key: str, data: dict[str, Any]) -> None:
        """Queue one report for the webhook (as itself, or as an Alertmanager notification)."""
        if not self.webhook:
            return
        from opsbrain.service.alerts import body_for, post_json

        body = body_for(data, self.webhook_format)
        if self._sender is not None:
            self._sender.send(key, body)
        else:  # not running (a direct call of step): post here
            self._on_post(key, post_json(self.webhook, body))

    def _on_post(self, key: str, failed: str | None) -> None:
        """A post's outcome (from the sender's thread)."""
        if self.metrics is not None:
            self.metrics.webhook(self.webhook_format, failed is None)
        if failed is not None:
            with self._lock:
                self.webhook_errors.append(f"{key}: {failed}")

    def _load_state(self) -> dict[str, Any] | None:
        """The saved state (None: no file yet); InputError for a file that is not one, or one of another tree."""
        from opsbrain.ingest.textpaths import read_small

        assert self.state_file is not None
        if self.state_file.is_dir():
            raise InputError("is a directory; the state is one file (give a file name, e.g. DIR/watch-state.json)",
                             file=str(self.state_file), path="--state")
        if not self.state_file.exists():  # where it will be written: checked now, not at the first save
            from opsbrain.fsio import check_target, check_writable

            check_writable(check_target(self.state_file, "--state").parent, "--state")
            return None
        from opsbrain.yamlio import json_or_none

        _ok, data = json_or_none(read_small(self.state_file))  # deep nesting, a 5000-digit number: not a state
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise InputError("not a watch state file (give a new path, or remove it)", file=str(self.state_file),
                             path="--state")
        if data.get("root") != str(self.root):
            raise InputError(f"the state of a watch of {str(data.get('root'))[:200]}, not of {self.root} (give "
                             "another --state file)", file=str(self.state_file), path="--state")
        if (bad := state_problem(data)) is not None:
            raise InputError(f"{bad[1]}: not a watch state file (give a new path, or remove it)",
                             file=str(self.state_file), path=bad[0])
        return data

    def _keep_state(self, final: bool) -> None:
        """Write the state file (every STATE_EVERY_S, and at the stop); a failed write is said once per kind."""
        from opsbrain.fsio import write_json_atomic
        from opsbrain.recovery.params import RecoveryParams

        now = self.clock()
        if self.state_file is None or (not final and now - self._saved_at < STATE_EVERY_S):
            return
        self._saved_at = now
        wall = self._wall_at(now)
        data = {"version": STATE_VERSION, "root": str(self.root), "saved_at": _iso(wall),
                "next_incident": self.grouper.first + len(self.grouper.incidents),
                "history": self.history.as_json(wall, RecoveryParams().repeat_window_s), **self.follower.state()}
        try:
            write_json_atomic(self.state_file, data)
        except (OSError, InputError) as exc:
            note = f"{self.state_file}: the state could not be kept: {getattr(exc, 'strerror', None) or exc}"
            if note not in self.follower.stats.not_read:
                self.follower.stats.not_read.append(note)


_STATE_FILE_FIELDS = {"inode": int, "offset": int, "head_n": int, "line_no": int, "head": str}


def state_problem(data: dict[str, Any]) -> tuple[str, str] | None:
    """(where, what) of the first field of a watch state file (:meth:`Watcher._keep_state`) of the wrong shape, else
    None (session 34: ``next_incident: [null]`` or a list as a file's inode was a TypeError traceback)."""
    first = data.get("next_incident", 1)
    if type(first) is not int or not 1 <= first < 2**63:
        import json

        return "next_incident", f"expected a whole number >= 1, got {json.dumps(first, default=str)[:40]}"
    if not isinstance(data.get("history", []), list):
        return "history", "expected a list"
    files = data.get("files", {})
    if not isinstance(files, dict):
        return "files", "expected a mapping of file names"
    for rel, row in files.items():
        if not isinstance(row, dict):
            return f"files.{rel[:100]}", "expected a mapping"
        for key, kind in _STATE_FILE_FIELDS.items():
            if key in row and (type(row[key]) is not kind or (kind is int and not 0 <= row[key] < 2**63)):
                return f"files.{rel[:100]}.{key}", f"expected {'a whole number >= 0' if kind is int else 'text'}"
    return None


def _iso(t: float) -> str | None:
    """A grouping time (seconds since the epoch, local) as ISO 8601, to the second."""
    from datetime import datetime

    try:
        return datetime.fromtimestamp(t).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None
