"""A real source behind the sweep service (``opsbrain sweep run --source prometheus --url ...``): the same
apscheduler service, run-store schedule and Prometheus metrics as a live twin pod; only the pod is replaced by
this adapter. A real cluster gets no proactive incidents from sweeps (nothing is drained automatically: alarms
are reported, the operator acts)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.sources.base import ReadingsSource, sweep_source
from opsbrain.sweeps.inrun import SweepTally
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.sweep import SweepReport

if TYPE_CHECKING:
    from opsbrain.store import RunStore


class SourcePod:
    """What :class:`~opsbrain.service.scheduler.SweepService` needs of a pod: a name, ``sweep()``, ``status()``."""

    speed = 1.0

    def __init__(self, source: ReadingsSource, params: SweepParams | None = None, name: str | None = None) -> None:
        self.source = source
        self.params = params or SweepParams()
        self.name = name or "cluster"
        self.tally = SweepTally()
        self._lock = threading.Lock()

    def attach_store(self, store: RunStore, schedule_id: str) -> None:
        """Keep the source's collection history in the service's run store (:mod:`opsbrain.sources.keep`), reloading
        what an earlier run of the schedule kept."""
        self.source.keep_in(store, schedule_id)

    def sweep(self) -> tuple[SweepReport, list[Any]]:
        """Collect from the source and sweep (no proactive incidents on a real cluster: the list is empty)."""
        with self._lock:
            report = sweep_source(self.source, self.params)
            self.tally.add(report)
            return report, []

    def status(self) -> dict[str, Any]:
        with self._lock:
            t = self.tally
            return {"scenario": self.name, "source": self.source.name, "seed": None, "speed": 1.0,
                    "sim_time_s": t.last.t_s if t.last is not None else 0.0, "sweeps": t.sweeps,
                    "findings": dict(t.findings), "alarmed_components": len(t.alarmed), "proactive": [],
                    "incidents": 0, "coverage": self.source.coverage()}


def cluster_name(kind: str, name: str | None) -> str:
    """A real cluster's name in its schedule id (``--name``, else ``<source>-cluster``), for ``sweep run`` and
    ``sweep once`` alike."""
    return name or f"{kind}-cluster"


def sweep_once_kept(source: ReadingsSource, name: str, home: Path | None = None,
                    params: SweepParams | None = None) -> SweepReport:
    """One sweep of a real source (``sweep once --source ...``) under the schedule ``sweep run --name NAME`` uses: its
    lock held for the sweep (:class:`~opsbrain.service.lock.ScheduleLock`: InputError, exit 2, while a ``sweep run``
    of it runs) and its collection history in the run store (reloaded, then this collection added:
    :mod:`opsbrain.sources.keep`), so windows and trends see the earlier sweeps of either command."""
    from opsbrain.service.lock import ONCE, ScheduleLock, schedule_id_of
    from opsbrain.store import RunStore

    store = RunStore(home)
    schedule = schedule_id_of(name)
    with ScheduleLock(store.home, schedule, command=ONCE):
        source.keep_in(store, schedule)
        return sweep_source(source, params)
