"""The scheduled sweep service (``opsbrain sweep run``): APScheduler 3.x driving sweeps of a live simulated pod.

The only module that imports apscheduler (a test enforces it).

- Scheduler: a ``BackgroundScheduler`` (UTC) with apscheduler's memory job store and a one-thread executor; the
  main thread only waits for a stop (SIGINT/SIGTERM, ``--max-runtime``, or :meth:`SweepService.stop`).
- Job defaults, on purpose: ``max_instances=1`` (a sweep never overlaps the previous one: they share the pod's
  simulation), ``coalesce=True`` (runs missed while a sweep was slow or the host paused collapse into one: an old
  snapshot is worth nothing once a newer one can be taken), ``misfire_grace_time`` = ``misfire_grace_share`` of
  the trigger's period (a run that starts late by less than half a period still runs; a later one is skipped
  and the next slot taken).
- Persistence: the schedule (id, trigger, next run, last run) lives in the run store's ``sweep_schedules`` table
  (SQLite), not in an apscheduler job store: the SQLAlchemy job store would need SQLAlchemy, which opsbrain does
  not otherwise depend on, and would pickle a callable bound to a live simulation that cannot survive a restart
  anyway. At start the stored schedule is reloaded: a command without ``--interval``/``--cron`` resumes it with
  its trigger, and a stored next run still ahead is kept (one already past runs at once, coalesced). The live
  pod itself is not persisted: it starts again from simulated time 0. A real source's collection history is kept
  in the same store (``pod.attach_store``, :mod:`opsbrain.sources.keep`).
- Results: every sweep is stored in the run store's ``sweeps`` table and exported as Prometheus metrics.
"""

from __future__ import annotations

import logging
import math
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from faultlib.params import P, ParamGroup
from opsbrain.errors import InputError, SourceAuthError
from opsbrain.service.alerts import WebhookSender, deadline_left
from opsbrain.service.live import LivePod
from opsbrain.service.lock import ScheduleLock, schedule_id_of
from opsbrain.service.metrics import DEFAULT_BIND, MetricsServer, RunStoreCollector, SweepMetrics
from opsbrain.service.sourcestate import SourceState
from opsbrain.store import RunStore
from opsbrain.sweeps.params import SweepParams

log = logging.getLogger(__name__)
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_INTERVAL = re.compile(r"^\s*(\d{1,15}(?:\.\d{0,15})?|\.\d{1,15})\s*([smhd]?)\s*$", re.I)
MIN_INTERVAL_S = 0.1  # reason: a sweep takes tens of ms; faster is no schedule (1e-6 s kept the scheduler busy)
MAX_INTERVAL_S = 366 * 86400.0  # reason: a sweep a year apart is no schedule; beyond, datetimes overflow
STOP_WAIT_S = 5.0  # a stop (SIGTERM) waits at most this long for a running sweep


class ServiceParams(ParamGroup):
    """How the sweep service schedules."""

    misfire_grace_share: float = P(
        0.5, "share of the period", "reason: a sweep that starts late by less than half its period is still nearer "
        "its own slot than the next one's; later, skip it and take the next slot (coalesced)", gt=0, le=1)
    min_misfire_grace_s: float = P(
        1.0, "s", "reason: apscheduler counts grace in whole seconds; below one second every late start would be "
        "dropped", ge=1)
    default_interval_s: float = P(
        SweepParams().interval_s, "s", "the sweep interval (sweeps.interval_s: Meta runs health checks every 5 min, "
        "facts.md §4), in wall-clock time", gt=0)


def parse_interval(text: str) -> float:
    """``"5m"`` -> 300.0; units s, m, h, d (none: seconds)."""
    m = _INTERVAL.match(text)
    if not m:
        raise InputError(f"expected a duration like 30s, 5m, 1h or 300, got {text!r}", path="--interval")
    seconds = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not seconds > 0:
        raise InputError(f"must be > 0, got {text[:40]!r}", path="--interval")
    if not MIN_INTERVAL_S <= seconds <= MAX_INTERVAL_S:
        raise InputError(f"must be between {MIN_INTERVAL_S:g} s and {MAX_INTERVAL_S / 86400:g} days, got "
                         f"{text[:40]!r}", path="--interval")
    return seconds


