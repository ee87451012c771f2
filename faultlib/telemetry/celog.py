"""HBM correctable-error logs: when a device reports 0x80E01805, for every source of correctable errors alike.

The device keeps the stack's correctable errors in a log of ``faults.ce_log_limit`` records and reports 0x80E01805
(correctable errors reached their logging limit) when it is full, at most once per sensor check
(``faults.ce_sensor_check_s``); the log then starts over (errors recorded between the limit and the check are lost
with it). What fills it does not matter: a CE storm, the stack's steady background errors and a background burst
add to the same log (:class:`CeLog`), and one waiter per stack prints the report when it is due.

Errors that arrive independently at a rate (a Poisson process: a storm, the steady background) reach the limit after
a Gamma-distributed time (shape: the records still free; mean: that many over the rate). Where the rate changes or
a burst adds errors at once, the errors that arrived meanwhile are drawn from that pending Gamma draw (given the
``k``-th arrival at ``due``, the earlier ``k - 1`` are uniform before it: a binomial count), and the rest is drawn
afresh (the arrivals after a moment are independent of those before). Each stack draws from its own random stream.

Each report is an event the device holds until a sensor check no longer finds the log full (session 35, events35):
as the log starts over at the report, the next check (``faults.ce_sensor_check_s`` later) reports the event's resume,
and the next report is a new event; a log full again by that check keeps the event (no resume, and its report is
not printed again: the driver reports an event once until it resumes, :meth:`TelemetryHub.event_serials`).

A log follows its chip (session 35): while the chip is down (:meth:`~faultlib.state.PlantState.device_down`: failed,
resetting, or its host stopped) it records no error and reports nothing, and it goes on from what it held when the
chip is back (no public source says a reset empties it); a replaced part's stacks start with an empty log.

The stack's cumulative counter ``hbm_ce_total`` (npu-exporter's ``npu_chip_info_hbm_ecc_total_single_bit_error_cnt``,
the DCMI lifetime single-bit count) follows the same state (session 36): each log writes its slope, the rate errors
arrive at while the chip runs and 0 while it is down (before, it kept its slope, a storm's included, through the
outage). A chip back without replacement goes on from the count it held; a replaced part's starts at 0
(:func:`faultlib.renewal.renew_counters`). Bursts add to it themselves (:class:`~faultlib.telemetry.noise._Background`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import simpy

if TYPE_CHECKING:
    from faultlib.engine import Simulation

COUNTER = "hbm_ce_total"
"""The stack's cumulative correctable-error count, whose slope its log writes (:meth:`CeLog._count`)."""

Report = Callable[[str, float], None]
"""Called with the stack and the time of each report it prints."""


