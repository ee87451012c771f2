"""A training job's logical SuperPoD moved whole to another physical SuperPoD when its own runs short (session 45).

MindCluster's rescheduling with logical-SuperPoD affinity ("Affinity Scheduling of Logical SuperPoDs", Rescheduling
Upon Faults, hiascend.com/document/detail/zh/mindcluster/730/clustersched/dlug/dl_affinity_0032.html): a faulty node
of a logical SuperPoD is replaced by a node of the same physical SuperPoD, the others staying; when the nodes left
in that physical SuperPoD can no longer hold the logical SuperPoD, its tasks are all scheduled to another physical
SuperPoD. Volcano's plugin does this in job-level rescheduling (Ascend/mind-cluster @22bb3d98, ascend-for-volcano
internal/npu/ascend910/ascend910a3/superpod/frame.go: ``selectNodeFromOriginSuperPod`` skips a logical SuperPoD whose
physical one has fewer free nodes than its size, and ``selectNodes`` places it whole elsewhere, a SuperPoD with fewer
remaining nodes first; with none able to hold it, "select super pod failed" and the job stays pending).

Here a training job's logical SuperPoD is its nodes in one pod (the twin's UB fabric spans a pod, and a job's ranks
there talk over it). When ``swap_spare`` finds no spare in the failed node's pod, the group moves to the pod whose
pool holds it with the fewest nodes to spare: every node of the group is swapped for a pool node of that pod (each
passes the spare's self-check), the restart that follows is job-level whatever the rung asked (MindCluster's move
belongs to job-level rescheduling, which stops all pods), and its cost is that restart's drawn stages
(``training.replace_node_s``, ``launch_s`` over every node, the rank table, HCCL init) plus the checkpoint load: from
the peers' memory, or from the persistent checkpoint when a moved node's replica peer moves too (both copies of that
shard leave the job). The group's nodes still in service rejoin their pod's pool at the response's end; the failed
node follows its own repair.
"""

from __future__ import annotations

from typing import Any

import simpy

from faultlib import ids
from faultlib.health import Health
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery.action_base import ExecutorBase
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.targets import Context, devices_out, out_of_service

MOVE = "superpod_move"  # ctx.vars key and follow-up type


def restart_scope(name: str, ctx: Context, source: str, scope: str) -> tuple[str, str]:
    """The checkpoint source and scope of a restart of ``name`` after its group moved: job-level, and from the
    persistent checkpoint when both copies of a memory shard moved; else as the step asked."""
    move = ctx.vars.get(MOVE)
    if move is None or move["job"] != name:
        return source, scope
    return move["source"] or source, "job"


