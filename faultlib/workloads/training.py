"""Training job: a fluid model of a synchronous TP/PP/EP/DP LLM training job placed on a list of nodes.

States: ``running``, ``checkpointing`` (persistent write, a stall), ``stalled`` (a collective cannot complete: a
hung or dead rank, or a routed UB path is dead), ``down`` (crashed or timed out), ``restarting``, ``recovering``.

Faults call :meth:`TrainingJob.fail` (``crash``: job down at once; ``hang``: stall until the HCCL timeout) and
:meth:`set_slowdown` (fail-slow); plant changes arrive in :meth:`TrainingJob.on_plant_change`. The job is built in
layers, one module each (this module adds the fault inputs and the read-outs, and re-exports the parameters):

- :mod:`~faultlib.workloads.training_params`: :class:`TrainingParams` and the drawn restart / recovery stages;
- :mod:`~faultlib.workloads.training_model`: placement, step time (compute + exposed communication + in-memory
  checkpoint overhead, advanced lazily: nothing ticks per step) and the time accounting;
- :mod:`~faultlib.workloads.training_stalls`: stalls, the HCCL operator retry grid and the hang timeout;
- :mod:`~faultlib.workloads.training_checkpoints`: persistent and in-memory checkpoints;
- :mod:`~faultlib.workloads.training_recovery`: the control actions :meth:`restart` and :meth:`recover_in_place`.

Telemetry: job events (started, stalled, resumed, timeout, crash, restart, restart_failed, recovering,
recover_failed, checkpoint, checkpoint_failed); metrics ``step_time_s`` (component = job; the modelled step time
while running, the age of the in-flight step with slope 1 while stalled, 0 while no step is in flight),
``train_steps_per_s`` (component = job) and ``rank_step_time_s`` (component = NPU, for every rank of the job,
healthy or slowed); console lines (source ``train``) on crash, timeout and failed restarts, and the peers' HCCL
notify-wait reports (source ``plog``) for every stall, whatever its cause. Events and lines carry only what a
scheduler or the framework knows (rank, node, exit text), never a plant component id or health state.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any, Literal

from faultlib import ids
from faultlib.health import UP
from faultlib.workloads.training_model import COMPUTE_KINDS, JobState
from faultlib.workloads.training_params import (
    TrainingParams,
    online_recovery_stages,
    online_recovery_stages_s,
    restart_stages_s,
    stage_s,
    storage_io_s,
)
from faultlib.workloads.training_recovery import RecoveryActions

if TYPE_CHECKING:
    from faultlib.engine import Simulation

__all__ = ["JobState", "TrainingJob", "TrainingParams", "online_recovery_stages", "online_recovery_stages_s",
           "restart_stages_s", "stage_s", "storage_io_s"]


class TrainingJob(RecoveryActions):
    """A synchronous LLM training job; see the module docstring for the model."""

    kind = "training"

    def attach(self, sim: Simulation) -> None:
        """Place the job and start it: it runs (or stalls at once on a cause already present) and arms the
        checkpoint timer."""
        super().attach(sim)
        self._enter_running("started", nodes=len(self.nodes), npus=len(self.ranks))
        self._schedule_ckpt()

    # ---- plant and fault inputs ------------------------------------------------------------------
    def on_plant_change(self, component: str, old: str, new: str) -> None:
        if self.state == "new":
            return
        nd = ids.node_of(component)
        if nd is not None and nd not in self._node_set:
            return
        kind = self._sim.topology.kind.get(component)
        if kind in COMPUTE_KINDS:
            if new in UP:
                self._dead.pop(component, None)
            else:
                self._dead[component] = str(new)
                if self.state in ("running", "stalled", "checkpointing"):
                    self._lost[component] = str(new)  # its rank's process dies; peers hang in collectives
                if kind == "node":
                    self._nodes_lost.add(component)  # host memory (in-memory checkpoint replicas) is gone
        elif kind == "roce":
            (self._roce_down.discard if new in UP else self._roce_down.add)(component)
        elif kind == "qingtian" and new not in UP and self.state == "checkpointing":
            self._write_failed(nd or self.nodes[0])
        self._fabric_changed(nd)
        self._refresh()

    def fail(self, component: str, mode: Literal["crash", "hang"], reason: str) -> bool:
        """A rank on ``component`` (NPU, die, HBM or node of the job) crashes or hangs; False if not in the job.

        ``reason`` is the exception line the rank prints (it appears in the training console log), as the framework
        prints it, e.g. ``"RuntimeError: InnerRun: NPU error, error code is 507053"``; empty when the rank dies or
        hangs without printing (a hang is silent).
        """
        if mode not in ("crash", "hang"):
            raise ValueError(f"mode must be 'crash' or 'hang', got {mode!r}")
        nd = ids.node_of(component)
        if nd not in self._node_set or self.state == "new":
            return False
        sim = self._sim
        sim.trace.record(sim.now, "job_fault", self.name, component=component, mode=mode, reason=reason)
        if mode == "hang":
            self._hangs[component] = reason
            self._refresh()
            return True
        if self.state == "down":
            return True
        r = self._rank_for(component)
        self._counts["crashes"] += 1
        self._go_down()
        if reason:
            self._log(nd, "ERROR", f"[rank{r}]: {reason}")
        self._event("crash", rank=r, node=nd)
        return True

    def clear_hang(self, component: str) -> None:
        """The cause of a hang on ``component`` disappeared (the stall ends with an operator retry)."""
        if self._hangs.pop(component, None) is not None:
            self._refresh()

    def set_slowdown(self, npu_id: str, factor: float) -> None:
        """Fail-slow: the rank on ``npu_id`` computes ``factor`` (>= 1) times slower; 1.0 clears it."""
        if npu_id not in self._rank_of:
            raise ValueError(f"{npu_id!r} is not an NPU of training job {self.name!r}")
        if factor < 1.0:
            raise ValueError(f"slowdown factor must be >= 1, got {factor}")
        if factor == 1.0:
            self._slow.pop(npu_id, None)
        else:
            self._slow[npu_id] = factor
        self._refresh()
        cause, _s, over = self._assess()
        if cause is None:
            self._publish_ranks(over)

    # ---- read-outs -------------------------------------------------------------------------------
    @property
    def step_time_s(self) -> float:
        """Modelled step time now (inf if a collective cannot complete)."""
        return self._assess()[1]

    @property
    def nominal_step_time_s(self) -> float:
        """Fault-free step time of this placement."""
        return self._nominal_s

    def degraded(self) -> dict[str, Any] | None:
        """Degraded operation now: the job runs on fewer nodes than it was launched on (scaled in), since when, on
        how many nodes, and its fault-free throughput as a share of the launch placement's; None at full size."""
        if self._degraded_since is None:
            return None
        return {"since_s": self._degraded_since, "nodes": len(self.nodes), "launch_nodes": self._launch_nodes,
                "throughput_share": self._launch_nominal_s / self._nominal_s}

    def throughput_at(self, t: float) -> float:
        i = bisect_right(self._times, t) - 1
        return self._rates[i] if i >= 0 else 0.0

    def rate_history(self) -> list[tuple[float, float]]:
        return list(zip(self._times, self._rates, strict=True))

    def accounting(self) -> dict[str, Any]:
        self._advance()
        elapsed = self._sim.now - self._t0
        n = len(self.ranks)
        lost_s = self._down_s + self._stalled_s + self._redone_s + self._slow_loss_s  # a fail-slow's shortfall too
        p = self.p
        flops = p.flops_per_param_token * p.active_params_b * 1e9 * p.global_batch_seqs * p.seq_len
        return {
            "name": self.name, "kind": self.kind, "state": self.state, "nodes": len(self.nodes), "npus": n,
            "step_time_s": self._step_s, "nominal_step_time_s": self._nominal_s,
            "nominal_mfu": flops / (self._nominal_s * n * p.peak_tflops * 1e12),
            "useful_steps": self._hw, "redone_steps": max(0.0, self._processed - self._hw),
            "processed_steps": self._processed, "elapsed_s": elapsed, "running_s": self._running_s,
            "useful_s": self._useful_s, "redone_s": self._redone_s, "downtime_s": self._down_s,
            "stalled_s": self._stalled_s, "ckpt_stall_s": self._ckpt_s, "slowdown_loss_s": self._slow_loss_s,
            "ettr": self._useful_s / elapsed if elapsed > 0 else 1.0,
            "lost_npu_s": lost_s * n, "last_persistent_ckpt_step": self._last_persistent,
            "last_memory_ckpt_step": self.last_memory_step, **self._counts,
            "launch_nodes": self._launch_nodes, "launch_nominal_step_time_s": self._launch_nominal_s,
            "degraded": self.degraded(), "degraded_s": self._degraded_s, "degraded_loss_s": self._degraded_loss_s,
        }