class CeLog:
    """One stack's correctable-error log: the errors recorded since it last started over, the rate errors arrive at,
    and when (a draw) that rate fills it."""

    def __init__(self, logs: CeLogs, hbm: str, fill: int = 0) -> None:
        self.logs, self.hbm = logs, hbm
        self.fill = fill
        self.rate = 0.0  # errors/s arriving independently now (the steady background, plus a storm while it lasts)
        self.since = logs.sim.now  # when ``fill`` was last known
        self.due = math.inf  # when the errors arriving at ``rate`` fill the log (a draw)
        self.last_report = -math.inf
        self._rng = logs.sim.rng(f"ce_log/{hbm}")
        self._generation = 0
        self.down = logs.sim.state.device_down(hbm)  # the chip is down: nothing recorded, nothing reported

    def set_rate(self, rate: float) -> None:
        """Errors arrive at ``rate`` per second from now on."""
        self._catch_up()
        self.rate = max(0.0, rate)
        self._arm(self.logs.sim.now)
        self._count()

    def add(self, n: int) -> None:
        """``n`` errors recorded at once now (a burst; none while the chip is down)."""
        if self.down:
            return
        self._catch_up()
        self.fill += n
        now = self.logs.sim.now
        if self.fill >= self.logs.limit:
            self._wait_until(max(now, self.last_report + self.logs.check_s))
        else:
            self._arm(now)

    def set_down(self, down: bool) -> None:
        """The chip went down (its log keeps what it held, records nothing more and its pending report is not
        printed) or is back (errors arrive at ``rate`` again, and a full log is reported at the next check)."""
        if down == self.down:
            return
        self._catch_up()
        self.down = down
        self._arm(self.logs.sim.now)
        self._count()

    def _count(self) -> None:
        """The stack's counter counts from now at the rate errors arrive, or holds while the chip is down."""
        sim = self.logs.sim
        sim.telemetry.metrics.add(COUNTER, self.hbm, sim.now, 0.0, slope=0.0 if self.down else self.rate)

    def renew(self) -> None:
        """A new part's log: empty, never reported, at the same rate."""
        self.fill, self.last_report = 0, -math.inf
        self._arm(self.logs.sim.now)

    # ---- the draws ----------------------------------------------------------------------------------------------
    def _catch_up(self) -> None:
        """Add the errors that arrived at ``rate`` since ``since`` (fewer than the log's free records: it is not due
        yet)."""
        now = self.logs.sim.now
        free = self.logs.limit - self.fill
        if self.rate > 0 and now > self.since and math.isfinite(self.due) and free > 1:
            self.fill += int(self._rng.binomial(free - 1, min(1.0, (now - self.since) / (self.due - self.since))))
        self.since = now

    def _arm(self, t: float) -> None:
        """Draw when the errors arriving at ``rate`` from ``t`` fill the log, and wait for it (a log a burst filled,
        its report waiting for the sensor check, is due at ``t``: nothing drawn)."""
        free = self.logs.limit - self.fill
        self.since = t
        if self.down:
            self.due = math.inf
        elif free <= 0:
            self.due = t
        else:
            self.due = t + float(self._rng.gamma(free, 1.0 / self.rate)) if self.rate > 0 else math.inf
        self._wait_until(max(self.due, self.last_report + self.logs.check_s))

    def _wait_until(self, at: float) -> None:
        self._generation += 1
        if math.isfinite(at):
            self.logs.sim.env.process(self._waiter(self._generation, at))

    def _waiter(self, generation: int, at: float) -> Generator[simpy.Event, Any, None]:
        yield self.logs.sim.env.timeout(max(0.0, at - self.logs.sim.now))
        if generation != self._generation:  # re-armed meanwhile: a later waiter holds the log
            return
        self.last_report = at
        self.fill = 0  # the log starts over
        self.logs.report(self.hbm, at)
        self._arm(at)
        self.logs.sim.env.process(self._next_check(at + self.logs.check_s))

    def _next_check(self, at: float) -> Generator[simpy.Event, Any, None]:
        """The sensor's next check after a report: the log started over, so the limit is no longer reached and the
        device reports the event's resume (hicann/driver@ef377e95 dms_sensor.c:937-944: an event state a check no
        longer finds resumes, reported with its old item, so its serial), unless the log is full again by then (the
        state persists: nothing printed, and the report due at this check is the event's own, not printed again)."""
        yield self.logs.sim.env.timeout(max(0.0, at - self.logs.sim.now))
        if self.last_report == at or (not self.down and (self.fill >= self.logs.limit or self.due <= at)):
            return
        self.logs.resume(self.hbm)


class CeLogs:
    """Every stack's log of one simulation (created on first use, empty and with no rate)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.limit = sim.params.faults.ce_log_limit
        self.check_s = sim.params.faults.ce_sensor_check_s
        self._logs: dict[str, CeLog] = {}
        self.listeners: list[Report] = []
        sim.state.subscribe(self._on_health)

    def of(self, hbm: str, fill: int = 0) -> CeLog:
        """The log of ``hbm`` (``fill``: the errors it holds when first used)."""
        if hbm not in self._logs:
            self._logs[hbm] = CeLog(self, hbm, fill % self.limit)
        return self._logs[hbm]

    def renew(self, stacks: list[str]) -> None:
        """The stacks of a replaced part: their logs start empty."""
        for hbm in stacks:
            if hbm in self._logs:
                self._logs[hbm].renew()

    def _on_health(self, cid: str, _old: object, _new: object) -> None:
        """A chip or host changed state: the logs of its stacks stop or go on with their chips."""
        topo = self.sim.topology
        kind = topo.kind.get(cid)
        if kind not in ("npu", "node") or not self._logs:
            return
        for npu in [cid] if kind == "npu" else topo.npus_of(cid):
            for hbm in topo.children.get(npu, []):
                if hbm in self._logs:
                    self._logs[hbm].set_down(self.sim.state.device_down(hbm))

    def resume(self, hbm: str) -> None:
        """The device of ``hbm`` reports its log no longer full (0x80E01805 resumes; nothing when the chip is down,
        or its device OS booted since the report, Emitter.device_event)."""
        from faultlib import ids
        from faultlib.telemetry import formats as fmt
        from faultlib.telemetry.emit import Emitter

        Emitter(self.sim).device_event(ids.npu_of(hbm) or hbm, fmt.HBM_CE_CODE, recovered=True)

    def report(self, hbm: str, at: float) -> None:
        """The device of ``hbm`` reports its log full (0x80E01805; a down chip prints nothing, Emitter.device_event)."""
        from faultlib import ids
        from faultlib.telemetry import formats as fmt
        from faultlib.telemetry.emit import Emitter

        Emitter(self.sim).device_event(ids.npu_of(hbm) or hbm, fmt.HBM_CE_CODE)
        for fn in self.listeners:
            fn(hbm, at)
