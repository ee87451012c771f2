"""The simulation: a simpy environment, the plant (topology, state, fabric), telemetry, workloads.

One seed fixes a run: every random draw comes from a named stream derived from (seed, stream name), so adding a
consumer of randomness does not shift the draws of another. No module-global state.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Generator
from datetime import datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from faultlib import ids
from faultlib.control import ControlAPI
from faultlib.durations import Durations
from faultlib.fabric import Fabric
from faultlib.faults.base import ActiveFault, FaultModel, SpecLike
from faultlib.faults.catalog import SURVIVES_STOP
from faultlib.faults.models import MODELS
from faultlib.health import Health
from faultlib.simparams import SimParams
from faultlib.state import PlantState
from faultlib.telemetry import TelemetryHub
from faultlib.telemetry.celog import CeLogs
from faultlib.telemetry.delivery import Delivery
from faultlib.telemetry.dom import DomModel
from faultlib.telemetry.emit import DARK, Emitter
from faultlib.topology import Topology
from faultlib.trace import Trace

if TYPE_CHECKING:
    from faultlib.workloads.base import Workload


class Simulation:
    def __init__(self, params: SimParams | None = None, seed: int = 0, pods: int = 1,
                 topology: Topology | None = None) -> None:
        self.params = params or SimParams()
        self.seed = int(seed)
        self.env = simpy.Environment()
        self.trace = Trace()
        self.topology = topology or Topology.build(self.params.topology, pods)
        self.state = PlantState(self.topology, self.trace, self.clock)
        self.fabric = Fabric(self.topology, self.params.fabric, self.state)
        self.telemetry = TelemetryHub(self.clock)
        self.telemetry.silent = self.state.host_down  # a stopped host and the parts on its board write nothing
        self.telemetry.scraped.stopped_since = self.state.stopped_since  # ... and its exporters serve nothing
        self.telemetry.scraped.stopped_nodes = self.state.stopped_nodes
        self.telemetry.delivery = Delivery(self)  # detection paths: poll and shipping delays to subscribers
        self.state.subscribe(self._on_back)
        self.workloads: dict[str, Workload] = {}
        self.control = ControlAPI(self)
        self.faults: list[ActiveFault] = []  # ground truth: for scoring only, never for diagnosis
        self._acting: dict[str, tuple[FaultModel, simpy.Process]] = {}  # faults begun and not yet over
        self._epoch = datetime.fromisoformat(self.params.telemetry.epoch)

    def clock(self) -> float:
        return float(self.env.now)

    @property
    def now(self) -> float:
        return float(self.env.now)

    def rng(self, stream: str) -> np.random.Generator:
        """An independent random stream for ``stream`` (same seed + name => same draws)."""
        return np.random.default_rng([self.seed, zlib.crc32(stream.encode())])

    @cached_property
    def durations(self) -> Durations:
        """Seeded draws of every modelled duration (one random stream per duration name)."""
        return Durations(self)

    @cached_property
    def ce_logs(self) -> CeLogs:
        """Every HBM stack's correctable-error log (:mod:`faultlib.telemetry.celog`): storms and background errors
        fill it, and its device reports 0x80E01805 when it is full."""
        return CeLogs(self)

    @cached_property
    def dom(self) -> DomModel:
        """Optical DOM readings of every L1-L2 module (built on first use; draws from its own rng stream)."""
        return DomModel(self)

    def wallclock(self, t: float | None = None) -> datetime:
        """The calendar time shown in logs for simulated time ``t`` (default: now)."""
        return self._epoch + timedelta(seconds=self.now if t is None else t)

    def add_workload(self, workload: Workload) -> Workload:
        if workload.name in self.workloads:
            raise ValueError(f"duplicate workload name {workload.name!r}")
        for n in workload.nodes:
            if self.topology.kind.get(n) != "node":
                raise ValueError(f"workload {workload.name!r}: {n!r} is not a node of this topology")
        self.workloads[workload.name] = workload
        workload.attach(self)
        return workload

    def inject(self, spec: SpecLike) -> ActiveFault:
        """Schedule a fault: at ``spec.at_s`` its model starts acting in the plant."""
        if spec.kind not in MODELS:
            raise ValueError(f"unknown fault kind {spec.kind!r}")
        if spec.target is None or not self.topology.exists(spec.target):
            raise ValueError(f"fault {spec.kind}: no component {spec.target!r}")
        fault_id = f"f{len(self.faults) + 1:04d}"
        model = MODELS[spec.kind](self, spec, fault_id)
        self.faults.append(model.truth)

        def start() -> Generator[simpy.Event, Any, None]:
            yield self.env.timeout(max(0.0, spec.at_s - self.now))
            model.truth.at_s = self.now
            self.trace.record(self.now, "fault", model.target, id=fault_id, kind=spec.kind)
            self._acting[fault_id] = (model, proc)
            try:
                if not (yield from self._through_stop(model)):
                    return
                yield from model.run()
            except simpy.Interrupt as stop:
                model.on_replaced()
                if model.truth.ended_at_s is None:
                    model.end(cause=str(stop.cause))
            finally:
                self._acting.pop(fault_id, None)

        proc = self.env.process(start())
        return model.truth

    def _through_stop(self, model: FaultModel) -> Generator[simpy.Event, Any, bool]:
        """A fault on a part of a stopped host (:meth:`PlantState.host_down`; not a link, not a node crash, whose
        model says what a crash of a stopped host does): one of :data:`SURVIVES_STOP` waits until the host is back
        and then acts (its ``quiet_s`` counts the wait), any other changes nothing and ends at once. False: do not
        run the model."""
        f, node = model.truth, ids.node_of(model.target)
        if node is None or "~" in model.target or model.kind == "node_crash" or not self.state.host_down(node):
            return True
        host = f"its host {node} had stopped"
        if model.kind not in SURVIVES_STOP:
            f.quiet_s, f.quiet_why = math.inf, f"{host}: nothing runs there for a {model.kind} to happen to"
            yield self.env.timeout(0)
            model.end(cause=f.quiet_why)
            return False
        f.quiet_s, f.quiet_why = math.inf, f"{host} and was not back before the run's end (the part shows then)"
        back = self.env.event()

        def on_health(_cid: str, _old: Any, _new: Any) -> None:
            if not back.triggered and not self.state.host_down(node):
                back.succeed()

        self.state.subscribe(on_health)
        try:
            yield back
        except simpy.Interrupt as stop:  # the part (or its node) was replaced while the host was down
            f.quiet_why = f"{host} and the part was replaced ({stop.cause}) before the host was back"
            raise
        finally:
            self.state.unsubscribe(on_health)
        f.quiet_s, f.quiet_why = self.now - f.at_s + model.quiet_s(), ""
        return True

    def _on_back(self, cid: str, old: Any, new: Any) -> None:
        """A stopped host, or a failed (or resetting) L1 chip, back in service this instant: the L2 chips log their
        ports toward it up (:meth:`Emitter.back_in_service`), once what acts at this instant has acted (a part that
        waited for the host, :meth:`_through_stop`, and fails as it returns leaves its ports down and unreported)."""
        kind = self.topology.kind.get(cid)
        if new == Health.HEALTHY and ((kind == "node" and self.state.host_booting(cid))
                                      or (kind == "l1" and old in DARK)):
            def ports_up() -> Generator[simpy.Event, Any, None]:
                yield self.env.timeout(0)
                Emitter(self).back_in_service(cid)

            self.env.process(ports_up())

    def end_faults_of(self, component: str, cause: str) -> list[str]:
        """A part was replaced: every fault acting on it or on a part of it ends now (ids returned)."""
        hit = [fid for fid, (model, _p) in self._acting.items() if model.covers(component)]
        for fid in hit:
            model, proc = self._acting.pop(fid)
            if proc.is_alive:
                proc.interrupt(cause)
        return hit

    def run(self, until: float) -> None:
        if until < self.now:
            raise ValueError(f"cannot run until {until}: the clock is already at {self.now}")
        if until > self.now:
            self.env.run(until=until)
