"""The fault model base: one instance acts out one injected fault as a simpy process.

A model changes the plant (health, lanes), tells workloads what their ranks suffer (crash / hang / slowdown),
and emits what an operator would see through :class:`~faultlib.faults.emit.Emitter`. Ground truth (which fault,
where, when) goes only into the trace (kind ``fault``/``fault_end``) and :attr:`Simulation.faults`, which the
scorer may read and diagnosis must not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import simpy

from faultlib import ids
from faultlib.faults.catalog import CATALOG, FaultKind
from faultlib.faults.params import FaultParams
from faultlib.health import Health
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.emit import Emitter

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.workloads.base import Workload

Gen = Generator[simpy.Event, Any, None]
"""What a model's :meth:`FaultModel.run` is: a simpy process."""


class SpecLike(Protocol):
    """What an injector hands the plant (faultlib.injection.spec.FaultSpec fits it)."""

    @property
    def at_s(self) -> float: ...
    @property
    def kind(self) -> str: ...
    @property
    def target(self) -> str | None: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def duration_s(self) -> float | None: ...


@dataclass
class ActiveFault:
    """Ground truth of one injected fault (for scoring only)."""

    id: str
    kind: str
    target: str
    at_s: float
    params: dict[str, Any] = field(default_factory=dict)
    ended_at_s: float | None = None
    duration_s: float | None = None
    """The spec's duration: when the fault heals, or its part's repair time, from the onset (``DURATION_KINDS``,
    ``REPAIR_KINDS`` of :mod:`faultlib.injection.replay`); a model whose kind heals after a default when the spec
    gives none sets it as it starts (CE storm, fail-slow: review41); ``None``: it lasts until the response ends it
    (a link flap without one flaps one burst of its ``flaps``)."""
    quiet_s: float = 0.0
    """Seconds after onset during which the fault changes nothing a detection path reads (:meth:`FaultModel.quiet_s`):
    the scorer's lower bound on when it could have been detected."""
    quiet_why: str = ""
    """Why nothing showed, when ``quiet_s`` is unbounded and no ``fault_end`` cause says it (the scorer's note)."""


class FaultModel:
    kind: ClassVar[str]

    def __init__(self, sim: Simulation, spec: SpecLike, fault_id: str) -> None:
        self.sim = sim
        self.spec = spec
        if spec.target is None:
            raise ValueError(f"fault {spec.kind}: a spec without a target cannot be injected")
        self.target: str = spec.target
        self.meta: FaultKind = CATALOG[self.kind]
        self.p: FaultParams = sim.params.faults
        self.params = dict(spec.params or {})
        self.emit = Emitter(sim)
        self.rng = sim.rng(f"fault/{fault_id}")
        self.truth = ActiveFault(fault_id, self.kind, self.target, float(spec.at_s), dict(self.params),
                                 duration_s=spec.duration_s, quiet_s=self.quiet_s())

    # ---- to override -------------------------------------------------------------------------------
    def run(self) -> Gen:
        """Progression from onset; returns when the fault is over (healed or permanent state reached)."""
        raise NotImplementedError
        yield  # pragma: no cover

    def quiet_s(self) -> float:
        """Seconds after onset before the model prints, counts or changes anything (a model that first waits
        silently says how long); 0 for a fault that shows at once."""
        return 0.0

    # ---- helpers ----------------------------------------------------------------------------------
    @property
    def env(self) -> simpy.Environment:
        return self.sim.env

    def param(self, name: str, default: Any) -> Any:
        return self.params.get(name, default)

    def wait(self, seconds: float) -> simpy.Event:
        return self.env.timeout(max(0.0, float(seconds)))

    def set_health(self, cid: str, health: Health) -> None:
        if self.sim.state.health(cid) != health:
            # an isolated part cannot fail again: InvalidTransition means nothing changes
            with contextlib.suppress(ValueError):
                self.sim.state.set_health(cid, health, cause=f"fault:{self.truth.id}")

    def workloads_on(self, component: str) -> list[Workload]:
        node = ids.node_of(component)
        return [w for w in self.sim.workloads.values() if node in w.nodes]

    def npu_error(self, npu: str, code: int) -> str:
        """The exception text a rank on ``npu`` dies with for device error ``code`` (the torch_npu release's form,
        ``telemetry.torch_npu_messages``)."""
        return fmt.npu_error_reason(self.sim.wallclock(), code, fmt.device_index(npu), fmt.pid_of(npu),
                                    self.sim.params.telemetry.torch_npu_messages)

    def hit(self, component: str, mode: str, reason: str) -> None:
        """Ranks on ``component`` crash or hang in every workload placed there."""
        for w in self.workloads_on(component):
            w.fail(component, mode, reason)  # type: ignore[attr-defined]

    def end(self, cause: str | None = None) -> None:
        self.truth.ended_at_s = self.sim.now
        extra = {"cause": cause} if cause else {}
        self.sim.trace.record(self.sim.now, "fault_end", self.target, id=self.truth.id, kind=self.kind, **extra)

    def on_replaced(self) -> None:
        """The part was replaced mid-fault (its process is interrupted): undo what the model did to workloads.
        Health, lanes and optics are reset by the replacement itself; models with other effects override this."""

    def covers(self, component: str) -> bool:
        """Whether replacing ``component`` replaces this fault's target (the target itself or a part of it)."""
        t = self.target
        return t == component or t.startswith(component + "/")

    def hold_repair(self, part: str) -> None:
        """Hold ``part`` under repair from the fault's onset when the spec gives a repair time (what
        :meth:`repair_for_duration` does when it starts), for a model that waits before it gets there."""
        if self.spec.duration_s is not None:
            self.sim.control.hold_for_repair(part, self.truth.at_s + self.spec.duration_s)

    def repair_for_duration(self, part: str, held: str | None = None) -> Gen:
        """A spec ``duration_s`` here is a repair time (a trace's), counted from the fault's onset: the part under
        repair (``held``, default ``part``: for an AI Core hang the NPU is repaired, the die is what failed)
        cannot be brought back before it has passed (a reboot, chip reset or replacement waits for the repair),
        and ``part`` is back in service as repaired then, unless an operator has taken it out of service meanwhile.
        Without a duration the part stays down until recovered."""
        if self.spec.duration_s is None:
            return
        held = held or part
        until = self.truth.at_s + self.spec.duration_s
        self.sim.control.hold_for_repair(held, until)
        yield self.wait(max(0.0, until - self.sim.now))
        self.sim.control.release_repair(held)
        if self.sim.state.health(part) == Health.FAILED:
            self.sim.state.set_health(part, Health.HEALTHY, cause=f"repaired:{self.truth.id}")

    def heal_after_duration(self) -> Generator[simpy.Event, Any, bool]:
        """Wait out ``duration_s`` if the spec has one; True when the fault should heal now."""
        if self.spec.duration_s is None:
            return False
        yield self.wait(self.spec.duration_s)
        return True