@dataclass(frozen=True)
class TriggerSpec:
    """A schedule's trigger: every ``value`` seconds, or a 5-field crontab expression (UTC)."""

    kind: Literal["interval", "cron"]
    value: str

    @classmethod
    def from_options(cls, interval: str | None, cron: str | None) -> TriggerSpec | None:
        if interval is not None and cron is not None:
            raise InputError("give at most one of --interval and --cron")
        if cron is not None:
            spec = cls("cron", " ".join(cron.split()))
            spec.build()  # validate now
            return spec
        if interval is not None:
            return cls("interval", repr(parse_interval(interval)))
        return None

    def encode(self) -> str:
        return f"{self.kind}:{self.value}"

    @classmethod
    def decode(cls, text: str) -> TriggerSpec:
        kind, _, value = text.partition(":")
        if kind not in ("interval", "cron"):
            raise InputError(f"unknown trigger {text!r} in the schedule store")
        return cls(kind, value)  # type: ignore[arg-type]

    def build(self) -> BaseTrigger:
        if self.kind == "interval":
            return IntervalTrigger(seconds=float(self.value), timezone=UTC)
        try:
            return CronTrigger.from_crontab(self.value, timezone=UTC)
        except ValueError as exc:
            raise InputError(f"not a crontab expression ({exc}): {self.value!r}", path="--cron") from None

    def period_s(self, now: datetime | None = None) -> float:
        """Seconds between two runs (for cron: the next two fire times from ``now``)."""
        if self.kind == "interval":
            return float(self.value)
        trig = self.build()
        now = now or datetime.now(UTC)
        a = trig.get_next_fire_time(None, now)
        b = trig.get_next_fire_time(a, a) if a is not None else None
        return (b - a).total_seconds() if a is not None and b is not None else 60.0

    def __str__(self) -> str:
        if self.kind == "interval":
            return f"every {float(self.value):g} s"
        return f"cron '{self.value}' (UTC)"


def _iso(dt: datetime | None) -> str | None:
    return dt.astimezone(UTC).isoformat(timespec="seconds") if dt is not None else None


