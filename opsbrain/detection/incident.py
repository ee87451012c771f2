"""An incident (the signals grouped as one fault, with its diagnoses) and the link history a diagnosis reads (split
out of :mod:`opsbrain.detection.detector` in session 43, which opens, joins and closes incidents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from opsbrain.ingest import Signal
from opsbrain.verdict import Diagnosis

if TYPE_CHECKING:
    from opsbrain.detection.detector import Detector


@dataclass(frozen=True)
class LinkHistory:
    """What an operator's link records say at a moment: link-downs and lane losses over the last 24 h."""

    detector: Detector | None
    now: float

    def flaps(self, link: str) -> int:
        return self.detector.flaps_of(link, self.now) if self.detector else 0

    def lanes_lost(self, link: str) -> bool:
        return self.detector.lanes_lost_recently(link, self.now) if self.detector else False

    def lane_losses(self, link: str) -> tuple[float, ...]:
        """When the link reported lanes lost over the last 24 h (oldest first)."""
        return self.detector.lane_losses_of(link, self.now) if self.detector else ()


NO_HISTORY = LinkHistory(None, 0.0)


@dataclass
class Incident:
    id: str
    opened_at: float
    last_at: float
    signals: list[Signal] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)
    l2: set[str] = field(default_factory=set)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    comps: set[str] = field(default_factory=set)
    job_nodes: set[str] = field(default_factory=set)  # where the jobs named by its job events run
    closed: bool = False  # its host came back after a whole host's stop: nothing joins it any more
    detected_at: float | None = None  # when the detector opened it: the first signal's path delay + reorder_s later
    # the latest moment its first signal can have happened: when it reached the detector (None: at ``opened_at``)
    event_until: float | None = None
    # the dark-link recheck (``Detector._recheck``): whether its timer runs, and the latest down it has covered
    rechecking: bool = False
    rechecked_to: float | None = None

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self.diagnoses[-1] if self.diagnoses else None

    @property
    def event_end(self) -> float:
        """The latest moment the event that opened it can have happened: a line is written no later than it arrives,
        and no earlier than its stamp unless its host's clock is ahead (moved back on intake), so the opening event
        lies between ``opened_at`` and this; same-event joins are counted from it."""
        return self.opened_at if self.event_until is None else max(self.opened_at, self.event_until)

    @property
    def scope(self) -> set[str]:
        return self.nodes | self.l2

    @property
    def components(self) -> set[str]:
        return set(self.comps)