class SuperPodMove(ExecutorBase):
    """Move a training job's group of nodes to another pod's pool (mixed into the executor)."""

    def _free_in(self, pod: str) -> list[str]:
        """Pool nodes of ``pod`` a rank can be placed on now (healthy, no chip out of service)."""
        st = self.sim.state
        return [n for n in self.sim.control.spares
                if ids.pod_of(n) == pod and st.health(n) == Health.HEALTHY and not devices_out(self.sim, n)]

    def move_group(self, node: str, ctx: Context, rec: IncidentRecord) -> simpy.Process | None:
        """No spare in ``node``'s pod: move the training job's nodes of that pod to the pod whose pool holds them all
        with the fewest left over; the ``swap_spare`` result, or None when no job of the incident's is there or no
        pod can take the group (the caller goes on as for an empty pool)."""
        pod = ids.pod_of(node)
        job = next((w for name, _q in ctx.workloads
                    if isinstance(w := self.sim.workloads[name], TrainingJob) and node in w.nodes), None)
        if job is None or pod is None or MOVE in ctx.vars:
            return None
        if (under := self.moving.get(job.name)) is not None and node in under["nodes"]:
            return self._join(under, node, ctx)
        group = [n for n in job.nodes if ids.pod_of(n) == pod]
        pods = sorted({p for n in self.sim.control.spares if (p := ids.pod_of(n)) is not None and p != pod})
        fits = sorted(((len(free), p) for p in pods if len(free := self._free_in(p)) >= len(group)),
                      key=lambda x: (x[0], ids.index(x[1], "pod")))
        for _n, target in fits:
            taken = self._take_group(target, len(group), ctx, rec)
            if taken is None:
                continue
            mapping = dict(zip(group, taken, strict=True))
            peers = job.replica_peers()
            both = sorted(n for n in group if peers.get(n) in mapping)
            move: dict[str, Any] = {"job": job.name, "from_pod": pod, "to_pod": target, "nodes": mapping,
                                    "source": "persistent" if both else None, "holders": 1}
            ctx.vars[MOVE] = self.moving[job.name] = move
            ctx.vars.setdefault("replace_nodes", {}).update(mapping)
            ctx.spare = mapping[node]
            self.taken[node] = mapping[node]
            self.moved_pods.setdefault(job.name, {})[pod] = target
            rec.follow_up(MOVE, job.name, self.sim.now, from_pod=pod, to_pod=target, nodes=mapping,
                          checkpoint="persistent" if both else "memory", reason=(
                              f"no free node of {pod} for {node}: {job.name}'s {len(group)} nodes of {pod} "
                              f"(its logical SuperPoD) move whole to {target}, the pod whose pool holds them with "
                              "the fewest left over, as MindCluster reschedules a logical SuperPoD its physical "
                              "one can no longer hold; a job-level restart"
                              + (" from the persistent checkpoint (both copies of a memory shard moved)"
                                 if both else "")))
            return self._instant("swap_spare", node, "succeeded", spare=mapping[node], superpod_move=True,
                                 from_pod=pod, to_pod=target, moved=len(group))
        return None

    def _join(self, move: dict[str, Any], node: str, ctx: Context) -> simpy.Process:
        """``node`` is in a group another incident's response is moving (two of its nodes failed at once): its place
        is the node the move took for it, and the restart the move's (review45: before, each incident moved the
        group, the second taking as many pool nodes again for a restart the first one's overtook)."""
        ctx.vars[MOVE] = move
        move["holders"] += 1
        ctx.vars.setdefault("replace_nodes", {}).update(move["nodes"])
        ctx.spare = self.taken[node] = move["nodes"][node]
        return self._instant("swap_spare", node, "succeeded", spare=ctx.spare, superpod_move=True, reused=True,
                             from_pod=move["from_pod"], to_pod=move["to_pod"])

    def _take_group(self, pod: str, want: int, ctx: Context, rec: IncidentRecord) -> list[str] | None:
        """``want`` usable pool nodes of ``pod`` (each checked as a spare is: one failing its self-check goes to
        repair), or None with those taken put back when the pod runs out first."""
        taken: list[str] = []
        while len(taken) < want:
            free = self._free_in(pod)
            if not free:
                for n in taken:
                    self.return_spare(n, rec, how="not used: the pod could not hold the whole group")
                return None
            self.sim.control.spares.remove(free[0])
            if self._usable(free[0], ctx, rec):
                taken.append(free[0])
        left = len([n for n in self.sim.control.spares if ids.pod_of(n) == pod])
        for n in taken:
            rec.follow_up("spare_used", n, self.sim.now, replaces=None, spares_left=left, note="taken for the "
                          "logical SuperPoD's move")
        return taken

    def give_back_left_behind(self, ctx: Context, rec: IncidentRecord) -> bool:
        """At the response's end (the last of the responses that hold the move: :meth:`_join`): the group's old nodes
        in service that no workload runs on rejoin their pod's pool; new nodes the job does not run on (its restart
        failed) go back to theirs. Whether another response still holds the move (then nothing is given back, the
        response's own spare neither)."""
        if ctx.vars.get(MOVE) is None:
            return False
        move: dict[str, Any] = ctx.vars[MOVE]
        move["holders"] -= 1
        if move["holders"] > 0:
            return True  # (another incident's response holds the move still: its end gives back what is left)
        if self.moving.get(move["job"]) is move:
            del self.moving[move["job"]]
        busy = {n for w in self.sim.workloads.values() for n in w.nodes}
        for old, new in move["nodes"].items():
            for n, how in ((old, f"left by {move['job']}'s move to {move['to_pod']}"),
                           (new, "taken for a move the job does not run on")):
                if (n not in busy and n not in self.sim.control.spares and not out_of_service(self.sim, n)
                        and self.sim.state.health(n) == Health.HEALTHY and n not in self._in_repair):
                    self.return_spare(n, rec, how=how)
        return False

    def _usable(self, spare: str, ctx: Context, rec: IncidentRecord) -> bool:  # SpareActions'
        raise NotImplementedError

    def return_spare(self, node: str, rec: IncidentRecord, **detail: Any) -> str | None:  # SpareActions'
        raise NotImplementedError
