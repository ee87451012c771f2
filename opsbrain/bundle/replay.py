"""A bundle's signals replayed in time order through the live controller's detector (split out of
:mod:`opsbrain.bundle.diagnose` in session 43): the detector's collect/re-diagnose timers run on the bundle's clock,
and each incident is diagnosed by the engine as the controller does live."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from opsbrain.ingest import Signal


class _Clock:
    """The bundle's clock for the detector's timers (collect, re-diagnose, re-check)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._q: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def schedule(self, delay: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._q, (self.now + delay, self._seq, fn))

    def run_before(self, t: float) -> None:
        """Fire the timers due strictly before ``t`` (lines at a timer's own time arrive first, as in the sim)."""
        while self._q and self._q[0][0] < t:
            when, _s, fn = heapq.heappop(self._q)
            self.now = when
            fn()

    def drain(self) -> None:
        while self._q:
            when, _s, fn = heapq.heappop(self._q)
            self.now = max(self.now, when)
            fn()


def detect(signals: list[Signal], engine: Any, placement: dict[str, list[str]],
           metric: Callable[[str, str], float | None] | None) -> list[Any]:
    """Replay time-ordered signals through the live controller's detector; diagnose as the controller does."""
    from opsbrain.detection import Detector, LinkHistory
    from opsbrain.diagnosis.knowledge import another_fault
    from opsbrain.kb.compiled import compiled_kb

    clock = _Clock()
    det: Any = None

    def diagnose(inc: Any) -> None:
        now = clock.now
        d = engine.diagnose(inc, now, LinkHistory(det, now), metric)
        d.at_s = now
        inc.diagnoses.append(d)

    params: Any = compiled_kb().detector_params  # DetectorParams' defaults, without importing pydantic
    det = Detector(params, lambda: clock.now, clock.schedule, diagnose, placement, another_fault)
    for s in signals:
        clock.run_before(s.t)
        clock.now = max(clock.now, s.t)
        det.feed(s)
    clock.drain()
    return list(det.incidents)


def detect_apart(signals: list[Signal], file_of: Callable[[Signal], str], apart: set[str], engine: Any,
                 placement: dict[str, list[str]], metric: Callable[[str, str], float | None] | None) -> list[Any]:
    """:func:`detect` where the lines of each file in ``apart`` (a file without a stamp that its own worker's
    process logs do not place: :meth:`opsbrain.bundle.timed.TimedFiles.place_undated`) are replayed on their own:
    the time they were given is no time they were written, so they make their own incidents and join no other
    file's. The incidents of all replays in opening order, numbered again."""
    if not apart:
        return detect(signals, engine, placement, metric)
    groups: dict[str, list[Signal]] = {}
    for s in signals:
        f = file_of(s)
        groups.setdefault(f if f in apart else "", []).append(s)
    found = [(inc, k) for k, group in enumerate(groups.values()) for inc in detect(group, engine, placement, metric)]
    found.sort(key=lambda x: (x[0].opened_at, x[1]))
    for n, (inc, _k) in enumerate(found, 1):
        inc.id = f"i{n:04d}"
    return [inc for inc, _k in found]
