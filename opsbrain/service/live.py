"""A live simulated pod for the sweep service: simulated time runs ``speed`` times faster than the wall clock.

:class:`LivePod` wraps a chaos world (pod, workloads, noise, the scenario's faults, and the controller that
detects, diagnoses and recovers). The simulation is advanced lazily: before each sweep (or :meth:`LivePod.advance`)
it runs up to ``start + (wall now - wall start) x speed``, so between sweeps it costs nothing. A lock serialises
every touch of the simulation (scheduler threads, the metrics thread, the main thread).

Sweeps keep a :class:`~opsbrain.sweeps.snapshot.SweepHistory` while they come often enough for its kept DOM reads
to fill the trend window; when the simulated gap since the last sweep is wider than the trend re-read spacing
(a slow schedule at a high speed), the history is dropped and the window is re-read from the DOM store.
Alarms that predict an optical failure open proactive incidents through the controller
(:class:`~opsbrain.sweeps.inrun.ProactiveResponder`), so the link is drained while the pod runs on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.errors import InputError
from opsbrain.sweeps.inrun import ProactiveIncident, ProactiveResponder, SweepTally
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import SweepHistory
from opsbrain.sweeps.sweep import SweepReport, run_sweep

if TYPE_CHECKING:
    from opsbrain.runner.world import World


class LivePod:
    """A world whose simulated clock follows the wall clock x ``speed`` (see module docstring)."""

    def __init__(self, world: World, speed: float = 1.0, params: SweepParams | None = None,
                 clock: Callable[[], float] = time.monotonic, name: str = "pod", seed: int = 0) -> None:
        if not speed > 0:
            raise InputError(f"must be > 0, got {speed}", path="--speed")
        self.world = world
        self.speed = float(speed)
        self.params = params or SweepParams()
        self.name = name
        self.seed = seed
        self._clock = clock
        self._lock = threading.Lock()
        self.cancel = threading.Event()  # set by the service's stop: the catch-up simulation ends at its next step
        self._wall0 = clock()
        self._sim0 = world.sim.now
        self._history = SweepHistory(self.params.trend_window_s)
        self._last_sweep_t: float | None = None
        self.proactive = ProactiveResponder(world.controller.adopt)
        self.tally = SweepTally()

    @classmethod
    def from_scenario(cls, scenario: str, speed: float = 1.0, seed: int | None = None,
                      params: SweepParams | None = None, home: Path | None = None) -> LivePod:
        """Build the world of a built-in scenario name or scenario file (its own in-run sweeps off: the
        service's sweeps take their place)."""
        from opsbrain import chaos
        from opsbrain.kb.training import load_engine
        from opsbrain.runner.world import build_world
        from opsbrain.scenario.schema import SweepSpec

        if not speed > 0:
            raise InputError(f"must be > 0, got {speed}", path="--speed")
        plan = chaos.plan(scenario, seed=seed)
        spec = plan.scenario.spec.model_copy(update={"sweeps": SweepSpec(enabled=False, interval=None)})
        plan.scenario = plan.scenario.model_copy(update={"spec": spec})
        world = build_world(plan, load_engine(home))
        return cls(world, speed, params, name=plan.scenario.metadata.name, seed=plan.seed)

    @property
    def sim_target(self) -> float:
        """The simulated time the pod should have reached now."""
        return self._sim0 + (self._clock() - self._wall0) * self.speed

    def _advance(self) -> float:
        """Simulate up to the wall clock in steps of ``params.interval_s`` simulated seconds, so that a stop
        (:attr:`cancel`) takes effect within one step however far behind a high ``speed`` left the pod."""
        sim = self.world.sim
        target = self.sim_target
        step = max(1.0, self.params.interval_s)
        while sim.now < target and not self.cancel.is_set():
            sim.run(min(target, sim.now + step))
        return sim.now

    def advance(self) -> float:
        """Run the simulation up to the wall clock; returns the simulated time."""
        with self._lock:
            return self._advance()

    def sweep(self) -> tuple[SweepReport, list[ProactiveIncident]]:
        """Advance to the wall clock, sweep, open proactive incidents; (the report, the new incidents)."""
        with self._lock:
            now = self._advance()
            p = self.params
            spacing = p.trend_window_s / max(1, p.trend_reread_points - 1)
            if self._last_sweep_t is not None and now - self._last_sweep_t > spacing:
                self._history = SweepHistory(p.trend_window_s)
            report = run_sweep(self.world.sim, params=p, history=self._history)
            self._last_sweep_t = now
            new = self.proactive.consider(report)
            self.tally.add(report)
            return report, new

    def status(self) -> dict[str, Any]:
        """Simulated time, sweep totals and proactive incidents (with their actions so far)."""
        with self._lock:
            orch = self.world.orchestrator
            t = self.tally
            return {"scenario": self.name, "seed": self.seed, "speed": self.speed, "sim_time_s": self.world.sim.now,
                    "sweeps": t.sweeps, "findings": dict(t.findings), "alarmed_components": len(t.alarmed),
                    "proactive": [inc.as_dict() | {"actions": orch.actions_for(inc.id)}
                                  for inc in self.proactive.incidents],
                    "incidents": len(self.world.controller.incidents)}
