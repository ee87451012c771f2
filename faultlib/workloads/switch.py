"""Switching nodes between inference and training: the stages and their modelled durations.

Inference -> training (dusk), per group of nodes:

1. **drain**: the router stops admitting to the instance; its in-flight sequences finish. The longest has up to a
   whole output left: ``output_tokens x TPOT`` of the moment (the twin's own TPOT), bounded by
   ``switch.drain_timeout_s`` (after which the rest is re-queued elsewhere). The instance is then retired.
   With ``inflight="migrate"`` (Llumnix, OSDI'24: live migration of a request with its KV cache while it decodes)
   the in-flight sequences move to the instances that stay instead, in :func:`migrate_s`.
2. **stop**: the serving processes exit and free HBM (``switch.process_stop_s``, the slowest of the nodes).
3. **start training**: a :class:`TrainingJob` on the nodes restarts from its persistent checkpoint with the job's
   own restart model (launch = slowest node, rank table, HCCL init, checkpoint load over the storage path).

Training -> inference (dawn):

1. **checkpoint**: the job writes a persistent checkpoint (its state bytes over the storage path, the job's own
   write model) and stops (``switch.process_stop_s``); the job leaves the nodes. With ``checkpoint="memory"``
   (Huawei MindCluster MindIO ACP: a checkpoint goes to the training server's memory in seconds and is persisted to
   storage asynchronously, in minutes -- hiascend.com MindCluster docs, "MindIO ACP" product description) the job
   stops at the next step boundary, where its per-step in-memory checkpoint is taken (the twin's training model,
   ``training.mem_ckpt_every_steps``), and the write to storage runs after the job left (recorded, not waited for).
   ``checkpoint="memory-last-step"``: the job stops at once and hands back the in-memory checkpoint of its last step
   boundary; the step under way is lost (recorded as ``abandoned_step_s``): the operator trades up to one step of
   training for not waiting for the boundary.
2. **start serving**: each instance of the plan starts on its nodes
   (:meth:`ElasticInferenceService.add_instance`: relaunch + HCCL init + EP-shard weights from the EMS pool).

A node's switch time runs from the moment it stops useful work in its old role (drain start / checkpoint start)
to the moment it works in the new one (instance up / job running).

**Overlapped operation** (what an operations team does with the same stages; every duration is the same sourced
distribution, only the order and what waits for what change; used by ``opsbrain.ops.schedule`` with
``SwitchOps``):

* per node: a node's next stage starts when *it* is free, not when the slowest node of the group is (a prefill
  instance's nodes have nothing to drain; each node's training processes launch once its own serving processes
  exited; at dawn each instance starts once its own nodes' training processes exited) -- :func:`stop_draws`;
* stop with a grace period: SIGTERM, then SIGKILL after ``stop_grace_s`` (the orchestrator's termination grace
  period), so a process that hangs on exit no longer sets the stage's tail;
* the persistent checkpoint is read from storage into the nodes' host memory from the moment the switch begins,
  while the group drains and launches (:func:`checkpoint_read_s`, the job's own storage model); the job then loads
  it from host memory as it loads an in-memory checkpoint (:class:`SwitchedTrainingJob`);
* N + k launch: the job's processes launch on the group's nodes and on ``k`` free spares of the plan; the job
  takes the first N that report ready (a rank registers when its process is up; a node that died never does).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Literal

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup
from faultlib.workloads.training import TrainingJob, TrainingParams, stage_s, storage_io_s

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.workloads.elastic import ElasticInferenceService


class SwitchParams(ParamGroup):
    """Durations of an inference <-> training switch besides those the workloads already model."""

    drain_timeout_s: float = P(
        120.0, "s", "reason: a configured drain timeout: the scheduler waits at most 2 min for in-flight sequences "
        "(a 2K-token output at <= 50 ms TPOT needs ~100 s) and re-queues what is left", gt=0)
    node_health_poll_s: float = P(
        60.0, "s", "reason: the switch controller learns that a node died from the node agent, which reports node "
        "faults about every 60 s (NodeD, facts.md §3, §8); a start on a dead node is then abandoned and retried", gt=0)
    process_stop_s: Dist = D(
        5.0, 15.0, "s", "reason: SIGTERM, process exit and release of the NPU memory/contexts take seconds; assumed "
        "p90 3 x median (a process that must be killed after a grace period)")
    stop_grace_s: float = P(
        30.0, "s", "the orchestrator's termination grace period in the overlapped operation: SIGTERM, then SIGKILL "
        "once it expires; Kubernetes' default terminationGracePeriodSeconds is 30 s (kubernetes.io, 'Termination of "
        "Pods' and the PodSpec API reference)", gt=0)
    kill_release_s: Dist = D(
        2.0, 5.0, "s", "assumed: after SIGKILL the kernel reaps the process and the NPU driver frees its device "
        "memory and contexts: seconds; assumed p90 2.5 x median")
    kv_migrate_s_per_gb: Dist = D(
        0.41, 0.62, "s/GB", "live migration of in-flight KV cache (pre-copy while the request decodes): Llumnix's "
        "LLaMA-7B figures, 451, 909, 1682 ms for 2k, 4k, 8k-token sequences (1.07, 2.15, 4.29 GB of FP16 KV), i.e. "
        "2.4-2.6 GB/s per GPU (OSDI'24 artifact, github.com/AlibabaPAI/llumnix artifact/62_migration_efficiency/"
        "plot/plot.py, the paper's Figure 10); applied per NPU (its sequences' KV), not faster for UB; assumed p90 "
        "1.5 x median")
    kv_migrate_downtime_s: float = P(
        0.035, "s", "the last stage of a live migration (the request paused): 20-30 ms (7B) to 33-37 ms (30B), "
        "nearly constant in the sequence length (Llumnix OSDI'24 artifact, figure10_paper.claim and plot.py, "
        "github.com/AlibabaPAI/llumnix)", ge=0)


def drain_s(sim: Simulation, svc: ElasticInferenceService, instance: str) -> float:
    """How long the in-flight sequences of ``instance`` take to finish (bounded by the drain timeout)."""
    p: SwitchParams = sim.params.switch
    tpot = svc.tpot_at(sim.now)
    if not tpot < float("inf"):
        return 0.0  # nothing decodes: nothing to wait for
    role = svc.instances()[svc._qual(svc._inst(instance))]["role"]
    per_token = tpot if role == "decode" else 0.0  # a prefill instance hands its prompts over within a batch
    return min(svc.p.output_tokens * per_token, p.drain_timeout_s)


def migrate_s(sim: Simulation, svc: ElasticInferenceService, instance: str) -> float:
    """How long moving the in-flight sequences of ``instance`` (with their KV cache) to the instances that stay
    takes: each NPU's sequences' KV at ``kv_migrate_s_per_gb`` (NPUs in parallel) plus the final pause. A prefill
    instance hands its prompts over within a batch (nothing to migrate), as in :func:`drain_s`."""
    p: SwitchParams = sim.params.switch
    batch = svc.decode_batch_per_npu(instance)
    if batch <= 0:
        return 0.0
    kv_gb = batch * svc.roof.decode_context() * svc.p.kv_bytes_per_token / 1e9
    return sim.durations.draw("switch.kv_migrate_s_per_gb", p.kv_migrate_s_per_gb, kv_gb) + p.kv_migrate_downtime_s


Inflight = Literal["drain", "migrate"]


def leave_s(sim: Simulation, svc: ElasticInferenceService, instance: str, inflight: Inflight = "drain") -> float:
    """Until the in-flight sequences of ``instance`` are gone: drained (:func:`drain_s`) or migrated
    (:func:`migrate_s`)."""
    return migrate_s(sim, svc, instance) if inflight == "migrate" else drain_s(sim, svc, instance)


def stop_s(sim: Simulation, nodes: int) -> float:
    """The serving or training processes of ``nodes`` nodes exit: the slowest node's draw."""
    p: SwitchParams = sim.params.switch
    return sim.durations.draw_max("switch.process_stop_s", p.process_stop_s, nodes)


