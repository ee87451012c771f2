"""Progress watchdog: a training job that makes no progress gets a generic revival, whatever the cause.

A diagnosis can miss (a software hang whose peers' timeouts were grouped with a link flap, an unknown cause that
pages a person at night). The job's own events show what a scheduler sees: ``stalled`` or ``crash``/``timeout``
(no progress) and ``restart``/``recovering``/``resumed``/``started`` (progress or a recovery under way). A job
that stays without progress for ``stuck_after_s`` with no recovery under way (the job's own ``restart`` or
``recovering``, or ``busy(job)``: a runbook acting on it) is handed to ``on_stuck``; at most
``max_revivals`` times per ``window_s``, so a job that cannot come back is left to a person instead of looping.
ByteRobust (facts.md §5) detects in 10-30 s rather than at the 30-minute collective timeout; MindCluster's
RestartRequest reschedules what has not recovered within 60 s (facts.md §3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

STALLED, DOWN, BUSY, RUNNING = "stalled", "down", "busy", "running"
_STATE_OF_EVENT = {
    "stalled": STALLED, "crash": DOWN, "timeout": DOWN, "restart_failed": DOWN, "recover_failed": DOWN,
    "restart": BUSY, "recovering": BUSY, "resumed": RUNNING, "started": RUNNING,
}


@dataclass
class _Job:
    state: str = RUNNING
    since: float = 0.0
    episode: int = 0
    revivals: list[float] = field(default_factory=list)


class ProgressWatchdog:
    def __init__(self, schedule: Callable[[float, Callable[[], None]], None], now: Callable[[], float],
                 on_stuck: Callable[[str, float], None], stuck_after_s: float, max_revivals: int,
                 window_s: float, busy: Callable[[str], bool] = lambda _job: False) -> None:
        self._schedule = schedule
        self._busy = busy
        self._now = now
        self._on_stuck = on_stuck
        self.stuck_after_s = stuck_after_s
        self.max_revivals = max_revivals
        self.window_s = window_s
        self.jobs: dict[str, _Job] = {}
        self.given_up: list[tuple[str, float]] = []  # (job, time) a revival was due but the cap was reached

    def observe(self, job: str, event: str, t: float) -> None:
        """Feed one job event (kinds outside the state map, e.g. ``checkpoint``, are ignored)."""
        state = _STATE_OF_EVENT.get(event)
        if state is None:
            return
        st = self.jobs.setdefault(job, _Job(since=t))
        stuck_before = st.state in (STALLED, DOWN)
        st.state = state
        if state in (STALLED, DOWN):
            if not stuck_before:  # a new episode without progress (stalled -> down continues the same one)
                st.since = t
                st.episode += 1
                ep = st.episode
                self._schedule(self.stuck_after_s, lambda: self._check(job, ep))
        else:
            st.episode += 1  # progress or a recovery under way ends the episode

    def _check(self, job: str, episode: int) -> None:
        st = self.jobs[job]
        if st.episode != episode or st.state not in (STALLED, DOWN):
            return
        if self._busy(job):  # a runbook is acting on the job (a chip reset before its restart): look again later
            self._schedule(self.stuck_after_s, lambda: self._check(job, episode))
            return
        now = self._now()
        st.revivals = [r for r in st.revivals if now - r < self.window_s]
        if len(st.revivals) >= self.max_revivals:
            self.given_up.append((job, now))
            return
        st.revivals.append(now)
        self._on_stuck(job, st.since)
