"""Control actions on a training job: restart from a checkpoint (job or process scope, with spares swapped in,
scaled in by dropping nodes or scaled back out by adding them) and process-level online recovery in place.

Both return simpy processes whose value is True once the job runs again (False if the action failed or was
overtaken). Both re-initialise communication: HCCL link set-up skips ports that are down, modelled by
``fabric.reroute(node)`` for every job node whose inter-node factor is 0. Both kill the processes, so every hang
cause is cleared.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

from faultlib import ids
from faultlib.telemetry import formats as fmt
from faultlib.workloads.base import reinit_comm
from faultlib.workloads.training_checkpoints import Checkpoints
from faultlib.workloads.training_model import EPS
from faultlib.workloads.training_params import online_recovery_stages_s, restart_stages_s, storage_io_s

if TYPE_CHECKING:
    import simpy


class RecoveryActions(Checkpoints):
    """``restart`` and ``recover_in_place``, the control API's actions on a training job."""

    def _reinit_comm(self) -> None:
        reinit_comm(self._sim, self.nodes)

    def _kill(self) -> None:
        """Stop all processes (restart / recovery): timers die, hangs and dead ranks are forgotten."""
        self._advance()
        if self.state == "checkpointing":
            self._ckpt_pending = True
        self._bump("stall", "resume", "boundary", "write", "op")
        self._resume_pending = False
        self._hangs.clear()
        self._lost.clear()

    def stop_restart(self) -> bool:
        """Stop the restart or in-place recovery under way (the control API's ``stop``: its processes are killed
        before they report): the job is down and the operation's end does nothing. False when none is under way."""
        if self.state not in ("restarting", "recovering"):
            return False
        self._go_down()
        return True

    def _done(self, value: bool) -> simpy.Process:
        def proc() -> Any:
            yield self._sim.env.timeout(0)
            return value
        return self._sim.env.process(proc())

    def restart(self, source: Literal["memory", "persistent"] = "memory",
                replace: dict[str, str] | None = None, scope: Literal["job", "process"] = "job",
                drop: list[str] | None = None, add: list[str] | None = None) -> simpy.Process:
        """Restart the job from a checkpoint, optionally swapping nodes for spares (``{old: new}``) or scaling in
        (``drop``: the job restarts without those nodes; with TP x PP ranks = one node's NPUs, each node dropped
        is one data-parallel replica fewer; the global batch stays, so each step takes longer).

        Downtime = node replacement (if any) + process launch + HCCL init + checkpoint load (peer memory over UB,
        or the persistent checkpoint over the storage path); work since that checkpoint is redone. If a node
        and its replica peer (``replica_peers``) both lost their host memory, the in-memory checkpoint is gone and
        the restart falls back to the persistent one. The process's value is True once the job runs again.

        ``scope="process"`` is a process-level reschedule: the surviving ranks keep their processes and only
        re-form the communicator; the replaced nodes' ranks start on warm standbys (``warm_attach_s`` instead of
        node replacement + process launch).

        ``add`` scales the job back out (after a scale-in): the free nodes join as data-parallel replicas again,
        their ranks starting like replaced ones (a warm standby at process scope) and loading their state from
        the checkpoint; at its launch size the job leaves degraded operation.
        """
        if scope not in ("job", "process"):
            raise ValueError(f"scope must be 'job' or 'process', got {scope!r}")
        if source not in ("memory", "persistent"):
            raise ValueError(f"source must be 'memory' or 'persistent', got {source!r}")
        sim = self._sim
        replace = dict(replace or {})
        for old, new in replace.items():
            if old not in self._node_set:
                raise ValueError(f"replace: {old!r} is not a node of training job {self.name!r}")
            if sim.topology.kind.get(new) != "node" or new in self._node_set:
                raise ValueError(f"replace: {new!r} is not a free node")
        dropped = [n for n in dict.fromkeys(drop or [])]
        for n in dropped:
            if n not in self._node_set:
                raise ValueError(f"drop: {n!r} is not a node of training job {self.name!r}")
        if dropped and len(dropped) >= len(self.nodes):
            raise ValueError(f"drop: no node of training job {self.name!r} would be left")
        added = [n for n in dict.fromkeys(add or [])]
        for n in added:
            if sim.topology.kind.get(n) != "node" or n in self._node_set or n in replace.values():
                raise ValueError(f"add: {n!r} is not a free node")
        self._kill()
        used = source
        if source == "memory" and not self._memory_ok():
            used = "persistent"
        step = self.last_memory_step if used == "memory" else self._last_persistent
        step = min(step, int(math.floor(self._pos + EPS)))
        kept = [replace.get(n, n) for n in self.nodes if n not in dropped] + added
        if dropped:
            self._counts["scale_ins"] += 1
        if added:
            self._counts["scale_outs"] += 1
        self._place(kept)
        self._set("restarting", 0.0)
        self._reinit_comm()
        if used == "memory":
            intra, coll = self._factors()
            f = coll if len(self.nodes) > 1 else intra
            load_s = self._shard_b / (sim.params.fabric.npu_ub_gbytes_s * 1e9 * f) if f > 0 else 0.0
        else:
            load_s = storage_io_s(sim, self.p, len(self.nodes), "read")
        dur = self._restart_stages_s(scope, bool(replace) or bool(added)) + load_s
        self.last_restart = {"source": used, "requested": source, "step": step, **({"dropped": dropped} if dropped
                                                                                     else {}),
                             **({"added": added} if added else {})}
        self._event("restart", source=used, requested=source, from_step=step, replace=replace or None, scope=scope,
                    **({"dropped": dropped, "replicas": len(self.nodes)} if dropped else {}),
                    **({"added": added, "replicas": len(self.nodes)} if added else {}))
        g = self._gen["op"]

        def proc() -> Any:
            yield sim.env.timeout(dur)
            return self._finish(g, step, "restart", source=used, load_s=round(load_s, 6))

        return sim.env.process(proc())

    def _restart_stages_s(self, scope: str, replaced: bool) -> float:
        return restart_stages_s(self._sim, self.p, len(self.ranks), len(self.nodes), scope, replaced)

    def recover_in_place(self) -> simpy.Process:
        """Process-level online recovery (facts.md §3, HBM UCE): stop the step, abort device tasks, repair the
        memory (during the abort when ``repair_during_abort``), resume communication (re-routing dead paths),
        reload the affected optimizer shard from a peer replica and redo the current step. Fails (value False, at
        once) if a job node lost its host memory or a job device is out of service; the process's value is True
        once the job runs again. During a persistent write the write aborts (retried once the job runs again) and
        the in-memory copy is what the recovery reloads.
        """
        sim, p = self._sim, self.p
        if self.state == "running":
            return self._done(True)
        if self.state not in ("down", "stalled", "checkpointing"):
            return self._done(False)
        self._advance()
        if self._nodes_lost or self._dead:
            self._event("recover_failed")  # the recovery cannot start; what is gone is the plant's, not the event's
            return self._done(False)
        if self.state == "checkpointing":  # the write aborts (retried when the job runs again); memory copy kept
            self._event("checkpoint_aborted", source="persistent", kept="memory")
        self._kill()
        self._pos = float(math.floor(self._pos + EPS))
        self._set("recovering", 0.0)
        self._reinit_comm()
        intra, coll = self._factors()
        f = coll if len(self.nodes) > 1 else intra
        load_s = self._shard_b / (sim.params.fabric.npu_ub_gbytes_s * 1e9 * f) if f > 0 else 0.0
        dur = online_recovery_stages_s(sim, p, len(self.ranks)) + load_s
        self._event("recovering")
        g = self._gen["op"]
        step = int(self._pos)

        def proc() -> Any:
            yield sim.env.timeout(dur)
            return self._finish(g, step, "in_place")

        return sim.env.process(proc())

    def _finish(self, g: int, step: int, how: str, **detail: Any) -> bool:
        """End of a restart / recovery: run again, or fail and stay down."""
        if g != self._gen["op"] or self.state not in ("restarting", "recovering"):
            return False
        self._advance()
        fail_kind = "restart_failed" if how == "restart" else "recover_failed"
        if self._dead:
            cid = next(iter(self._dead))
            nd = ids.node_of(cid) or self.nodes[0]
            r = self._rank_for(cid)
            self._go_down()
            if self._sim.topology.kind.get(cid) != "node" and self._sim.state.is_up(nd):
                # torch_npu's device set-up failure (ascend-fd rank-log fixture; 507033 ACL_ERROR_RT_DEV_SETUP_ERROR);
                # a rank on a dead host prints nothing
                self._log(nd, "ERROR", f"[rank{r}]: RuntimeError: Initialize :torch_npu/csrc/core/npu/sys_ctrl/"
                          "npu_sys_ctrl.cpp:133 NPU error, error code is 507033")
            self._event(fail_kind, rank=r, node=nd)
            return False
        intra, coll = self._factors()
        if intra <= 0 or coll <= 0:
            self._go_down()
            d0 = self._sim.topology.npus_of(self.nodes[0])[0]
            self._log(self.nodes[0], "ERROR", "[rank0]: RuntimeError: " + fmt.hccl_message(
                "EI0006", reason=f"This node (server {fmt.host_ip(self.nodes[0])}, device ID "
                f"{fmt.device_index(d0)}) detects that srcRank (0) fails to connect to dstRank "
                f"({len(self.ranks) // len(self.nodes)})"))
            self._event(fail_kind, rank=0, node=self.nodes[0])
            return False
        self._pos = float(step)
        self._run_base = step
        if how == "restart":
            self._counts["restarts"] += 1
            self._nodes_lost = set()
            self._ckpt_pending = False
            self._schedule_ckpt()
        else:
            self._counts["in_place_recoveries"] += 1
        self._enter_running("resumed", after=how, **detail)
        return self.state == "running"