def stop_draws(sim: Simulation, nodes: int, grace: bool = False) -> list[float]:
    """One stop time per node (``switch.process_stop_s``); with ``grace`` a process still running when the grace
    period ends is killed (``stop_grace_s`` + ``kill_release_s``)."""
    p: SwitchParams = sim.params.switch
    out = []
    for _ in range(nodes):
        t = sim.durations.draw("switch.process_stop_s", p.process_stop_s)
        if grace and t > p.stop_grace_s:
            t = p.stop_grace_s + sim.durations.draw("switch.kill_release_s", p.kill_release_s)
        out.append(t)
    return out


def launch_draws(sim: Simulation, nodes: int, params: TrainingParams | None = None) -> list[float]:
    """One draw of the training processes' launch per node (``training.launch_s``: spawn, import, model build)."""
    p = params or sim.params.training
    return [sim.durations.draw("training.launch_s", p.launch_s) for _ in range(nodes)]


def checkpoint_read_s(sim: Simulation, nodes: int, params: TrainingParams | None = None) -> float:
    """Seconds to read a job's whole persistent checkpoint from storage onto ``nodes`` nodes (one draw of the job's
    own storage model, :func:`~faultlib.workloads.training_params.storage_io_s`)."""
    return storage_io_s(sim, params or sim.params.training, nodes, "read")


