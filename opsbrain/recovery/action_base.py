"""The executor's state and plumbing: run a control-API process so that a refusal comes back as a failed result.

:class:`ExecutorBase` holds what every kind of action shares (the simulation, the policy's limits, the restarts
under way, the responses waiting for a warm spare, the spares taken); :class:`~opsbrain.recovery.actions.Executor`
adds the step's calls on top of :mod:`~opsbrain.recovery.workload_actions` and
:mod:`~opsbrain.recovery.spare_actions`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import simpy

from faultlib.control import ActionResult
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.targets import TargetError

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Call = tuple[str, Callable[[], simpy.Process]]


@dataclass
class SpareWaiter:
    """A repair step waiting for a warm spare to return to ``pod`` (``take_returning_spare``), until ``until``."""

    pod: str
    until: float
    rec: IncidentRecord
    event: simpy.Event


class ExecutorBase:
    """State shared by the executor's actions, and the wrappers that turn a control-API call into a result."""

    def __init__(self, sim: Simulation, scale_in_max_share: float = 0.0, step_timeout_s: float = 1800.0,
                 restart_pending_max_s: float = 900.0) -> None:
        self.sim = sim
        self.restart_pending_max_s = restart_pending_max_s  # RecoveryParams.restart_pending_max_s
        self.scale_in_max_share = scale_in_max_share  # of a training job's launch nodes (RecoveryParams)
        self.step_timeout_s = step_timeout_s  # a step's attempt ends then (RecoveryParams.step_timeout_s)
        self._restarting: dict[str, simpy.Event] = {}  # workload label -> ends with its restart under way
        self.restart_owner: dict[str, IncidentRecord] = {}  # workload label -> the response whose restart runs now
        self.restart_action: dict[str, str] = {}  # workload label -> that restart's action (scale_out: session 39)
        self.restarted: dict[str, tuple[float, float, str, frozenset[str]]] = {}
        """Workload label -> its last restart of ours that succeeded: (start, end, incident, the components out of
        service at its start). An in-place recovery it covers is not run again (session 42)."""
        self._pending: dict[str, list[simpy.Event]] = {}  # workload -> pending restarts to wake when one starts
        self._spare_waiters: list[SpareWaiter] = []  # first come, first served
        self._returned_at: dict[str, float] = {}  # node -> when it last rejoined the pool
        self.on_returned: Callable[[str], None] | None = None  # a node stayed in the pool (no waiter took it)
        self.taken: dict[str, str] = {}  # failed node -> the warm spare a response took for it (any incident)
        self.not_back: set[str] = set()  # hosts whose last reboot ended failed and that are still down (session 38)
        self._in_repair: set[str] = set()  # nodes under a field repair this executor sent them to
        self.repairs: dict[str, simpy.Process] = {}  # node -> the last field repair this executor sent it to
        self.reboots: dict[str, simpy.Process] = {}  # node -> the last reboot this executor started on it
        self.moved_pods: dict[str, dict[str, str]] = {}  # job -> {pod: pod its group moved to} (session 45)
        self.moving: dict[str, dict[str, Any]] = {}  # job -> its group's move whose response goes on (review45)

    # ---- plumbing ------------------------------------------------------------------------------------------
    def start(self, action: str, target: str, factory: Callable[[], simpy.Process]) -> simpy.Process:
        """Run ``factory()``'s process; a refusal or error inside it becomes a failed :class:`ActionResult`."""
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            start = env.now
            reboot = action == "reboot_node"
            if reboot:
                self.not_back.discard(target)  # a reboot under way: its own end tells
            try:
                res = yield factory()
            except (ValueError, KeyError, RuntimeError, TargetError) as exc:
                return ActionResult(action, target, "failed", float(start), float(env.now), {"reason": str(exc)})
            if not isinstance(res, ActionResult):
                return ActionResult(action, target, "succeeded", float(start), float(env.now), {"value": res})
            st = self.sim.state
            if reboot and res.status == "failed" and (not st.is_up(target) or st.host_down(target)):
                self.not_back.add(target)  # the host did not come back (the plant shows it down)
            return res

        proc = env.process(run())
        if action == "reboot_node":
            self.reboots[target] = proc
        return proc

    def _instant(self, action: str, target: str, status: str, **detail: Any) -> simpy.Process:
        env = self.sim.env

        def run() -> Generator[simpy.Event, Any, ActionResult]:
            yield env.timeout(0)
            return ActionResult(action, target, status, float(env.now), float(env.now), detail)

        return env.process(run())
