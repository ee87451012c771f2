"""Detection paths: how long a printed record takes to reach a subscriber (the ops brain) on its signal path.

A record is printed at its time stamp; a subscriber sees it after the path's delay. Polled paths add the wait
for the next poll (uniform over the poll period: a fault lands at a random phase); every path adds its shipping
time (lognormal). Lines of one log stream (origin, source) arrive in the order they were printed, as a log
shipper tailing one file delivers them. Draws come from the simulation's named duration streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup

if TYPE_CHECKING:
    from faultlib.engine import Simulation

SHIP = ("reason: a log shipper tails the file and flushes every second (Fluent Bit's default flush interval is "
        "1 s); assumed p90 5 s (batching, collector back-pressure)")


class DeliveryParams(ParamGroup):
    """Detection paths: poll periods and shipping delays between a printed record and the ops brain."""

    device_plugin_poll_s: float = P(
        1.0, "s", "the MindCluster device plugin polls device health every 1 s (facts.md §3, §8)", ge=0)
    npu_net_health_poll_s: float = P(
        2.5, "s", "each NPU pings its gateway every 2.5 s: NPU network health (hccn) changes show at the next ping "
                  "(facts.md §3)", ge=0)
    log_ship_s: Dist = D(1.0, 5.0, "s", SHIP)
    switch_report_s: Dist = D(
        0.5, 2.0, "s", "reason: switch alarms and port-state changes are pushed (trap / syslog) the moment they "
                       "occur; network transit and the collector's intake take well under a second, p90 2 s assumed")
    job_event_s: Dist = D(
        1.0, 5.0, "s", "reason: a process exit or log event of the training job reaches the scheduler through its "
                       "watch of the pod and the job log shipper (as log_ship_s)")


POLLED = {"hccn": "npu_net_health_poll_s"}
"""Paths whose records are stamped at the event but seen at the next poll (a RoCE port's link record carries the
port's own event time; the health check that shows it runs every ``npu_net_health_poll_s``). The device plugin's
device-fault lines are written at its poll, with the poll's time (``Emitter.plugin``), and its switch-fault lines
come from a subscription (pushed): neither waits for a poll here."""


class Delivery:
    """Per-record delay of the path a record travels (by its log source; job events by the ``job`` path)."""

    def __init__(self, sim: Simulation) -> None:
        self._sim = sim
        self.p: DeliveryParams = sim.params.delivery
        self._last: dict[tuple[str, str], float] = {}  # stream -> last arrival time (FIFO per stream)

    def arrival(self, t: float, origin: str, source: str) -> float:
        """When a record printed at ``t`` by ``origin`` on ``source`` reaches a subscriber."""
        d, p = self._sim.durations, self.p
        if source == "job":
            delay = d.draw("delivery.job_event_s", p.job_event_s)
        elif source == "switch":
            delay = d.draw("delivery.switch_report_s", p.switch_report_s)
        else:
            delay = d.draw("delivery.log_ship_s", p.log_ship_s)
            poll = POLLED.get(source)
            if poll is not None:
                delay += d.phase(f"delivery.{poll}", getattr(p, poll))
        key = (origin, source)
        at = max(t + delay, self._last.get(key, t))
        self._last[key] = at
        return at

    def defer(self, at: float, fn: Any, rec: Any) -> None:
        """Call ``fn(rec)`` at simulated time ``at``."""
        ev = self._sim.env.timeout(max(0.0, at - self._sim.now))
        ev.callbacks.append(lambda _ev: fn(rec))
