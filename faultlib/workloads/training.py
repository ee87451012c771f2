"""Training job: a fluid model of a synchronous TP/PP/EP/DP LLM training job placed on a list of nodes.

Step time = compute (model FLOPs / (NPUs x peak x efficiency), times the slowest rank's slowdown) + exposed
communication (bytes each NPU moves per step over the per-NPU UB bandwidth, scaled by the fabric's intra-node
and collective factors, minus the overlapped share) + the in-memory checkpoint overhead. The job's progress is a
float step position advanced lazily at ``1 / step_time``: nothing ticks per step; state changes, plant changes,
checkpoints and control actions are the only events.

States: ``running``, ``checkpointing`` (persistent write, a stall), ``stalled`` (a collective cannot complete: a
hung or dead rank, or a routed UB path is dead), ``down`` (crashed or timed out), ``restarting``, ``recovering``.

Faults call :meth:`TrainingJob.fail` (``crash``: job down at once; ``hang``: stall until the HCCL timeout) and
:meth:`set_slowdown` (fail-slow). A job NPU / die / HBM / node that leaves service kills its rank: the peers
hang in their collectives (stall, then timeout) until the job is restarted. A stall whose cause disappears
before ``hang_timeout_s`` ends with an HCCL operator retry: re-executions at ``op_retry_hold_s`` after the
failure and every ``op_retry_interval_s`` after that; the first one that finds the path alive re-executes the
collective in flight (the step's finished compute is kept). Control actions :meth:`restart` and
:meth:`recover_in_place` return simpy processes whose value is True once the job runs again (False if the
action failed or was overtaken). Both re-initialise communication: HCCL
link set-up skips ports that are down, modelled by ``fabric.reroute(node)`` for every job node whose inter-node
factor is 0. Both kill the processes, so every hang cause is cleared.

Telemetry: job events (started, stalled, resumed, timeout, crash, restart, restart_failed, recovering,
recover_failed, checkpoint, checkpoint_failed); metrics ``step_time_s`` (component = job; the modelled step time
while running, the age of the in-flight step with slope 1 while stalled, 0 while no step is in flight),
``train_steps_per_s`` (component = job) and ``rank_step_time_s`` (component = NPU, for every rank of the job,
healthy or slowed); console lines (source ``train``) on crash, timeout and failed restarts, and the peers' HCCL
notify-wait reports (source ``plog``) for every stall, whatever its cause. Events and lines carry only what a
scheduler or the framework knows (rank, node, exit text), never a plant component id or health state.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import TYPE_CHECKING, Any, Literal

from pydantic import model_validator

from faultlib import ids
from faultlib.health import UP
from faultlib.durations import D, Dist, job_scale
from faultlib.params import P, ParamGroup
from faultlib.telemetry import formats as fmt
from faultlib.workloads.base import Workload, reinit_comm, report_peer_waits

if TYPE_CHECKING:
    import simpy

    from faultlib.engine import Simulation

DSV3 = "DeepSeek-V3 technical report (arXiv 2412.19437)"
MODEL_WHY = (", a DeepSeek-V3-class MoE: the model family CloudMatrix384 serves (facts.md §2) and whose expert "
             "all-to-all loads the UB fabric across nodes")


REFORM_GROWTH = (
    "assumed: the replaced ranks' links go to a fixed set of TP/EP/PP/DP peers (constant in the job size) behind one "
    "job-wide barrier; taken as (ranks / scale_ref_npus) ** 0.25, between a tree barrier's log N and the full set-up's "
    "sqrt(N) (hccl_init_scale_exp); not fitted to any recovery figure")


class TrainingParams(ParamGroup):
    """Training job parameters (model, parallelism, checkpoints, recovery)."""

    # ---- model (defaults: DeepSeek-V3-class MoE) ----
    total_params_b: float = P(671.0, "1e9 params", "total parameters, " + DSV3 + MODEL_WHY, gt=0)
    active_params_b: float = P(37.0, "1e9 params", "parameters activated per token, " + DSV3, gt=0)
    routed_expert_params_b: float = P(
        654.0, "1e9 params", "routed experts: 58 MoE layers x 256 experts x 3 x 7168 x 2048 (" + DSV3 + "); 0 for a "
        "dense model", ge=0)
    layers: int = P(61, "layers", DSV3, ge=1)
    moe_layers: int = P(58, "layers", "all but the first 3 layers are MoE, " + DSV3, ge=0)
    hidden: int = P(7168, "elements", "hidden size, " + DSV3, ge=1)
    experts_per_token: int = P(8, "experts", "routed experts per token, " + DSV3 + "; 0 for a dense model", ge=0)
    seq_len: int = P(4096, "tokens", "pre-training sequence length, " + DSV3, ge=1)
    global_batch_seqs: int = P(
        3072, "sequences", "DeepSeek-V3's initial batch size (" + DSV3 + "); gives a ~32 s step on 384 NPUs", ge=1)
    flops_per_param_token: float = P(
        6.0, "FLOP", "forward + backward FLOPs per active parameter per token (the 6N rule, Kaplan et al. 2020)", gt=0)
    # ---- hardware efficiency ----
    peak_tflops: float = P(752.0, "TFLOPS", "BF16 peak per 910C NPU, facts.md §2", gt=0)
    compute_efficiency: float = P(
        0.31, "fraction", "achieved / peak FLOPS of the compute kernels; calibrated so that the fault-free end-to-end "
        "MFU of a 48-node job is ~0.30, the MFU Pangu Ultra MoE reports on Ascend NPUs (arXiv 2505.04519) "
        "(see test_fault_free_step_time_mfu_and_ettr)", gt=0, le=1)
    # ---- parallel layout ----
    tensor_parallel: int = P(1, "ranks", "DeepSeek-V3 trains without TP (" + DSV3 + "); TP is kept inside a node",
                             ge=1)
    pipeline_parallel: int = P(
        8, "stages", "reason: 61 layers in 8 stages of 6 nodes on a 48-node pod (DeepSeek-V3: 16 stages on 2,048 "
        "GPUs); capped at the job's node count", ge=1)
    expert_parallel: int = P(
        48, "ranks", "reason: experts spread over all ranks of a stage (6 nodes x 8 NPUs; DeepSeek-V3: EP64); capped "
        "at the data-parallel degree", ge=1)
    # ---- communication ----
    act_bytes: float = P(2.0, "bytes/element", "BF16 activations and pipeline sends", gt=0)
    dispatch_bytes: float = P(1.0, "bytes/element", "FP8 token dispatch, " + DSV3, gt=0)
    combine_bytes: float = P(
        2.0, "bytes/element", "BF16 combine; the backward all-to-alls are BF16 both ways, " + DSV3, gt=0)
    tp_collectives_per_layer: int = P(
        8, "collectives", "Megatron sequence parallelism: 2 all-gathers + 2 reduce-scatters per layer forward, the "
        "same backward (Korthikanti et al. 2022)", ge=0)
    grad_reduce_bytes: float = P(
        4.0, "bytes/param", "FP32 gradient reduce-scatter (Megatron distributed optimizer with FP32 grad reduce)", gt=0)
    param_gather_bytes: float = P(2.0, "bytes/param", "BF16 parameter all-gather after the optimizer step", gt=0)
    intra_overlap: float = P(
        0.5, "fraction", "reason: about half of the in-node traffic hides behind compute (all-to-all of one "
        "micro-batch overlapped with another's compute)", ge=0, le=1)
    inter_overlap: float = P(
        0.5, "fraction", "reason: about half of the cross-node traffic hides behind compute (all-to-all overlap, "
        "gradient reduce during backward)", ge=0, le=1)
    # ---- checkpoints ----
    state_bytes_per_param: float = P(
        14.0, "bytes/param", "BF16 weights + FP32 master weights + FP32 Adam moments (2 + 4 + 4 + 4)", gt=0)
    ckpt_interval_s: float = P(
        3600.0, "s", "hourly; below the Young/Daly optimum sqrt(2 M C) ~ 1.9 h for M = 5.5 d (one unexpected "
        "interruption per 5.5 days on 384 accelerators, facts.md §4) and C ~ 47 s (this model's write time)", gt=0)
    storage_efficiency: float = P(
        0.5, "fraction", "reason: share of the node's 400 Gb/s Qingtian VPC path (fabric.vpc_gbits_s) a storage "
        "client sustains for large sequential I/O", gt=0, le=1)
    storage_aggregate_gbytes_s: float = P(
        200.0, "GB/s", "assumed aggregate throughput of the shared checkpoint file system; the bottleneck for a "
        "48-node job (9.4 TB in ~47 s)", gt=0)
    mem_ckpt_every_steps: int = P(
        1, "steps", "in-memory checkpoint every iteration, replicated to a peer node (Gemini, SOSP'23, facts.md §5)",
        ge=1)
    mem_ckpt_overlap: float = P(
        0.9, "fraction", "reason: the replica traffic is interleaved into idle network time (Gemini), so little of "
        "it shows in the step", ge=0, le=1)
    # ---- hangs, restart and online recovery ----
    hang_timeout_s: float = P(1800.0, "s", "a hung collective waits 30 min by default, facts.md §3", gt=0)
    op_retry_hold_s: float = P(
        5.0, "s", "HCCL operator retry HoldTime: from the detected failure of a collective to its first "
        "re-execution; CANN default 5000 ms (HCCL_OP_RETRY_PARAMS, range 0-60,000 ms)", ge=0, le=60)
    op_retry_interval_s: float = P(
        1.0, "s", "HCCL operator retry IntervalTime: between two re-executions of the same collective; CANN "
        "default 1000 ms (HCCL_OP_RETRY_PARAMS)", gt=0, le=60)
    op_retry_max_cnt: int = P(
        1, "re-executions", "HCCL operator retry MaxCnt: a collective whose path failed is re-executed at most this "
        "many times, then the error surfaces and the job goes down (the next rung: online recovery, process-level "
        "then job-level restart); CANN default 1, range 1-10 (HCCL_OP_RETRY_PARAMS, facts.md §8)", ge=1, le=10)
    scale_ref_npus: int = P(
        384, "NPUs", "reason: the job size at which the medians of the size-dependent stages below are quoted (one "
        "CloudMatrix384 pod)", ge=1)
    launch_s: Dist = D(
        90.0, 180.0, "s", "per node: process spawn, framework import, model build with a warm compile cache (reason; "
        "keeps a restart from memory within the < 10 min training restart of facts.md §1). Assumed p90 2 x median: "
        "start-up has a long tail from image loading and dependency installation (BootSeer, arXiv 2507.12619). The "
        "job starts when its slowest node is up: the maximum of one draw per node, so launch grows with the node "
        "count as BootSeer reports start-up overhead growing with job size")
    rank_table_s: Dist = D(
        5.0, 15.0, "s", "assumed: MindCluster writes the job's rank table (hccl.json: one entry per rank) once every "
        "pod is scheduled and each pod reads it from its mounted ConfigMap; the median at scale_ref_npus grows "
        "linearly with the rank count (rank_table_scale_exp)")
    rank_table_scale_exp: float = P(
        1.0, "exponent", "reason: the table has one entry per rank and is generated and distributed by one "
        "controller: linear in the rank count", ge=0, le=2)
    hccl_init_s: Dist = D(
        30.0, 60.0, "s", "reason: HCCL communicator and link set-up across the job's ranks at scale_ref_npus; "
        "assumed p90 2 x median. MindCluster: the time of every restart phase depends on parameter scale and "
        "cluster size (MindCluster resumable-training performance description, dl_resume_005); communication "
        "group set-up dominates restart downtime at 1,024 GPUs (TrainMover, arXiv 2412.12636)")
    hccl_init_scale_exp: float = P(
        0.5, "exponent", "assumed: each rank sets up links to its group peers (constant) behind a root-info exchange "
        "and barrier over all ranks; growth between a tree barrier's O(log N) and a flat broadcast's O(N); taken "
        "as sqrt(N), not fitted to any recovery figure", ge=0, le=2)
    rank_table_read_s: Dist = D(
        1.0, 3.0, "s", "process-level reschedule: MindCluster's process-level rescheduling needs the rank table "
        "mounted from shared storage, not a ConfigMap (MindCluster 7.3 scheduling guide, dl_resume_025; Ascend Operator "
        "writes hccl.json once to the shared directory, hccl.json file description): every pod re-reads one file in "
        "parallel, and the stage ends when the slowest of the job's pods has it (the maximum of one draw per node, so "
        "it grows with the node count through the tail). Assumed per-pod read median 1 s, p90 3 s (a small file from "
        "the shared file system; metadata-server queueing)")
    comm_reform_s: Dist = D(
        10.0, 20.0, "s", "process-level reschedule: the surviving ranks keep their HCCL links and only the replaced "
        "ranks' links are set up (delta-based communication group set-up: TrainMover, arXiv 2412.12636, ~20 s of "
        "total downtime at 1,024 GPUs; MindCluster: the new HCCL link set-up of process-level rescheduling "
        "'significantly shortens' link set-up, dl_resume_025), at scale_ref_npus. Assumed median 10 s (half of "
        "TrainMover's whole downtime), p90 2 x median")
    comm_reform_scale_exp: float = P(0.25, "exponent", REFORM_GROWTH, ge=0, le=2)
    warm_attach_s: Dist = D(
        30.0, 60.0, "s", "reason: bind a warm standby worker (container up, framework imported, devices checked) to "
        "the failed rank's slot in the rank table; warm standby recovers ~10x faster than requeueing (ByteRobust, "
        "facts.md §5); assumed p90 2 x median")
    replace_node_s: Dist = D(
        120.0, 300.0, "s", "reason: schedule the job's pod onto a spare node (image cached, health checked); assumed "
        "p90 2.5 x median (scheduler queueing, image not cached)")
    stop_step_s: Dist = D(
        5.0, 10.0, "s", "online recovery: stop the step (facts.md §3 HBM UCE online recovery); reason: seconds; "
        "assumed p90 2 x median")
    abort_tasks_s: Dist = D(10.0, 20.0, "s", "online recovery: abort device tasks (facts.md §3); assumed")
    memory_repair_s: Dist = D(
        10.0, 20.0, "s", "online recovery: check the damaged memory and isolate the address (facts.md §3); assumed")
    comm_resume_s: Dist = D(
        15.0, 30.0, "s", "online recovery: resume communication (re-establish links) at scale_ref_npus, growing with "
        "the rank count as hccl_init_s. Calibrated by hand (not fitted numerically): the four stage medians are "
        "chosen so that the online recovery's fast cases are near Huawei's 'process-level recovery as low as 30 s' "
        "(facts.md §1), read as a best case, not a median")
    repair_during_abort: bool = P(
        True, "flag", "reason: the damaged rank's address check reads only the driver's error record (address and "
        "row), so it runs while the ranks abort their device tasks: stop + max(abort, repair) + resume. false = the "
        "four stages one after another, as listed in facts.md §3")

    @model_validator(mode="after")
    def _consistent(self) -> TrainingParams:
        if self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b must be <= total_params_b")
        if self.routed_expert_params_b >= self.total_params_b:
            raise ValueError("routed_expert_params_b must be < total_params_b")
        if self.moe_layers > self.layers:
            raise ValueError("moe_layers must be <= layers")
        return self


JobState = Literal["new", "running", "checkpointing", "stalled", "down", "restarting", "recovering"]
_COMPUTE_KINDS = frozenset({"node", "npu", "die", "hbm"})
_EPS = 1e-9


def stage_s(sim: Simulation, p: TrainingParams, name: str, npus: int | None = None, exponent: float = 0.0) -> float:
    """One draw of the training stage ``name`` (a Dist field of ``p``), its median scaled to ``npus`` ranks."""
    scale = job_scale(npus, p.scale_ref_npus, exponent) if npus is not None else 1.0
    return sim.durations.draw(f"training.{name}", getattr(p, name), scale)


def online_recovery_stages_s(sim: Simulation, p: TrainingParams, npus: int) -> float:
    """Process-level online recovery without the state reload (facts.md §3): stop the step, abort device tasks
    and repair the memory (at once when ``repair_during_abort``), resume communication (growing with the ``npus``
    ranks as HCCL init). Inference instances run the same CANN recovery (``InferenceService.recover_in_place``)."""
    stop, abort, repair = (stage_s(sim, p, k) for k in ("stop_step_s", "abort_tasks_s", "memory_repair_s"))
    middle = max(abort, repair) if p.repair_during_abort else abort + repair
    return stop + middle + stage_s(sim, p, "comm_resume_s", npus, p.hccl_init_scale_exp)


def restart_stages_s(sim: Simulation, p: TrainingParams, ranks: int, nodes: int, scope: str, replaced: bool) -> float:
    """Drawn restart stages of a job of ``ranks`` ranks on ``nodes`` nodes, besides the checkpoint load. Job level:
    node replacement (if any), launch (the slowest of the job's nodes), rank-table distribution, HCCL init. Process
    level: a warm standby attaches to the failed ranks' slots, every pod re-reads the rank table from shared storage
    (the slowest pod ends the stage) and the communicator re-forms by delta (only the replaced ranks' links)."""
    if scope == "process":
        comm = stage_s(sim, p, "comm_reform_s", ranks, p.comm_reform_scale_exp)
        if not replaced:
            return comm
        table = sim.durations.draw_max("training.rank_table_read_s", p.rank_table_read_s, nodes)
        return stage_s(sim, p, "warm_attach_s") + table + comm
    table = stage_s(sim, p, "rank_table_s", ranks, p.rank_table_scale_exp)
    hccl = stage_s(sim, p, "hccl_init_s", ranks, p.hccl_init_scale_exp)
    launch = sim.durations.draw_max("training.launch_s", p.launch_s, nodes)
    return (stage_s(sim, p, "replace_node_s") if replaced else 0.0) + launch + table + hccl


class TrainingJob(Workload):
    """A synchronous LLM training job; see the module docstring for the model."""

    kind = "training"

    def __init__(self, name: str, nodes: list[str], params: TrainingParams | None = None) -> None:
        if not nodes or len(set(nodes)) != len(nodes):
            raise ValueError(f"training job {name!r}: nodes must be a non-empty list without duplicates")
        super().__init__(name, nodes)
        self._given = params
        self.p = params or TrainingParams()
        self.state: JobState = "new"
        self._watched_cache: dict[str, list[tuple[str, str]]] = {}
        self._published: dict[str, float] = {}  # last rank_step_time_s written per NPU
        self.last_restart: dict[str, Any] | None = None  # the checkpoint the last restart loaded (journal detail)
        self.nominal_rates: list[tuple[float, float]] = []  # (since t, fault-free steps/s of the placement then)

    # ---- set-up -------------------------------------------------------------------------------
    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self.p = self._given or sim.params.training
        self._t0 = self._t_last = sim.now
        self._pos = self._hw = self._processed = 0.0
        self._useful_s = self._redone_s = self._running_s = 0.0
        self._stalled_s = self._down_s = self._ckpt_s = self._slow_loss_s = 0.0
        self._rate = 0.0
        self._step_s = 0.0
        self._times: list[float] = []
        self._rates: list[float] = []
        self._hangs: dict[str, str] = {}
        self._dead: dict[str, str] = {}  # job device / node out of service now -> its health
        self._lost: dict[str, str] = {}  # devices whose ranks died while the processes ran (until restart)
        self._slow: dict[str, float] = {}
        self._nodes_lost: set[str] = set()  # job nodes whose host memory was lost since the last (re)start
        self._run_base = 0  # step the current processes started from
        self._last_persistent = 0
        self._ckpt_pending = False
        self._gen = {"stall": 0, "resume": 0, "boundary": 0, "write": 0, "op": 0, "ckpt": 0}
        self._resume_pending = False
        self._timer_expired = False
        self._stall_t = 0.0
        self._stall_frac = 0.0
        self._counts = {"crashes": 0, "timeouts": 0, "restarts": 0, "in_place_recoveries": 0,
                        "persistent_ckpts": 0, "stalls": 0, "scale_ins": 0, "scale_outs": 0}
        self._launch_nodes = len(self.nodes)
        self._launch_nominal_s = 0.0  # set by the first placement
        self._degraded_since: float | None = None  # placed on fewer nodes than launched since then
        self._degraded_s = self._degraded_loss_s = 0.0
        self._place(self.nodes)
        self._enter_running("started", nodes=len(self.nodes), npus=len(self.ranks))
        self._schedule_ckpt()

    def _place(self, nodes: list[str]) -> None:
        """(Re)derive ranks, the per-step traffic and the dead-component set for a placement."""
        topo = self._sim.topology
        self.nodes = list(nodes)
        self._node_set = set(nodes)
        self.ranks = [n for nd in nodes for n in topo.npus_of(nd)]
        self._rank_of = {npu: r for r, npu in enumerate(self.ranks)}
        self._intra_b, self._inter_b = self._traffic()
        self._rdma_b = self._pod_traffic()
        self._inter_b = max(0.0, self._inter_b - self._rdma_b)  # the cross-pod share rides RDMA, not UB
        self._shard_b = self.p.total_params_b * 1e9 * self.p.state_bytes_per_param / len(self.ranks)
        healthy_coll = 1 - self._sim.params.fabric.inter_node_overhead if len(nodes) > 1 else 1.0
        self._nominal_s = self._compute_s() + self._overhead_s(1.0, healthy_coll)
        self.nominal_rates.append((self._sim.now, 1.0 / self._nominal_s))
        if not self._launch_nominal_s:
            self._launch_nominal_s = self._nominal_s
        if len(nodes) >= self._launch_nodes:
            self._degraded_since = None
        elif self._degraded_since is None:  # scaled in: fewer data-parallel replicas from now on
            self._degraded_since = self._sim.now
        self._slow = {k: v for k, v in self._slow.items() if k in self._rank_of}
        self._nodes_lost &= self._node_set
        self._dead = {}
        self._roce_down: set[str] = set()
        self._fabric_changed(None)
        down = {n for c, h in self._sim.state.unhealthy().items() if h not in UP and (n := ids.node_of(c))}
        for nd in (n for n in nodes if n in down):  # only nodes with a part out of service (cost: those)
            for cid, kind in self._watched(nd):
                if not self._sim.state.is_up(cid):
                    if kind == "roce":
                        self._roce_down.add(cid)
                    else:
                        self._dead[cid] = str(self._sim.state.health(cid))

    def _watched(self, node: str) -> list[tuple[str, str]]:
        """The node's components whose health matters to a rank (compute parts, RoCE ports), cached per node."""
        cache = self._watched_cache
        if node not in cache:
            topo = self._sim.topology
            cache[node] = [(c, topo.kind[c]) for c in [node, *topo.descendants(node)]
                           if topo.kind.get(c) in _COMPUTE_KINDS or topo.kind.get(c) == "roce"]
        return cache[node]

    @property
    def _sim(self) -> Simulation:
        if self.sim is None:
            raise RuntimeError(f"training job {self.name!r} is not attached to a simulation")
        return self.sim

    # ---- physics ------------------------------------------------------------------------------
    def _traffic(self) -> tuple[float, float]:
        """Bytes one NPU sends per step: (inside its node, across nodes)."""
        p, g, nn = self.p, self._sim.topology.params.npus_per_node, len(self.nodes)
        n = nn * g
        tp = min(p.tensor_parallel, g)
        pp = min(p.pipeline_parallel, nn)
        dp = n / (tp * pp)
        ep = max(1.0, min(float(p.expert_parallel), dp))
        tok_replica = p.global_batch_seqs * p.seq_len / dp
        tok_rank = tok_replica / tp
        tp_b = (p.layers / pp) * tok_replica * p.hidden * p.act_bytes * p.tp_collectives_per_layer * (tp - 1) / tp
        ep_b = ((p.moe_layers / pp) * tok_rank * p.experts_per_token * p.hidden
                * (p.dispatch_bytes + 3 * p.combine_bytes) * (ep - 1) / ep)
        ranks_per_node = g / tp
        nodes_per_stage = nn / pp
        ep_off = 0.0 if nodes_per_stage <= 1 or ep <= ranks_per_node else 1 - (ranks_per_node - 1) / (ep - 1)
        dense = (p.total_params_b - p.routed_expert_params_b) * 1e9 / (tp * pp)
        expert = p.routed_expert_params_b * 1e9 / (tp * pp * ep)
        edp = dp / ep
        dp_b = (p.grad_reduce_bytes + p.param_gather_bytes) * (dense * (dp - 1) / dp + expert * (edp - 1) / edp)
        pp_b = 2 * tok_rank * p.hidden * p.act_bytes if pp > 1 else 0.0
        dp_across = nodes_per_stage > 1
        intra = tp_b + ep_b * (1 - ep_off) + (0.0 if dp_across else dp_b)
        inter = ep_b * ep_off + (dp_b if dp_across else 0.0) + pp_b
        return intra, inter

    def _pod_traffic(self) -> float:
        """Bytes one NPU sends per step to other pods, over the RDMA plane (0 for a job inside one pod).

        Layout assumed for a job spanning k pods: each pod holds whole pipeline replicas (TP, PP and EP stay on
        the pod's UB plane); only data-parallel groups span pods. Their reduce is hierarchical (inside the pod
        over UB, then between pods over RDMA on the pod-reduced shard): a DP group of m replicas, m/k per pod,
        sends shard x (k-1)/m per NPU between pods; a group with fewer replicas than pods (m < k: one replica
        per pod) sends shard x (m-1)/m. The rest of the DP bytes stay in ``_traffic``'s UB share. A job with at
        most one node per pipeline stage keeps its DP traffic inside nodes (no RDMA term: simplification).
        """
        k = len({ids.pod_of(n) for n in self.nodes})
        p, g, nn = self.p, self._sim.topology.params.npus_per_node, len(self.nodes)
        tp, pp = min(p.tensor_parallel, g), min(p.pipeline_parallel, nn)
        if k < 2 or nn / pp <= 1:
            return 0.0
        dp = nn * g / (tp * pp)
        ep = max(1.0, min(float(p.expert_parallel), dp))
        dense = (p.total_params_b - p.routed_expert_params_b) * 1e9 / (tp * pp)
        expert = p.routed_expert_params_b * 1e9 / (tp * pp * ep)

        def cross(shard: float, m: float) -> float:
            return shard * (min(k, m) - 1) / max(m, min(k, m)) if m > 1 else 0.0

        return (p.grad_reduce_bytes + p.param_gather_bytes) * (cross(dense, dp) + cross(expert, dp / ep))

    def _rdma_factor(self) -> float:
        """Usable share of the per-NPU RDMA bandwidth: an NPU with some die ports down sends over the rest (bonded
        ports run at reduced bandwidth, facts.md §2); the slowest NPU sets the pace; 0 = an NPU has none left."""
        if not self._rdma_b or not self._roce_down:
            return 1.0
        dies = self._sim.topology.params.dies_per_npu
        down: dict[str | None, int] = {}
        for port in self._roce_down:
            down[ids.npu_of(port)] = down.get(ids.npu_of(port), 0) + 1
        return max(0.0, min((dies - k) / dies for k in down.values()))

    def _compute_s(self) -> float:
        p = self.p
        flops = p.flops_per_param_token * p.active_params_b * 1e9 * p.global_batch_seqs * p.seq_len
        return flops / (len(self.ranks) * p.peak_tflops * 1e12 * p.compute_efficiency)

    def _overhead_s(self, intra_f: float, coll_f: float, rdma_f: float = 1.0) -> float:
        """Exposed communication + in-memory checkpoint time per step at the given fabric factors (> 0)."""
        p = self.p
        bw = self._sim.params.fabric.npu_ub_gbytes_s * 1e9
        comm = (1 - p.intra_overlap) * self._intra_b / (bw * intra_f)
        if self._inter_b:
            comm += (1 - p.inter_overlap) * self._inter_b / (bw * coll_f)
        if self._rdma_b:  # per NPU: one RoCE port per die (fabric.rdma_port_gbits_s each)
            rdma = self._sim.params.fabric.rdma_port_gbits_s / 8 * 1e9 * self._sim.topology.params.dies_per_npu
            comm += (1 - p.inter_overlap) * self._rdma_b / (rdma * rdma_f)
        peer_f = coll_f if len(self.nodes) > 1 else intra_f
        mem = self._shard_b / (bw * peer_f) * (1 - p.mem_ckpt_overlap) / p.mem_ckpt_every_steps
        return comm + mem

    def _factors(self) -> tuple[float, float]:
        """(intra-node factor, collective factor) of the job: ``fabric.collective_factor`` over its nodes, kept
        per node as nodes change (only degraded nodes are held), so a change costs one node, not the job's size."""
        intra = min((f[0] for f in self._degraded.values()), default=1.0)
        if len(self.nodes) == 1:
            return intra, intra
        inter = min((f[1] for f in self._degraded.values()), default=1.0)
        return intra, min(intra, inter * (1 - self._sim.params.fabric.inter_node_overhead))

    def _fabric_changed(self, node: str | None) -> None:
        """Re-read the fabric factors of ``node`` (None: of every job node, after a pod- or cluster-wide change)."""
        if node is None:
            self._degraded: dict[str, tuple[float, float]] = {}
        fab = self._sim.fabric
        for n in self.nodes if node is None else [node]:
            f = (fab.intra_node_factor(n), fab.inter_node_factor(n))
            if f == (1.0, 1.0):
                self._degraded.pop(n, None)
            else:
                self._degraded[n] = f

    def _assess(self) -> tuple[tuple[str, str, int] | None, float, float]:
        """(stall cause (kind, component, blamed rank) or None, step time, per-rank overhead)."""
        for lost in (self._lost, self._dead):
            if lost:
                cid = next(iter(lost))
                return ("dead", cid, self._rank_for(cid)), math.inf, math.inf
        if self._hangs:
            cid = next(iter(self._hangs))
            return ("hang", cid, self._rank_for(cid)), math.inf, math.inf
        intra, coll = self._factors()
        if intra <= 0 or coll <= 0:
            multi = len(self.nodes) > 1
            zero = {n for n, f in self._degraded.items() if f[0] <= 0 or (multi and f[1] <= 0)}
            bad = next((n for n in self.nodes if n in zero), self.nodes[0])
            return ("path", bad, self._rank_for(bad)), math.inf, math.inf
        rdma_f = self._rdma_factor()
        if rdma_f <= 0:
            port = min(self._roce_down)
            return ("path", port, self._rank_for(port)), math.inf, math.inf
        over = self._overhead_s(intra, coll, rdma_f)
        slow = max(self._slow.values(), default=1.0)
        return None, self._compute_s() * slow + over, over

    def _rank_for(self, component: str) -> int:
        npu = ids.npu_of(component)
        if npu in self._rank_of:
            return self._rank_of[npu]
        nd = ids.node_of(component)
        return self.nodes.index(nd) * (len(self.ranks) // len(self.nodes)) if nd in self._node_set else 0

    def _storage_gbytes_s(self) -> float:
        per_node = self._sim.params.fabric.vpc_gbits_s / 8 * self.p.storage_efficiency
        return min(len(self.nodes) * per_node, self.p.storage_aggregate_gbytes_s)

    def _ckpt_bytes(self) -> float:
        return self.p.total_params_b * 1e9 * self.p.state_bytes_per_param

    def _storage_ok(self) -> bool:
        st = self._sim.state
        return all(st.is_up(f"{n}/qingtian") for n in self.nodes)

    # ---- bookkeeping --------------------------------------------------------------------------
    def _advance(self) -> None:
        """Account the time since the last update in the current state."""
        now = self._sim.now
        dt = now - self._t_last
        if dt <= 0:
            return
        if self.state == "running":
            steps = self._rate * dt
            redo_t = min(dt, max(0.0, self._hw - self._pos) / self._rate) if self._rate > 0 else 0.0
            self._redone_s += redo_t
            self._useful_s += dt - redo_t
            self._running_s += dt
            self._slow_loss_s += max(0.0, dt - steps * self._nominal_s)
            if self._degraded_since is not None:  # running scaled in: the launch placement's throughput lost
                self._degraded_s += dt
                self._degraded_loss_s += dt * max(0.0, 1.0 - self._launch_nominal_s / self._nominal_s)
            self._processed += steps
            self._pos += steps
            if abs(self._pos - round(self._pos)) < 1e-7:
                self._pos = float(round(self._pos))
            self._hw = max(self._hw, self._pos)
        elif self.state == "stalled":
            self._stalled_s += dt
        elif self.state == "checkpointing":
            self._ckpt_s += dt
        else:
            self._down_s += dt
        self._t_last = now

    def _set(self, state: JobState, rate: float) -> None:
        """Move to ``state`` at ``rate`` steps/s (caller has advanced); record the rate and the metrics."""
        sim = self._sim
        old = self.state
        self.state = state
        self._rate = rate
        if not self._rates or self._rates[-1] != rate:
            if self._times and self._times[-1] == sim.now:
                self._rates[-1] = rate
            else:
                self._times.append(sim.now)
                self._rates.append(rate)
        tel = sim.telemetry
        tel.metric("train_steps_per_s", self.name, rate)
        if state == "running":
            tel.metric("step_time_s", self.name, self._step_s)
        elif state == "stalled":
            frac = self._stall_frac if old == "running" else 0.0
            tel.metric("step_time_s", self.name, frac * self._step_s, slope=1.0)
        elif state != "checkpointing":
            tel.metric("step_time_s", self.name, 0.0)
        if old != state and state != "checkpointing" and old != "checkpointing":
            sim.trace.record(sim.now, "job", self.name, state=state, step=round(self._pos, 6))

    def _event(self, kind: str, **detail: Any) -> None:
        self._sim.telemetry.job_event(self.name, kind, step=int(self._pos + _EPS), **detail)

    def _log(self, node: str, level: str, text: str) -> None:
        ts = self._sim.wallclock().strftime("%Y-%m-%d %H:%M:%S")
        self._sim.telemetry.log(node, "train", level, f"[{ts}] {text}")

    def _publish_ranks(self, over: float) -> None:
        """Per-rank step time for every rank (a slowed rank's is longer; the series exist for all ranks)."""
        tel = self._sim.telemetry
        base = self._compute_s()
        last = self._published
        for npu in self.ranks:
            v = base * self._slow.get(npu, 1.0) + over
            if last.get(npu) != v:  # an unchanged constant series needs no new segment
                tel.metric("rank_step_time_s", npu, v)
                last[npu] = v

    def _bump(self, *names: str) -> None:
        for n in names:
            self._gen[n] += 1

    def _after(self, delay: float, fn: Any, *args: Any) -> None:
        """Call ``fn(*args)`` after ``delay`` simulated seconds (one simpy event; stale calls check a generation)."""
        ev = self._sim.env.timeout(max(0.0, delay))
        ev.callbacks.append(lambda _ev: fn(*args))

    # ---- state machine ------------------------------------------------------------------------
    def _enter_running(self, event: str | None, **detail: Any) -> None:
        """Run again (or stall at once if a cause is present)."""
        self._advance()
        cause, step_s, over = self._assess()
        if cause is not None:
            self._step_s = self._step_s or self._nominal_s
            self._begin_stall(cause, announce=False)
            if event:
                self._event(event, **detail)
            self._event("stalled")
            return
        self._step_s = step_s
        self._set("running", 1.0 / step_s)
        if self._ckpt_pending:
            self._schedule_boundary()
        self._publish_ranks(over)
        if event:
            self._event(event, step_time_s=round(step_s, 6), **detail)

    def _begin_stall(self, cause: tuple[str, str, int], announce: bool) -> None:
        """Collectives stop: arm the hang timer. The step's finished compute is kept: an HCCL operator retry
        re-executes only the collective in flight (at the first re-execution instant after the cause clears,
        :meth:`_next_attempt_s`); a timeout and restart instead go back to a checkpoint."""
        self._advance()
        self._stall_frac = self._pos - math.floor(self._pos + _EPS) if self.state == "running" else 0.0
        self._bump("stall", "resume", "boundary")
        self._resume_pending = False
        self._timer_expired = False
        self._stall_t = self._sim.now
        self._counts["stalls"] += 1
        self._set("stalled", 0.0)
        g = self._gen["stall"]
        self._after(self.p.hang_timeout_s, self._on_hang_timer, g)
        self._resume_pending = True  # the first re-execution is tried whatever the path's state then
        self._retries = 0  # re-executions that found the path still dead (MaxCnt bounds them)
        self._after(self.p.op_retry_hold_s, self._on_resume, self._gen["resume"])
        self._after(self._sim.params.faults.peer_timeout_report_s, self._on_peer_report, g)
        if announce:
            self._event("stalled")

    def _on_peer_report(self, g: int) -> None:
        """Peers of a stall report their notify-wait timeout in their plog, naming the node they wait for: the
        same lines for every cause (a hung or dead rank, a dead path), as HCCL does not know the cause."""
        if g != self._gen["stall"] or self.state != "stalled":
            return
        cause = self._assess()[0]
        if cause is None:
            return
        waited = ids.node_of(cause[1]) or self.nodes[0]
        report_peer_waits(self._sim, [n for n in self.nodes if n != waited], waited)

    def _next_attempt_s(self) -> float:
        """Delay to the next HCCL re-execution instant: ``stall + hold + k * interval``, the first not in the past."""
        p, now = self.p, self._sim.now
        first = self._stall_t + p.op_retry_hold_s
        if now <= first:
            return first - now
        k = math.ceil((now - first) / p.op_retry_interval_s - _EPS)
        return max(0.0, first + k * p.op_retry_interval_s - now)

    def _on_hang_timer(self, g: int) -> None:
        if g != self._gen["stall"] or self.state != "stalled":
            return
        cause = self._assess()[0]
        if cause is None:
            self._timer_expired = True  # the retry is already under way
            return
        self._timeout(cause)

    def _timeout(self, cause: tuple[str, str, int]) -> None:
        self._advance()
        self._counts["timeouts"] += 1
        _kind, cid, remote = cause
        culprit = ids.node_of(cid) or self.nodes[0]
        reporter = next((n for n in self.nodes if n != culprit), culprit)
        r = self.nodes.index(reporter) * (len(self.ranks) // len(self.nodes))
        if r == remote and len(self.ranks) > 1:
            r = (remote + 1) % len(self.ranks)
        waited = self._sim.now - self._stall_t
        self._go_down()
        self._log(reporter, "ERROR", f"[rank{r}]: RuntimeError: " + fmt.hccl_message(
            "EI0002", remote=remote, base=f"streamID:3, taskID:50, taskType:Notify Wait, rank:{r}",
            task="notify wait", group=f"rankSize:{len(self.ranks)}"))
        self._event("timeout", waited_s=round(waited, 6), rank=r)

    def _retries_exhausted(self, cause: tuple[str, str, int]) -> None:
        """MaxCnt re-executions found the path dead: the collective's error surfaces and the processes exit (the
        job is down until online recovery or a restart brings it back)."""
        self._advance()
        _kind, cid, remote = cause
        culprit = ids.node_of(cid) or self.nodes[0]
        reporter = next((n for n in self.nodes if n != culprit), culprit)
        r = self.nodes.index(reporter) * (len(self.ranks) // len(self.nodes))
        self._counts["crashes"] += 1
        self._go_down()
        dev = self._sim.topology.npus_of(reporter)[0]
        self._log(reporter, "ERROR", f"[rank{r}]: RuntimeError: " + fmt.hccl_message(
            "EI0006", reason=f"This node (server {fmt.host_ip(reporter)}, device ID {fmt.device_index(dev)}) "
            f"detects that srcRank ({r}) fails to connect to dstRank ({remote})"))
        self._event("crash", rank=r, node=reporter)

    def _go_down(self) -> None:
        self._advance()
        if self.state == "checkpointing":
            self._ckpt_pending = True  # the aborted write is retried once the job runs again
        self._bump("stall", "resume", "boundary", "write", "op")
        self._resume_pending = False
        self._set("down", 0.0)

    def _refresh(self) -> None:
        """Re-derive rate / stall after a plant or job change."""
        if self.state not in ("running", "stalled"):
            return
        self._advance()
        cause, step_s, over = self._assess()
        if self.state == "running":
            if cause is not None:
                self._begin_stall(cause, announce=True)
                return
            if abs(step_s - self._step_s) > 1e-12:
                self._step_s = step_s
                self._set("running", 1.0 / step_s)
                if self._ckpt_pending:
                    self._schedule_boundary()
            self._publish_ranks(over)
            return
        # stalled
        if cause is None and not self._resume_pending:
            self._resume_pending = True
            self._bump("resume")
            self._after(self._next_attempt_s(), self._on_resume, self._gen["resume"])

    def _on_resume(self, g: int) -> None:
        """An HCCL re-execution: it completes if the path is alive now, else the collective waits for the next one
        (scheduled when the cause clears) or the hang timeout."""
        if g != self._gen["resume"] or self.state != "stalled":
            return
        self._resume_pending = False
        cause = self._assess()[0]
        if cause is not None:
            if self._timer_expired:
                self._timeout(cause)
            elif cause[0] == "path":  # a failed link: the re-execution fails too and counts against MaxCnt
                self._retries += 1
                if self._retries >= self.p.op_retry_max_cnt:
                    self._retries_exhausted(cause)
                else:
                    self._resume_pending = True
                    self._bump("resume")
                    self._after(self.p.op_retry_interval_s, self._on_resume, self._gen["resume"])
            return
        self._bump("stall")
        self._enter_running("resumed", after="retry", stalled_s=round(self._sim.now - self._stall_t, 6))

    # ---- checkpoints --------------------------------------------------------------------------
    def _schedule_ckpt(self) -> None:
        self._bump("ckpt")
        self._after(self.p.ckpt_interval_s, self._on_ckpt_timer, self._gen["ckpt"])

    def _on_ckpt_timer(self, g: int) -> None:
        if g != self._gen["ckpt"]:
            return
        self._ckpt_pending = True
        if self.state == "running":
            self._schedule_boundary()

    def _schedule_boundary(self) -> None:
        """A checkpoint is taken at the next step boundary."""
        self._advance()
        self._bump("boundary")
        wait = (math.ceil(self._pos - _EPS) - self._pos) * self._step_s
        self._after(wait, self._on_boundary, self._gen["boundary"])

    def _on_boundary(self, g: int) -> None:
        if g != self._gen["boundary"] or self.state != "running" or not self._ckpt_pending:
            return
        self._advance()
        if abs(self._pos - round(self._pos)) > 1e-6:
            self._schedule_boundary()
            return
        self._pos = float(round(self._pos))
        self._ckpt_pending = False
        if not self._storage_ok():
            self._schedule_ckpt()
            self._log(self.nodes[0], "ERROR", "[rank0]: OSError: [Errno 5] Input/output error")
            self._event("checkpoint_failed", source="persistent")
            return
        write_s = self._ckpt_bytes() / (self._storage_gbytes_s() * 1e9)
        self._bump("write")
        self._set("checkpointing", 0.0)
        self._sim.trace.record(self._sim.now, "job_checkpoint_start", self.name, step=int(self._pos))
        self._after(write_s, self._on_written, self._gen["write"], int(self._pos), write_s)

    def _on_written(self, g: int, step: int, write_s: float) -> None:
        if g != self._gen["write"] or self.state != "checkpointing":
            return
        self._advance()
        self._last_persistent = step
        self._counts["persistent_ckpts"] += 1
        sim = self._sim
        sim.trace.record(sim.now, "job_checkpoint", self.name, step=step, write_s=round(write_s, 6))
        self._schedule_ckpt()
        self._enter_running(None)
        sim.telemetry.job_event(self.name, "checkpoint", step=step, source="persistent", write_s=round(write_s, 6))

    def _memory_ok(self) -> bool:
        """Each node's shard is replicated on the next node of the job: lost only if both lost host memory."""
        n, lost = len(self.nodes), self._nodes_lost
        return not any(self.nodes[i] in lost and self.nodes[(i + 1) % n] in lost for i in range(n))

    @property
    def last_persistent_step(self) -> int:
        return self._last_persistent

    def current_step(self) -> int:
        """The step in flight (its number as the training log prints it: steps done + 1)."""
        if self.state in ("new",):
            return 0
        self._advance()
        return int(math.floor(self._pos + _EPS)) + 1

    @property
    def last_memory_step(self) -> int:
        """Step of the newest in-memory checkpoint (every ``mem_ckpt_every_steps`` since the processes started)."""
        if self.state in ("new",):
            return 0
        self._advance()
        k = self.p.mem_ckpt_every_steps
        return max(self._run_base, int(math.floor(self._pos + _EPS)) // k * k)

    # ---- plant and fault inputs ---------------------------------------------------------------
    def on_plant_change(self, component: str, old: str, new: str) -> None:
        if self.state == "new":
            return
        nd = ids.node_of(component)
        if nd is not None and nd not in self._node_set:
            return
        kind = self._sim.topology.kind.get(component)
        if kind in _COMPUTE_KINDS:
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

    def _write_failed(self, node: str) -> None:
        """The storage path of a writing node went away mid-write (its Qingtian card carries the VPC plane and the
        storage client): the write fails with the I/O error the storage client returns and is retried after the
        next interval; training goes on from the in-memory copy."""
        self._advance()
        self._bump("write")
        self._log(node, "ERROR", "[rank0]: OSError: [Errno 5] Input/output error")
        self._event("checkpoint_failed", source="persistent", node=node)
        self._schedule_ckpt()
        self._enter_running(None)

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

    # ---- control actions ----------------------------------------------------------------------
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
        or the persistent checkpoint over the storage path); work since that checkpoint is redone. If every
        node of an adjacent replica pair lost its host memory, the in-memory checkpoint is gone and the restart
        falls back to the persistent one. The process's value is True once the job runs again.

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
        sim, p = self._sim, self.p
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
        step = min(step, int(math.floor(self._pos + _EPS)))
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
            load_s = self._ckpt_bytes() / (self._storage_gbytes_s() * 1e9)
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
        self._pos = float(math.floor(self._pos + _EPS))
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

    # ---- read-outs ----------------------------------------------------------------------------
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
        lost_s = self._down_s + self._stalled_s + self._redone_s
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