class SwitchedTrainingJob(TrainingJob):
    """A training job started by an overlapped switch: its first start skips the launch stage (the runner launched
    each node's processes as the node freed up) and waits, besides rank table and HCCL init, for the checkpoint
    being pre-staged into host memory (``prestaged_until``, simulated second). Later restarts (a retry on a spare)
    use the job's full restart model."""

    def __init__(self, name: str, nodes: list[str], params: TrainingParams | None = None) -> None:
        super().__init__(name, nodes, params)
        self.launched = False
        self.prestaged_until: float | None = None

    def _restart_stages_s(self, scope: str, replaced: bool) -> float:
        if not self.launched or scope != "job" or replaced:
            return super()._restart_stages_s(scope, replaced)
        self.launched = False  # only the first start was launched per node
        sim, p = self._sim, self.p
        ranks = len(self.ranks)
        stages = (stage_s(sim, p, "rank_table_s", ranks, p.rank_table_scale_exp)
                  + stage_s(sim, p, "hccl_init_s", ranks, p.hccl_init_scale_exp))
        if self.prestaged_until is not None:
            stages = max(stages, self.prestaged_until - sim.now)
        return stages


def start_training(sim: Simulation, name: str, nodes: list[str], params: TrainingParams | None = None
                   ) -> tuple[TrainingJob, Any]:
    """Place a training job on ``nodes`` and restart it from its persistent checkpoint (the job's restart model);
    returns (job, process whose value is True once it runs)."""
    job = TrainingJob(name, nodes, params)
    sim.add_workload(job)
    return job, job.restart("persistent")


def checkpoint_write_s(job: TrainingJob) -> float:
    """Seconds to write the job's persistent checkpoint over its storage paths (one draw of the job's own storage
    model, :func:`~faultlib.workloads.training_params.storage_io_s`)."""
    return storage_io_s(job._sim, job.p, len(job.nodes), "write")


def to_step_boundary_s(job: TrainingJob) -> float:
    """Seconds until a running job ends its current step (where its in-memory checkpoint is taken); 0 otherwise."""
    if job.state != "running" or job._step_s <= 0:
        return 0.0
    job._advance()
    return max(0.0, (math.ceil(job._pos - 1e-9) - job._pos) * job._step_s)


HandbackCheckpoint = Literal["storage", "memory", "memory-last-step"]


def handback_checkpoint(sim: Simulation, job: TrainingJob, checkpoint: HandbackCheckpoint = "storage"
                        ) -> Generator[Any, Any, dict[str, Any]]:
    """The checkpoint stage of a hand-back (if the job runs). Value: what was saved and how long it took (a job
    that is down or restarting has nothing newer to save). ``checkpoint="memory"``: see the module docstring (the
    storage write, ``persist_async_s``, continues after the hand-back)."""
    out: dict[str, Any] = {"job": job.name, "nodes": list(job.nodes), "checkpoint_to": checkpoint}
    acc = job.accounting()
    out["trained"] = {k: acc[k] for k in ("useful_steps", "ettr", "state")}
    if checkpoint == "memory-last-step" and job.state == "running":
        lost = step_done_s(job)  # the step under way is abandoned; its last boundary's memory copy is kept
        out["checkpoint_s"] = 0.0
        out["abandoned_step_s"] = lost
        out["persist_async_s"] = checkpoint_write_s(job)
    elif checkpoint.startswith("memory") and job.state == "running":
        wait = to_step_boundary_s(job)
        yield sim.env.timeout(wait)
        out["checkpoint_s"] = wait
        out["persist_async_s"] = checkpoint_write_s(job)
    elif job.state in ("running", "checkpointing", "stalled") and all(
            sim.state.is_up(f"{n}/qingtian") for n in job.nodes):
        write = checkpoint_write_s(job)
        yield sim.env.timeout(write)
        out["checkpoint_s"] = write
    else:
        out["checkpoint_s"] = 0.0
        out["no_checkpoint"] = f"job {job.state}" if job.state not in ("running", "checkpointing", "stalled") \
            else "storage path down"
    return out


def step_done_s(job: TrainingJob) -> float:
    """Seconds of the current step a running job has done since its last step boundary; 0 otherwise."""
    if job.state != "running" or job._step_s <= 0:
        return 0.0
    job._advance()
    return max(0.0, (job._pos - math.floor(job._pos + 1e-9)) * job._step_s)


def hand_back(sim: Simulation, job: TrainingJob, checkpoint: HandbackCheckpoint = "storage"
              ) -> Generator[Any, Any, dict[str, Any]]:
    """Checkpoint (:func:`handback_checkpoint`), stop (the slowest node), and take the job off its nodes. Value:
    stage durations and whether a checkpoint was written."""
    start = sim.now
    out = yield from handback_checkpoint(sim, job, checkpoint)
    stop = stop_s(sim, len(job.nodes))
    yield sim.env.timeout(stop)
    out["stop_s"] = stop
    detach(sim, job)
    out["duration_s"] = sim.now - start
    return out


def detach(sim: Simulation, job: TrainingJob) -> None:
    """Take a stopped job out of the simulation: its timers die, it no longer hears plant changes, nodes free."""
    job._kill()
    job._set("down", 0.0)
    sim.workloads.pop(job.name, None)
    listeners = sim.state._listeners
    if job.on_plant_change in listeners:
        listeners.remove(job.on_plant_change)
