"""Training job parameters (model, parallel layout, communication, checkpoints, hangs and recovery) and the
drawn durations of the job's restart and online-recovery stages (also used by the inference service, the
day/night switch and the benchmarks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import model_validator

from faultlib.durations import D, Dist, job_scale
from faultlib.params import P
from faultlib.workloads.op_retry import OpRetryParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation

DSV3 = "DeepSeek-V3 technical report (arXiv 2412.19437)"
MODEL_WHY = (", a DeepSeek-V3-class MoE: the model family CloudMatrix384 serves (facts.md §2) and whose expert "
             "all-to-all loads the UB fabric across nodes")


SLOWEST_RANK = (
    "Every rank runs it and MindIO's controller waits for all: the stage is the slowest of the job's ranks "
    "(Durations.draw_slowest); the median is the stage's at scale_ref_npus ranks, the p90 one rank's spread")

REFORM_GROWTH = (
    "assumed: the replaced ranks' links go to a fixed set of TP/EP/PP/DP peers (constant in the job size) behind one "
    "job-wide barrier; taken as (ranks / scale_ref_npus) ** 0.25, between a tree barrier's log N and the full set-up's "
    "sqrt(N) (hccl_init_scale_exp); not fitted to any recovery figure")


class TrainingParams(OpRetryParams):
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
    storage_io_factor: Dist = D(
        1.0, 1.5, "x model time", "reason: a persistent checkpoint write or read takes the storage model's time "
        "(checkpoint bytes / min(nodes x per-node share, aggregate)) times one draw of this factor, since the file "
        "system is shared with other jobs and the same write takes longer at busy times (checkpoint save and load "
        "'often incur minute-level stalls', ByteCheckpoint, arXiv 2407.20143, facts.md). No published spread for "
        "this path: median 1 (the model's time), assumed p90 1.5 x it")
    mem_ckpt_every_steps: int = P(
        1, "steps", "in-memory checkpoint every iteration, replicated to a peer node (Gemini, SOSP'23, facts.md §5)",
        ge=1)
    mem_ckpt_peer: Literal["half", "next"] = P(
        "half", "placement", "where a node's in-memory checkpoint shard is replicated. half: on the node half the job "
        "away, as Huawei's MindIO TTP replica optimizer places it (MindSpeed-LLM docs/pytorch/features/"
        "high_availability.md; tft_replica_group.py: each data-parallel group split into REPLICA_NUM = 2 contiguous "
        "halves, each holding the whole optimizer state, so a shard's copy sits at the same place in the other "
        "half); the twin's TP x PP is one node, so the data-parallel index is the node's place in the job and the "
        "peer is n // 2 places on (a ring when a scale-in leaves an odd count: reasoned). In node order that is "
        "another rack (topology.nodes_per_compute_rack) once the job spans 8 nodes, so one rack's loss leaves a copy "
        "of every shard; NVIDIA's resiliency-ext local checkpoints likewise set the replication jump to the failure "
        "blast radius (CliqueReplicationStrategy). UB bandwidth is the same between any two nodes of a pod "
        "(fabric.inter_node_overhead), so the distance costs no step time. next: the next node of the job, as "
        "DLRover's flash checkpoint backs up within groups of consecutive node ranks (ShardCkptReplicaManager): two "
        "adjacent nodes of one rack lose both copies (the twin's placement before session 31)")
    mem_ckpt_overlap: float = P(
        0.9, "fraction", "reason: the replica traffic is interleaved into idle network time (Gemini), so little of "
        "it shows in the step", ge=0, le=1)
    # ---- hangs, restart and online recovery ----
    hang_timeout_s: float = P(1800.0, "s", "a hung collective waits 30 min by default, facts.md §3", gt=0)
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
        "mounted from shared storage, not a ConfigMap (MindCluster 7.3 scheduling guide, dl_resume_025; Ascend "
        "Operator writes hccl.json once to the shared directory, hccl.json file description): every pod re-reads one "
        "file in "
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
        "assumed p90 2 x median. " + SLOWEST_RANK)
    abort_tasks_s: Dist = D(
        10.0, 20.0, "s", "online recovery: abort device tasks (facts.md §3); assumed. " + SLOWEST_RANK)
    memory_repair_s: Dist = D(
        10.0, 20.0, "s", "online recovery: check the damaged memory and isolate the address (facts.md §3); assumed. "
        "One draw: only the faulty device repairs")
    rollback_s: Dist = D(
        5.0, 10.0, "s", "online recovery, training: every rank rolls its training state back to the end of the last "
        "step (MindCluster process-level online recovery, dl_resume_026) in MindIO's rollback action, which resets "
        "the data set and the like (MindIO TFT API, tft_register_rollback_handler; the action fails past "
        "TTP_NORMAL_ACTION_TIME_LIMIT, 180 s by default); no published duration: seconds assumed, as stop_step_s. "
        + SLOWEST_RANK)
    comm_resume_s: Dist = D(
        15.0, 30.0, "s", "online recovery: resume communication (re-establish links) at scale_ref_npus, growing with "
        "the rank count as hccl_init_s. Calibrated by hand (not fitted numerically): the four stage medians are "
        "chosen so that the online recovery's fast cases are near Huawei's 'process-level recovery as low as 30 s' "
        "(facts.md §1), read as a best case, not a median; the rollback stage (rollback_s, session 12) was added "
        "later and nothing was re-fitted")
    repair_during_abort: bool = P(
        True, "flag", "reason: the damaged rank's address check reads only the driver's error record (address and "
        "row), so it runs while the ranks abort their device tasks: stop + max(abort, repair) + resume + rollback. "
        "false = the stages one after another, as listed in facts.md §3")

    @model_validator(mode="after")
    def _consistent(self) -> TrainingParams:
        if self.active_params_b > self.total_params_b:
            raise ValueError("active_params_b must be <= total_params_b")
        if self.routed_expert_params_b >= self.total_params_b:
            raise ValueError("routed_expert_params_b must be < total_params_b")
        if self.moe_layers > self.layers:
            raise ValueError("moe_layers must be <= layers")
        return self



def stage_s(sim: Simulation, p: TrainingParams, name: str, npus: int | None = None, exponent: float = 0.0) -> float:
    """One draw of the training stage ``name`` (a Dist field of ``p``), its median scaled to ``npus`` ranks."""
    scale = job_scale(npus, p.scale_ref_npus, exponent) if npus is not None else 1.0
    return sim.durations.draw(f"training.{name}", getattr(p, name), scale)


def storage_io_s(sim: Simulation, p: TrainingParams, nodes: int, what: Literal["write", "read"]) -> float:
    """Seconds to write (or read) a job's whole persistent checkpoint over the storage paths of ``nodes`` nodes:
    the storage model's time (each node's share of its VPC path, bounded by the file system's aggregate
    throughput) times one draw of ``storage_io_factor`` from the stream ``training.checkpoint_<what>``."""
    per_node = sim.params.fabric.vpc_gbits_s / 8 * p.storage_efficiency
    rate_gbytes_s = min(max(1, nodes) * per_node, p.storage_aggregate_gbytes_s)
    model_s = p.total_params_b * p.state_bytes_per_param / rate_gbytes_s
    return sim.durations.draw(f"training.checkpoint_{what}", p.storage_io_factor, model_s)


def slowest_rank_s(sim: Simulation, p: TrainingParams, name: str, npus: int) -> float:
    """One draw of the stage ``name`` that every one of ``npus`` ranks runs, ending with the slowest."""
    return sim.durations.draw_slowest(f"training.{name}", getattr(p, name), npus, p.scale_ref_npus)


def online_recovery_stages(sim: Simulation, p: TrainingParams, npus: int, rollback: bool = True
                           ) -> dict[str, float]:
    """The drawn stages of a process-level online recovery of ``npus`` ranks, without the state reload (facts.md
    §3; MindCluster dl_resume_026): stop the step and abort device tasks on every rank (the slowest ends each),
    repair the faulty device's memory (during the abort when ``repair_during_abort``), resume communication
    (growing with the ranks as HCCL init) and, for training (``rollback``), roll every rank back to the step."""
    stop = slowest_rank_s(sim, p, "stop_step_s", npus)
    abort = slowest_rank_s(sim, p, "abort_tasks_s", npus)
    repair = stage_s(sim, p, "memory_repair_s")
    stages = {"stop_step": stop,
              "abort_or_repair": max(abort, repair) if p.repair_during_abort else abort + repair,
              "comm_resume": stage_s(sim, p, "comm_resume_s", npus, p.hccl_init_scale_exp)}
    if rollback:
        stages["rollback"] = slowest_rank_s(sim, p, "rollback_s", npus)
    return stages


def online_recovery_stages_s(sim: Simulation, p: TrainingParams, npus: int, rollback: bool = True) -> float:
    """The total of :func:`online_recovery_stages`. Inference instances run the same CANN recovery without the
    training state's rollback (``InferenceService.recover_in_place``, ``rollback=False``)."""
    return sum(online_recovery_stages(sim, p, npus, rollback).values())


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