def _parse_iso(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


SweepCallback = Callable[[dict[str, Any]], None]


class SweepService:
    """Scheduled sweeps of a :class:`LivePod`; results to the run store and to :class:`SweepMetrics`."""

    def __init__(self, pod: LivePod, store: RunStore, trigger: TriggerSpec | None = None,
                 metrics: SweepMetrics | None = None, params: ServiceParams | None = None,
                 on_sweep: SweepCallback | None = None, schedule_id: str | None = None,
                 webhook: str | None = None, webhook_format: str = "alertmanager") -> None:
        from opsbrain.service.alerts import FORMATS, check_url

        check_url(webhook)
        if webhook_format not in FORMATS:
            raise InputError(f"unknown webhook format {webhook_format!r}", path="--webhook-format")
        self.webhook, self.webhook_format = webhook, webhook_format
        self._alerted: set[tuple[str, str, str]] = set()
        self.webhook_errors: list[str] = []
        self._sender: WebhookSender | None = None
        self.pod = pod
        self.store = store
        self.metrics = metrics or SweepMetrics()
        self.p = params or ServiceParams()
        self.on_sweep = on_sweep
        self.schedule_id = schedule_id or schedule_id_of(pod.name)
        self.errors: list[str] = []
        self.source = SourceState(self.schedule_id, log, self.metrics)
        """The swept source's state: a refused authorization said once per change (docs/sweeps.md)."""
        self.trigger, self._resume_at = self._restore(trigger)
        attach = getattr(pod, "attach_store", None)  # a real source keeps its collection history in the store
        if attach is not None:
            attach(store, self.schedule_id)
        self._next_trigger = self.trigger.build()  # for the next-run time the job records (see _job)
        self._lock = threading.Lock()
        self.scheduler = BackgroundScheduler(timezone=UTC, executors={"default": {"type": "threadpool",
                                                                                   "max_workers": 1}})
        self.server: MetricsServer | None = None
        self.skipped = 0
        self.scheduler.add_listener(self._on_skip, EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES)

    def _on_skip(self, event: JobEvent) -> None:
        """A run skipped: the previous sweep still ran (max_instances) or it came later than the grace time."""
        with self._lock:
            self.skipped += 1
        self.metrics.skipped.inc()
        log.warning("scheduled sweep skipped", extra={"schedule": self.schedule_id, "event": event.code})

    def _restore(self, trigger: TriggerSpec | None) -> tuple[TriggerSpec, datetime | None]:
        """The trigger to use and a stored next run to resume at (see module docstring)."""
        stored = self.store.get_schedule(self.schedule_id)
        old = TriggerSpec.decode(stored["trigger"]) if stored else None
        if trigger is None:
            trigger = old or TriggerSpec("interval", repr(self.p.default_interval_s))
        resume = _parse_iso(stored["next_run"]) if stored and old == trigger else None
        if not (stored and old == trigger):
            self.store.save_schedule(self.schedule_id, self.pod.name, trigger.encode())
        return trigger, resume

    # ---- lifecycle ---------------------------------------------------------------------------------------
    def start(self, metrics_port: int | None = None, bind: str = DEFAULT_BIND) -> None:
        """Start the metrics endpoint (``metrics_port`` on ``bind``; 0 = any free port) and the scheduler. The
        endpoint serves the sweep metrics and the run store's figures (:class:`RunStoreCollector`)."""
        if metrics_port is not None:
            self.metrics.registry.register(RunStoreCollector(self.store))
            try:
                self.server = self.metrics.serve(metrics_port, bind)
            except (OSError, ValueError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise InputError(f"cannot serve metrics on {bind}:{metrics_port}: {why}",
                                 path="--metrics-port") from None
            log.info("metrics endpoint up", extra={"url": self.server.url})
        now = datetime.now(UTC)
        first = self._resume_at if self._resume_at is not None and self._resume_at > now else now
        grace = max(self.p.min_misfire_grace_s, self.p.misfire_grace_share * self.trigger.period_s(now))
        self.scheduler.add_job(self._job, self.trigger.build(), id=self.schedule_id, name=str(self.trigger),
                               next_run_time=first, max_instances=1, coalesce=True,
                               misfire_grace_time=int(math.ceil(grace)), replace_existing=True)
        self.store.update_schedule_runs(self.schedule_id, None, _iso(first))
        if self.webhook and self._sender is None:  # posts leave from their own thread (docs/sweeps.md, Stopping)
            self._sender = WebhookSender(self.webhook, self._on_post)
        self.scheduler.start()

    def stop(self) -> None:
        """Stop scheduling, cancel the pod's catch-up simulation, wait for a running sweep (at most
        :data:`STOP_WAIT_S`), keep the next run time in the store, close the endpoint."""
        deadline = time.monotonic() + STOP_WAIT_S  # the sweep and the webhook's queue share the budget
        cancel = getattr(self.pod, "cancel", None)
        if self.scheduler.running:
            if cancel is not None:
                cancel.set()
            job = self.scheduler.get_job(self.schedule_id)
            nxt = job.next_run_time if job is not None else None
            done = threading.Event()

            def shutdown() -> None:
                self.scheduler.shutdown(wait=True)
                if cancel is not None:
                    cancel.clear()  # the pod itself may be advanced again (the stop only ended the sweep)
                done.set()

            threading.Thread(target=shutdown, daemon=True).start()
            if not done.wait(STOP_WAIT_S):  # a sweep stuck in one long step: leave it to die with the process
                with self._lock:
                    self.errors.append(f"a running sweep did not stop within {STOP_WAIT_S:g} s; abandoned")
            self.store.update_schedule_runs(self.schedule_id, None, _iso(nxt))
        if self._sender is not None:
            self._sender.close(deadline_left(deadline))
            self._sender = None
        if self.server is not None:
            self.server.close()
            self.server = None

    def jobs(self) -> list[dict[str, Any]]:
        """The scheduled jobs: id, trigger, next run (UTC ISO) — from the scheduler while it runs, else the store."""
        if self.scheduler.running:
            return [{"id": j.id, "trigger": self.trigger.encode() if j.id == self.schedule_id else str(j.trigger),
                     "description": j.name, "next_run": _iso(j.next_run_time)} for j in self.scheduler.get_jobs()]
        return [{"id": s["id"], "trigger": s["trigger"], "description": str(TriggerSpec.decode(s["trigger"])),
                 "next_run": s["next_run"], "last_run": s["last_run"]} for s in self.store.list_schedules()]

    # ---- the job -----------------------------------------------------------------------------------------
    def _job(self) -> None:
        """One scheduled sweep. It never calls the scheduler: ``shutdown(wait=True)`` holds the job-store lock
        while it waits for a running job, so a job asking the scheduler for anything would deadlock the stop."""
        started = datetime.now(UTC)
        try:
            report, new = self.pod.sweep()
            data = report.as_dict()
            self.store.add_sweep(self.pod.name, data, source="service", schedule_id=self.schedule_id)
            self.metrics.observe(report, len(new))
            nxt = self._next_trigger.get_next_fire_time(started, datetime.now(UTC))
            self.store.update_schedule_runs(self.schedule_id, _iso(started), _iso(nxt))
            # a real source's pages that were not read this sweep (one exporter down of several): said with the
            # sweep (session 41; before, only `sweep once` and the stored report named them)
            unread = list(getattr(getattr(self.pod, "source", None), "not_read", None) or [])
            log.info("sweep", extra={"schedule": self.schedule_id, "t_s": report.t_s, "severity": report.severity,
                                     "counts": report.counts, "duration_ms": round(report.duration_ms, 3),
                                     "proactive": [i.id for i in new], **({"not_read": unread} if unread else {})})
            if self.webhook:
                self._alert(data)
            self.source.update(None)
            if self.on_sweep is not None:
                self.on_sweep(data | {"proactive_new": [i.as_dict() for i in new], "not_read": unread})
        except SourceAuthError as exc:  # the credentials, refused: said once per change, not at every interval
            self.metrics.errors.inc()
            line = self.source.update(exc)
            if line is not None:
                with self._lock:
                    self.errors.append(line)
        except Exception as exc:  # a failed sweep must not kill the service; it is counted and reported
            self.metrics.errors.inc()
            self.source.update(exc)
            log.error("sweep failed", extra={"schedule": self.schedule_id, "error": f"{type(exc).__name__}: {exc}"})
            with self._lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")

    def _alert(self, data: dict[str, Any]) -> None:
        """POST each new Alarm-or-worse finding (one per component, check and severity) to the webhook."""
        from opsbrain.service.alerts import body_for, post_json

        for f in data["findings"]:
            key = (f["component"], f["check"], f["severity"])
            if f["severity"] not in ("Alarm", "Critical") or key in self._alerted:
                continue
            self._alerted.add(key)
            body = body_for({"finding": f, "source": self.pod.name}, self.webhook_format)
            if self._sender is not None:
                self._sender.send(f["component"], body)
            else:  # not started (a direct call): post here
                self._on_post(f["component"], post_json(str(self.webhook), body))

    def _on_post(self, component: str, failed: str | None) -> None:
        """A webhook notification's outcome (from the sender's thread): a failure is kept for the summary."""
        if failed is not None:
            with self._lock:
                self.webhook_errors.append(f"{component}: {failed}")


def run_service(scenario: str, trigger: TriggerSpec | None = None, speed: float = 1.0,
                metrics_port: int | None = None, home: Path | None = None, max_runtime_s: float | None = None,
                seed: int | None = None, on_sweep: SweepCallback | None = None,
                on_start: Callable[[SweepService], None] | None = None,
                stop: threading.Event | None = None, pod: Any = None, bind: str = DEFAULT_BIND,
                webhook: str | None = None, webhook_format: str = "alertmanager") -> dict[str, Any]:
    """Run the sweep service until SIGINT/SIGTERM, ``max_runtime_s`` wall seconds, or ``stop`` is set; return a
    summary (schedule, sweeps, findings, proactive incidents, errors). ``pod``: sweep this instead of the
    scenario's live pod (a real source, :class:`opsbrain.sources.service.SourcePod`)."""
    if max_runtime_s is not None and not 0 < max_runtime_s <= threading.TIMEOUT_MAX:
        raise InputError(f"must be > 0 and finite, got {max_runtime_s:g}", path="--max-runtime")
    if metrics_port is not None and not 0 <= metrics_port <= 65535:
        raise InputError(f"must be a TCP port 0..65535, got {metrics_port}", path="--metrics-port")
    store = RunStore(home)
    pod = pod if pod is not None else LivePod.from_scenario(scenario, speed=speed, seed=seed, home=home)
    lock = ScheduleLock(store.home, schedule_id_of(pod.name)).acquire()  # one sweeper per schedule and data dir
    try:
        svc = SweepService(pod, store, trigger, on_sweep=on_sweep, webhook=webhook, webhook_format=webhook_format)
    except BaseException:
        lock.release()
        raise
    stop = stop or threading.Event()
    reason = {"why": "max-runtime"}
    previous: dict[signal.Signals, Any] = {}

    def on_signal(signum: int, _frame: Any) -> None:
        reason["why"] = signal.Signals(signum).name
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, on_signal)
    wall0 = time.monotonic()
    url = None
    try:
        svc.start(metrics_port, bind)
        url = svc.server.url if svc.server is not None else None
        log.info("sweep service started", extra={"schedule": svc.schedule_id, "trigger": svc.trigger.encode(),
                                                 "metrics_url": url})
        if on_start is not None:
            on_start(svc)
        stop.wait(timeout=max_runtime_s)
        if stop.is_set() and reason["why"] == "max-runtime":
            reason["why"] = "stopped"
    finally:
        svc.stop()
        lock.release()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    status = pod.status()
    log.info("sweep service stopped", extra={"schedule": svc.schedule_id, "stopped_by": reason["why"],
                                             "sweeps": status.get("sweeps"), "errors": len(svc.errors)})
    return {"schedule": {"id": svc.schedule_id, "trigger": svc.trigger.encode(), "description": str(svc.trigger)},
            "jobs": svc.jobs(), "stopped_by": reason["why"], "wall_s": round(time.monotonic() - wall0, 3),
            **status, "skipped_runs": svc.skipped, "errors": list(svc.errors), "source_state": svc.source.as_dict(),
            "metrics_url": url,
            "webhook_errors": svc.webhook_errors[:20], "webhook_errors_total": len(svc.webhook_errors)}
