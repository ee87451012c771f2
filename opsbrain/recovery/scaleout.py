"""Scaling a training job back out after a scale-in, once a node returns to the warm-spare pool.

A response that found no warm spare scales a training job in (fewer data-parallel replicas,
:meth:`opsbrain.recovery.workload_actions.WorkloadActions._scale_in_training`); the job then runs in degraded
operation. When a spare or a repaired node rejoins the pool of the job's pod and no waiting repair step takes it,
the job scales back out towards its launch size: a process-level rescale
(:meth:`faultlib.control.ControlAPI.scale_out_job`, the restart stages of a process-level reschedule onto warm
standbys plus the in-memory checkpoint load). It is journaled on the incident that scaled the job in, as an action
of rung ``scale_out`` (kind ``followup``), with a ``spare_used`` follow-up per node taken and a ``scaled_out``
follow-up once the job runs at its new size.

Only a pool node whose chips are all in service is taken (session 39), and only into a pod where the job has fewer
nodes than at launch, up to that pod's shortfall (session 44): MindCluster re-places a faulty node of a logical
SuperPoD only with a node of the corresponding physical SuperPoD ("Affinity Scheduling of Logical SuperPoDs",
hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/dl_affinity_0032.html), as ``swap_spare``
looks only in the failed node's pod. Before, a job scaled in because its pod's pool was empty took another pod's idle
spare the moment the scale-in ended (a scale-in then at once a scale-out: 86 of 219 scale-ins on the replay of the
InfiniteHBD trace, seed 0). The rescale starts only while the job runs
(a checkpoint write under way is let finish, re-checked each step) and no response is acting on it; a failed
rescale gives the nodes back to the pool and leaves the job scaled in (the next node returning, or the next response
ending, tries again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

from faultlib import ids
from faultlib.control import ActionResult
from faultlib.health import Health
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.targets import devices_out

if TYPE_CHECKING:
    from opsbrain.recovery.orchestrator import Orchestrator

RUNG = "scale_out"
POLL_FLOOR_S = 1.0  # reason: a write in progress is re-checked at most once a second (a job without a step time)


class ScaleOut:
    """The scaled-in training jobs of an orchestrator and the rescale back to their launch size."""

    def __init__(self, orch: Orchestrator) -> None:
        self.orch = orch
        self.sim = orch.sim
        self.scaled_in: dict[str, IncidentRecord] = {}  # job -> the incident whose response scaled it in last
        self._under_way: set[str] = set()
        self._rngs: dict[str, Any] = {}  # one stream per job (spare self-checks), drawn from in order

    def note_scale_in(self, job: str, rec: IncidentRecord) -> None:
        """A response scaled ``job`` in: from now on a node returning to its pod's pool scales it back out."""
        self.scaled_in[job] = rec
        self.try_all()

    def note_below_launch(self, jobs: list[str], rec: IncidentRecord) -> None:
        """After a response's step on ``jobs``: a training job left below its launch size by it (a scale-in whose
        restart then failed still placed the job on fewer nodes, and the job's next restart runs at that size)
        scales back out like one a successful scale-in left there. Jobs already noted keep their incident."""
        for job in jobs:
            w = self.sim.workloads.get(job)
            if (w is not None and job not in self.scaled_in and w.kind == "training"
                    and len(w.nodes) < self._launch_nodes(w)):
                self.note_scale_in(job, rec)

    def try_all(self) -> None:
        """Start the rescale of every scaled-in job that can take a node from the pool now."""
        for job in list(self.scaled_in):
            self._try(job)

    def _launch_nodes(self, w: Any) -> int:
        return len(w.placements[0][1]) if getattr(w, "placements", None) else len(w.nodes)

    def _short(self, w: Any) -> Counter[str | None]:
        """Per pod, how many nodes the job has fewer than at launch (the slots a scale-in gave up there)."""
        launch = Counter(ids.pod_of(n) for n in (w.placements[0][1] if getattr(w, "placements", None) else w.nodes))
        for old, new in self.orch.exec.moved_pods.get(w.name, {}).items():  # a group moved whole (session 45)
            if launch[old] and not any(ids.pod_of(n) == old for n in w.nodes):
                launch[new] += launch.pop(old)
        return launch - Counter(ids.pod_of(n) for n in w.nodes)

    def _free_spares(self, w: Any) -> list[str]:
        """The pool's nodes of the job's pods a rank can be placed on: a node with a chip out of service (a spare
        whose chip failed or was isolated while it waited, a repair ticket open) stays in the pool, unschedulable
        until the chip is back (session 39: before, the rescale took it and failed at its end; targets.devices_out)."""
        pods = {ids.pod_of(n) for n in w.nodes}
        return [n for n in self.sim.control.spares if ids.pod_of(n) in pods and not devices_out(self.sim, n)]

    def _fillable(self, w: Any) -> list[str]:
        """The pool's nodes a rank can be placed on (as :meth:`_free_spares`) in a pod where the job is short of its
        launch nodes (session 44: a slot given up is filled from its own pod's pool, as MindCluster re-places a node
        within its physical SuperPoD; before, from any pod of the job's)."""
        short = self._short(w)
        return [n for n in self.sim.control.spares if short[ids.pod_of(n)] > 0 and not devices_out(self.sim, n)]

    def _try(self, job: str) -> None:
        w = self.sim.workloads.get(job)
        if w is None or len(w.nodes) >= self._launch_nodes(w):
            self.scaled_in.pop(job, None)  # back at its launch size (or gone): nothing left to do
            return
        if job in self._under_way or getattr(w, "state", "") not in ("running", "checkpointing"):
            return
        if self.orch.busy_with(job) or not self._fillable(w):
            return
        self._under_way.add(job)
        self.sim.env.process(self._rescale(job, self.scaled_in[job]))

    def _take(self, w: Any, want: int, rec: IncidentRecord) -> list[str]:
        """Up to ``want`` healthy spares of the job's pods, taken from the pool (journal: ``spare_used``)."""
        c, st, now = self.sim.control, self.sim.state, self.sim.now
        rng = self._rngs.setdefault(w.name, self.sim.rng(f"recovery/scale-out/{w.name}"))
        taken: list[str] = []
        short = self._short(w)
        for spare in self._fillable(w):
            if len(taken) >= want:
                break
            if short[ids.pod_of(spare)] <= 0:
                continue  # that pod's slots are filled already (by a node taken before this one)
            c.spares.remove(spare)
            if st.health(spare) != Health.HEALTHY:
                rec.follow_up("spare_unusable", spare, now, health=str(st.health(spare)))
                continue
            if rng.random() < c.p.spare_failure_prob:
                self.orch.exec.failed_self_check(spare, rec)
                continue
            taken.append(spare)
            short[ids.pod_of(spare)] -= 1
            left = len([n for n in c.spares if ids.pod_of(n) == ids.pod_of(spare)])
            rec.follow_up("spare_used", spare, now, replaces=None, scale_out=w.name, spares_left=left,
                          note=f"taken to scale {w.name} back out towards its launch size")
        return taken

    def _rescale(self, job: str, rec: IncidentRecord) -> Generator[simpy.Event, Any, None]:
        env, w = self.sim.env, self.sim.workloads[job]
        try:
            while getattr(w, "state", "") == "checkpointing":  # let the write finish; re-check at a step boundary
                yield env.timeout(max(float(getattr(w, "nominal_step_time_s", POLL_FLOOR_S)), POLL_FLOOR_S))
            if getattr(w, "state", "") != "running" or self.orch.busy_with(job):
                return
            before, launch = len(w.nodes), self._launch_nodes(w)
            add = self._take(w, launch - before, rec)
            if not add:
                return
            entry = rec.begin("scale_out", job, env.now, kind="followup", rung=RUNG, step="scale_out",
                              nodes_before=before, launch_nodes=launch, add=add,
                              spares_left=len(self._free_spares(w)))
            res = yield self.orch.exec.start("scale_out", job, lambda: self.orch.exec._one_restart_at_a_time(
                "scale_out", job, lambda: len(w.nodes) >= launch, lambda: self.sim.control.scale_out_job(job, add),
                rec))  # its restart owned by ``rec``: a doomed one is stopped (Orchestrator._stop_doomed, session 39)
            assert isinstance(res, ActionResult)
            rec.end(entry, res.status, env.now, **{**res.detail, "nodes": len(w.nodes)})
            unused = [n for n in add if n not in w.nodes]
            for n in unused:  # a failed rescale: the nodes go back (a repair step waiting for one takes it)
                self.orch.exec.return_spare(n, rec, how="not used by a failed scale-out")
            if res.status == "succeeded" and not unused:
                rec.follow_up("scaled_out", job, env.now, nodes=len(w.nodes), launch_nodes=launch,
                              spares_left=len(self._free_spares(w)))
        finally:
            self._under_way.discard(job)
        if len(w.nodes) >= self._launch_nodes(w):
            self.scaled_in.pop(job, None)
