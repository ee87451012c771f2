"""The inference service: DeepSeek-R1 served disaggregated on CloudMatrix384 (arXiv 2506.12708), as a fluid model.

Layout (the paper's): prefill instances of 16 NPUs (EP32) and one decode instance of 160 NPUs (EP320); the KV
cache of each prompt moves prefill -> decode over the RDMA plane.

Roofline, per NPU (all numbers are :class:`InferenceParams`):

* decode step ``= F + B * c`` for ``B`` sequences per NPU. ``F`` = resident weights read from HBM + one EP
  dispatch/combine latency per MoE layer. ``c`` = compute of the step's tokens (main + MTP draft) at peak x
  efficiency + the sequence's KV cache read from HBM + its expert-parallel all-to-all bytes over the NPU's UB
  bandwidth x ``sim.fabric.collective_factor(instance nodes)`` x achievable fraction. One step emits
  ``1 + mtp_acceptance`` tokens per sequence, so ``TPOT(B) = (F + B c) / (1 + mtp_acceptance)`` and decode
  tokens/s per NPU ``= B / TPOT(B)``.
* prefill per token ``= compute + all-to-all + (weights read + layer latencies) / batch tokens``.
* The two compute efficiencies and the EP collective latency are calibrated to the paper's three figures
  (see ``tests/test_inference.py::test_calibration``). The split of a decode token's cost is an assumption
  (see ``decode_a2a_efficiency``): ~18% UB all-to-all, ~82% compute + HBM, fault-free.

Demand is a fluid request rate (``load_factor`` x fault-free capacity). Served = min(demand, prefill capacity,
decode capacity) (the router admits no more than decode takes); the decode batch follows from Little's law,
``B = d TPOT(B)`` for demand ``d`` tokens/s per NPU, capped at the max batch, so TPOT rises with load and with
lost bandwidth. TTFT = prefill batch time ``S`` + M/D/1 wait ``rho S / (2 (1 - rho))`` (``rho`` = admitted
prompt tokens / working prefill capacity; capped at ``max_queue_wait_s``, admission control) + KV bytes of the
prompt over one RoCE port (x share of the instances' ports up). TPOT / TTFT are ``inf`` when nothing is served.
Rates change only on plant changes (listener), faults (:meth:`InferenceService.fail`, :meth:`set_slowdown`) and
control actions; there are no per-request or per-second events.

Restarts: ``process_relaunch_s`` + weight load, where each node loads its NPUs' resident weights in parallel:
the paper's 671 GB cold start (OBS 2,560 s, EMS 320 s) x the node's share of 671 GB (EP320 decode: ~0.46,
EP32 prefill: ~0.9). In-place recovery keeps the weights: the CANN process-level recovery stages of
``training.stop_step_s`` .. ``training.comm_resume_s`` (:func:`faultlib.workloads.training.online_recovery_stages_s`).

Instance life cycle: ``running`` -> ``hung`` (a hang, or a device of the instance left service: peers block in
the collective) -> ``down`` after ``hang_timeout_s``; ``crash`` -> ``down`` at once; ``restarting`` while a
restart / in-place recovery runs. A running instance whose collective path is dead (factor 0) stalls; it
resumes by itself if the path comes back (re-route, operator retry) before ``hang_timeout_s``, else it is down.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import simpy

from faultlib import ids
from faultlib.durations import D, Dist
from faultlib.health import UP
from faultlib.params import P, ParamGroup
from faultlib.workloads.base import Workload, reinit_comm, report_peer_waits
from faultlib.workloads.training import online_recovery_stages_s

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.topology import Topology

PAPER = "arXiv 2506.12708 (CloudMatrix-Infer), facts.md §2"
DSV3 = "DeepSeek-V3/R1 config (arXiv 2412.19437)"
CAL = "calibrated so that "
CAL_TEST = " (see tests/test_inference.py::test_calibration)"


class InferenceParams(ParamGroup):
    """Inference service parameters (model, layout, roofline calibration, SLOs)."""

    # ---- model: DeepSeek-R1 ------------------------------------------------------------------------
    total_params_b: float = P(671.0, "1e9 params", "DeepSeek-R1 671B MoE, " + PAPER, gt=0)
    activated_params_b: float = P(37.0, "1e9 params", "37B activated per token, " + PAPER, gt=0)
    dense_params_b: float = P(
        17.1, "1e9 params", "weights outside the routed experts (MLA of 61 layers, 3 dense FFN layers, shared experts, "
        "embedding, head): 671B - 58 layers x 256 experts x 3 x 7168 x 2048 = 17.1B, " + DSV3, gt=0)
    bytes_per_param: float = P(1.0, "B", "INT8 weights, " + PAPER, gt=0)
    moe_layers: int = P(58, "layers", "MoE layers (61 layers, first 3 dense), " + DSV3, ge=1)
    hidden_size: int = P(7168, "elements", "model hidden size, " + DSV3, ge=1)
    experts_per_token: int = P(8, "experts", "top-8 routed experts per token, " + DSV3, ge=1)
    dispatch_bytes_per_elem: float = P(1.0, "B", "tokens are quantised to INT8 before EP dispatch, " + PAPER, gt=0)
    combine_bytes_per_elem: float = P(2.0, "B", "expert outputs return in BF16 for the combine, " + PAPER, gt=0)
    kv_bytes_per_token: float = P(
        70272.0, "B", "MLA latent KV: 61 layers x (512 + 64) elements x 2 B (BF16 cache assumed), " + DSV3, gt=0)
    decode_attn_flops_per_ctx: float = P(
        1.699e7, "FLOP/(token x context token)", "absorbed-MLA decode attention: 2 x 128 heads x (576 + 512) x 61 "
        "layers, " + DSV3, ge=0)
    prefill_attn_flops_per_ctx: float = P(
        4.997e6, "FLOP/(token x context token)", "MHA-form MLA prefill attention: 2 x 128 heads x (192 + 128) x 61 "
        "layers, " + DSV3, ge=0)
    mtp_draft_tokens: int = P(1, "tokens", "one multi-token-prediction draft token verified per decode step, "
                              + DSV3, ge=0)
    mtp_acceptance: float = P(
        0.85, "fraction", "acceptance of the MTP token: 85-90% in the DeepSeek-V3 report; lower end", ge=0, le=1)

    # ---- hardware -----------------------------------------------------------------------------------
    npu_bf16_tflops: float = P(752.0, "TFLOPS", "Ascend 910C dense BF16 per NPU [S], facts.md §2", gt=0)
    int8_speedup: float = P(2.0, "x", "assumed: cube units run INT8 at twice the BF16 rate (Ascend datasheets)", gt=0)
    hbm_tbytes_s: float = P(3.2, "TB/s", "HBM bandwidth per 910C, " + PAPER, gt=0)
    hbm_gbytes_per_npu: float = P(128.0, "GB", "HBM per 910C (64 GB per die), " + PAPER, gt=0)
    hbm_efficiency: float = P(
        0.85, "fraction", "assumed: streaming weight / KV reads reach ~85% of peak HBM bandwidth", gt=0, le=1)

    # ---- layout -------------------------------------------------------------------------------------
    prefill_instances: int = P(6, "instances", "6 prefill instances, " + PAPER, ge=1)
    prefill_nodes_per_instance: int = P(2, "nodes", "16 NPUs (EP32) per prefill instance, " + PAPER, ge=1)
    decode_nodes: int = P(20, "nodes", "one decode instance of 160 NPUs (EP320), " + PAPER, ge=1)
    decode_max_batch_per_npu: int = P(96, "sequences", "decode batch 96 per NPU at 49.4 ms TPOT, " + PAPER, ge=1)
    prefill_batch_tokens_per_npu: int = P(
        4096, "tokens", "assumed: one prompt-sized chunk per NPU per prefill forward; amortises the weight read "
        "while keeping TTFT near a second", ge=1)

    # ---- calibration (roofline efficiencies) ---------------------------------------------------------
    decode_compute_efficiency: float = P(
        0.582, "fraction", CAL + "fault-free decode gives 1,943 tok/s/NPU at 49.4 ms TPOT, batch 96 "
        "(" + PAPER + ")" + CAL_TEST, gt=0, le=1)
    prefill_compute_efficiency: float = P(
        0.672, "fraction", CAL + "fault-free prefill gives 6,688 tok/s/NPU (" + PAPER + ")" + CAL_TEST, gt=0, le=1)
    ep_collective_latency_us: float = P(
        135.0, "us", CAL + "the batch meeting a 15 ms TPOT gives 538 tok/s/NPU (" + PAPER + "); latency of one "
        "MoE layer's dispatch + combine" + CAL_TEST, ge=0)
    decode_a2a_efficiency: float = P(
        0.4, "fraction", "assumed: decode dispatch/combine send a few KB per destination and reach ~40% of the UB "
        "bandwidth (public Ascend A3 EP kernels reach ~45-60% with large messages). This sets the split of a "
        "fault-free decode token's cost: ~18% UB all-to-all, ~82% compute + HBM (reason: MoE decode is "
        "compute/HBM-bound; the paper's microbatch pipelining hides most, not all, of the exchange)", gt=0, le=1)
    prefill_a2a_efficiency: float = P(
        0.5, "fraction", "assumed: prefill dispatch/combine send large messages, ~50% of the UB bandwidth; gives "
        "~35% of the fault-free prefill token cost in communication (additive model: overlap not credited)",
        gt=0, le=1)

    # ---- demand and SLOs ------------------------------------------------------------------------------
    load_factor: float = P(0.8, "fraction", "assumed: offered load = 80% of fault-free service capacity", gt=0)
    prompt_tokens: int = P(
        3072, "tokens", "assumed: prompt 3K + output 2K gives the paper's 4K mean decode KV length", ge=1)
    output_tokens: int = P(2048, "tokens", "assumed: long reasoning outputs (see prompt_tokens)", ge=1)
    tpot_slo_ms: float = P(50.0, "ms", "decode TPOT bound < 50 ms, " + PAPER, gt=0)
    tpot_tight_ms: float = P(15.0, "ms", "the paper's strict TPOT bound (538 tok/s/NPU), " + PAPER, gt=0)
    ttft_slo_s: float = P(2.0, "s", "assumed: interactive TTFT target; the paper sets only a TPOT bound", gt=0)
    max_queue_wait_s: float = P(
        10.0, "s", "assumed: admission control sheds requests rather than queueing them longer", gt=0)

    # ---- failure handling and recovery ----------------------------------------------------------------
    hang_timeout_s: float = P(
        360.0, "s", "a hung collective is declared failed after <= 6 min with a watchdog timeout (facts.md §3)", gt=0)
    process_relaunch_s: Dist = D(
        60.0, 120.0, "s", "assumed: container/process start + HCCL communicator init + graph warm-up of an EP "
        "instance; assumed p90 2 x median (start-up tail, BootSeer arXiv 2507.12619)")
    obs_cold_start_s: Dist = D(
        2560.0, 3840.0, "s", "671 GB cold start from object storage, " + PAPER + " (the median); assumed p90 1.5 x "
        "median (shared storage bandwidth contention)")
    ems_cold_start_s: Dist = D(
        320.0, 480.0, "s", "671 GB cold start via the EMS memory pool, " + PAPER + " (the median); assumed p90 1.5 x "
        "median (memory-pool contention)")


# ---- the roofline ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Roofline:
    """Per-NPU cost model of one instance of ``npus`` NPUs; ``factor`` = UB collective bandwidth fraction."""

    p: InferenceParams
    npu_ub_gbytes_s: float
    dies_per_npu: int

    def weights_per_npu_bytes(self, npus: int) -> float:
        """Resident weights per NPU: dense part replicated per die, routed experts sharded over the EP dies."""
        p = self.p
        ep_dies = npus * self.dies_per_npu
        per_die = p.dense_params_b + (p.total_params_b - p.dense_params_b) / ep_dies
        return per_die * self.dies_per_npu * p.bytes_per_param * 1e9

    def _hbm(self) -> float:
        return self.p.hbm_tbytes_s * 1e12 * self.p.hbm_efficiency

    def _a2a_bytes_per_token(self) -> float:
        p = self.p
        return (p.moe_layers * p.hidden_size * p.experts_per_token
                * (p.dispatch_bytes_per_elem + p.combine_bytes_per_elem))

    def decode_context(self) -> float:
        """Mean KV length of a decoding sequence: the prompt plus half the output."""
        return self.p.prompt_tokens + self.p.output_tokens / 2

    def decode_terms(self, npus: int, factor: float, slow: float = 1.0) -> dict[str, float]:
        """One decode step: fixed seconds ``F`` and per-sequence seconds split into compute/HBM and comm."""
        p = self.p
        if factor <= 0:
            return {"fixed": math.inf, "compute": math.inf, "comm": math.inf}
        hbm = self._hbm()
        fixed = slow * self.weights_per_npu_bytes(npus) / hbm + p.moe_layers * p.ep_collective_latency_us * 1e-6
        tokens = 1 + p.mtp_draft_tokens
        ctx = self.decode_context()
        peak = p.npu_bf16_tflops * 1e12
        flops = tokens * (2 * p.activated_params_b * 1e9 / (peak * p.int8_speedup)
                          + p.decode_attn_flops_per_ctx * ctx / peak)
        compute = slow * (flops / p.decode_compute_efficiency + ctx * p.kv_bytes_per_token / hbm)
        comm = tokens * self._a2a_bytes_per_token() / (self.npu_ub_gbytes_s * 1e9 * factor * p.decode_a2a_efficiency)
        return {"fixed": fixed, "compute": compute, "comm": comm}

    def tpot(self, batch: float, npus: int, factor: float, slow: float = 1.0) -> float:
        """Seconds per output token at ``batch`` sequences per NPU."""
        t = self.decode_terms(npus, factor, slow)
        return (t["fixed"] + batch * (t["compute"] + t["comm"])) / (1 + self.p.mtp_acceptance)

    def decode_max_batch(self, npus: int) -> float:
        """The configured batch, bounded by the HBM left for KV cache after the weights."""
        free = self.p.hbm_gbytes_per_npu * 1e9 - self.weights_per_npu_bytes(npus)
        fit = free / (self.decode_context() * self.p.kv_bytes_per_token)
        return max(0.0, min(float(self.p.decode_max_batch_per_npu), fit))

    def decode_operating_point(self, demand_per_npu: float, npus: int, factor: float, slow: float = 1.0
                               ) -> tuple[float, float, float]:
        """(served tok/s per NPU, batch per NPU, TPOT s) for a fluid demand: B = d TPOT(B), capped at the max."""
        if factor <= 0:
            return 0.0, 0.0, math.inf
        t = self.decode_terms(npus, factor, slow)
        k = 1 + self.p.mtp_acceptance
        f, c = t["fixed"] / k, (t["compute"] + t["comm"]) / k
        bmax = self.decode_max_batch(npus)
        cap = bmax / (f + c * bmax) if bmax > 0 else 0.0
        if demand_per_npu >= cap:
            return cap, bmax, f + c * bmax
        b = demand_per_npu * f / (1 - demand_per_npu * c)
        return demand_per_npu, b, f + c * b

    def batch_for_tpot(self, tpot_s: float, npus: int, factor: float = 1.0) -> float:
        """The (fluid) batch per NPU whose TPOT equals ``tpot_s``."""
        t = self.decode_terms(npus, factor)
        return max(0.0, (tpot_s * (1 + self.p.mtp_acceptance) - t["fixed"]) / (t["compute"] + t["comm"]))

    def prefill_token_s(self, npus: int, factor: float, slow: float = 1.0) -> dict[str, float]:
        """Seconds per prompt token per NPU, split into compute/HBM and comm."""
        p = self.p
        if factor <= 0:
            return {"compute": math.inf, "comm": math.inf}
        peak = p.npu_bf16_tflops * 1e12
        flops = (2 * p.activated_params_b * 1e9 / (peak * p.int8_speedup)
                 + p.prefill_attn_flops_per_ctx * (p.prompt_tokens / 2) / peak)
        per_batch = (slow * self.weights_per_npu_bytes(npus) / self._hbm()
                     + p.moe_layers * p.ep_collective_latency_us * 1e-6)
        compute = slow * flops / p.prefill_compute_efficiency + per_batch / p.prefill_batch_tokens_per_npu
        comm = self._a2a_bytes_per_token() / (self.npu_ub_gbytes_s * 1e9 * factor * p.prefill_a2a_efficiency)
        return {"compute": compute, "comm": comm}

    def prefill_rate(self, npus: int, factor: float, slow: float = 1.0) -> float:
        """Prefill tokens/s per NPU."""
        t = self.prefill_token_s(npus, factor, slow)
        total = t["compute"] + t["comm"]
        return 0.0 if math.isinf(total) else 1.0 / total

    def fits(self, npus: int) -> bool:
        """Do the resident weights fit in HBM?"""
        return self.weights_per_npu_bytes(npus) < self.p.hbm_gbytes_per_npu * 1e9


def paper_layout(topology: Topology, first_node: int = 0, params: InferenceParams | None = None
                 ) -> tuple[list[list[str]], list[str]]:
    """The paper's placement on 32 consecutive nodes of one pod: (prefill instances' nodes, decode nodes)."""
    p = params or InferenceParams()
    per_pod = topology.params.nodes_per_pod
    need = p.prefill_instances * p.prefill_nodes_per_instance + p.decode_nodes
    pod, first = divmod(first_node, per_pod)
    if first_node < 0 or pod >= topology.pods or first + need > per_pod:
        raise ValueError(f"paper layout needs {need} nodes of one pod from node {first_node}")
    nodes = [ids.node(pod, first + i) for i in range(need)]
    k = p.prefill_nodes_per_instance
    prefill = [nodes[i * k:(i + 1) * k] for i in range(p.prefill_instances)]
    return prefill, nodes[p.prefill_instances * k:]


# ---- the service ---------------------------------------------------------------------------------------
State = Literal["running", "hung", "down", "restarting"]
_DEVICE_KINDS = frozenset({"node", "npu", "die", "hbm"})


@dataclass
class _Instance:
    name: str
    role: Literal["prefill", "decode"]
    nodes: list[str]
    state: State = "running"
    gen: int = 0
    reason: str = ""
    blocked_since: float | None = None  # running but making no progress (fabric stall)
    down_s: float = 0.0  # time not available (not running, or stalled)


@dataclass
class _Snap:
    """The service's rates between two changes (piecewise constant)."""

    t: float
    demand_tok_s: float = 0.0
    decode_tok_s: float = 0.0
    decode_cap_tok_s: float = 0.0
    prefill_tok_s: float = 0.0
    tpot_s: float = math.inf
    ttft_s: float = math.inf
    violating: bool = False
    inst_tok_s: dict[str, float] = field(default_factory=dict)
    inst_up: dict[str, bool] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"t": self.t, "decode_tokens_per_s": self.decode_tok_s, "decode_capacity_tokens_per_s":
                self.decode_cap_tok_s, "demand_tokens_per_s": self.demand_tok_s,
                "prefill_tokens_per_s": self.prefill_tok_s, "tpot_ms": self.tpot_s * 1e3,
                "ttft_ms": self.ttft_s * 1e3, "slo_violated": self.violating,
                "instances_up": sorted(k for k, v in self.inst_up.items() if v)}


class InferenceService(Workload):
    """DeepSeek-R1 served with disaggregated prefill / decode instances (fluid rate model)."""

    kind = "inference"

    def __init__(self, name: str, prefill_nodes: list[list[str]], decode_nodes: list[str],
                 params: InferenceParams | None = None) -> None:
        if not prefill_nodes:
            raise ValueError(f"{name}: at least one prefill instance is needed")
        insts = [_Instance(f"prefill{i}", "prefill", list(ns)) for i, ns in enumerate(prefill_nodes)]
        insts.append(_Instance("decode0", "decode", list(decode_nodes)))
        seen: set[str] = set()
        for inst in insts:
            if not inst.nodes:
                raise ValueError(f"{name}/{inst.name}: an instance needs at least one node")
            dup = seen.intersection(inst.nodes)
            if dup:
                raise ValueError(f"{name}/{inst.name}: node {sorted(dup)[0]} is already used by another instance")
            seen.update(inst.nodes)
        super().__init__(name, [n for i in insts for n in i.nodes])
        self._insts: dict[str, _Instance] = {i.name: i for i in insts}
        self._params = params
        self._slow: dict[str, float] = {}
        self._hist: list[_Snap] = []
        self._times: list[float] = []
        self._tot = {"tokens": 0.0, "lost": 0.0, "slo_s": 0.0, "tpot_tok": 0.0, "tpot_w": 0.0}
        self._published: dict[tuple[str, str], float] = {}
        self._node_bw: dict[str, tuple[float, float]] = {}  # node -> (intra, inter) factor; dropped on change

    # ---- wiring -----------------------------------------------------------------------------------
    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self.p: InferenceParams = self._params or sim.params.inference
        self.roof = Roofline(self.p, sim.params.fabric.npu_ub_gbytes_s, sim.topology.params.dies_per_npu)
        self._pods = {ids.pod_of(n) for n in self.nodes}
        for inst in self._insts.values():
            self._check_nodes(inst.name, inst.nodes)
        cap = self.capacity_per_npu()
        self._nominal = cap
        pre_req = sum(cap["prefill_tokens_per_s_per_npu"] * self._npus(i) for i in self._role("prefill"))
        dec_req = sum(cap["decode_tokens_per_s_per_npu"] * self._npus(i) for i in self._role("decode"))
        self.capacity_req_s = min(pre_req / self.p.prompt_tokens, dec_req / self.p.output_tokens)
        self.demand_req_s = self.p.load_factor * self.capacity_req_s
        for inst in self._insts.values():
            if not self._hardware_ok(inst):
                self._hang(inst, "device out of service at start")  # the reason goes to the trace only
        self._update()

    def _check_nodes(self, inst: str, nodes: list[str]) -> None:
        topo = self.sim.topology if self.sim else None
        if topo is None:
            return
        for n in nodes:
            if topo.kind.get(n) != "node":
                raise ValueError(f"{self.name}/{inst}: {n!r} is not a node of this topology")
        if len({ids.pod_of(n) for n in nodes}) > 1:
            raise ValueError(f"{self.name}/{inst}: an EP instance must stay inside one pod's UB domain")
        if not self.roof.fits(len(nodes) * topo.params.npus_per_node):
            raise ValueError(f"{self.name}/{inst}: weights do not fit in HBM on {len(nodes)} node(s)")

    # ---- lookups ------------------------------------------------------------------------------------
    def _role(self, role: str) -> list[_Instance]:
        return [i for i in self._insts.values() if i.role == role]

    def _npus(self, inst: _Instance) -> int:
        assert self.sim is not None
        return len(inst.nodes) * self.sim.topology.params.npus_per_node

    def _qual(self, inst: _Instance) -> str:
        return f"{self.name}/{inst.name}"

    def _inst(self, instance: str) -> _Instance:
        key = instance.removeprefix(f"{self.name}/")
        if key not in self._insts:
            raise KeyError(f"{self.name}: no instance {instance!r} (known: {', '.join(self._insts)})")
        return self._insts[key]

    def instance_of(self, component: str) -> str | None:
        """The (qualified) instance holding ``component`` (a node, NPU, die, port, or link of a node)."""
        if component.removeprefix(f"{self.name}/") in self._insts:
            return self._qual(self._inst(component))
        node = ids.node_of(component)
        for inst in self._insts.values():
            if node in inst.nodes:
                return self._qual(inst)
        return None

    def instances(self) -> dict[str, dict[str, Any]]:
        """Each instance: role, nodes, life-cycle state, whether it is up (running, not stalled), tokens/s."""
        snap = self._hist[-1] if self._hist else None
        return {self._qual(i): {"role": i.role, "nodes": list(i.nodes), "state": i.state, "reason": i.reason,
                                "up": bool(snap and snap.inst_up.get(i.name)),
                                "tokens_per_s": snap.inst_tok_s.get(i.name, 0.0) if snap else 0.0}
                for i in self._insts.values()}

    # ---- the model ------------------------------------------------------------------------------------
    def _nominal_factor(self, nodes: list[str]) -> float:
        assert self.sim is not None
        return 1.0 if len(nodes) <= 1 else 1.0 - self.sim.params.fabric.inter_node_overhead

    def capacity_per_npu(self) -> dict[str, float]:
        """Fault-free figures computed by the roofline for the current layout."""
        roof = self.roof
        dec = self._role("decode")[0]
        pre = self._role("prefill")[0]
        nd, fd = self._npus(dec), self._nominal_factor(dec.nodes)
        bmax = roof.decode_max_batch(nd)
        tpot = roof.tpot(bmax, nd, fd)
        b15 = roof.batch_for_tpot(self.p.tpot_tight_ms / 1e3, nd, fd)
        terms = roof.decode_terms(nd, fd)
        return {
            "prefill_tokens_per_s_per_npu": roof.prefill_rate(self._npus(pre), self._nominal_factor(pre.nodes)),
            "decode_tokens_per_s_per_npu": bmax / tpot,
            "decode_batch_per_npu": bmax,
            "tpot_ms": tpot * 1e3,
            "decode_tokens_per_s_per_npu_tight": b15 / (self.p.tpot_tight_ms / 1e3),
            "decode_batch_per_npu_tight": b15,
            "decode_comm_share": terms["comm"] / (terms["compute"] + terms["comm"]),
        }

    def _hardware_ok(self, inst: _Instance) -> bool:
        assert self.sim is not None
        nodes = set(inst.nodes)
        topo = self.sim.topology
        for cid, h in self.sim.state.unhealthy().items():
            if h not in UP and topo.kind.get(cid) in _DEVICE_KINDS and ids.node_of(cid) in nodes:
                return False
        return True

    def _rdma_factor(self, inst: _Instance) -> float:
        """Share of the instance's RoCE ports that are up (KV cache hand-over bandwidth)."""
        assert self.sim is not None
        nodes = set(inst.nodes)
        down = sum(1 for cid, h in self.sim.state.unhealthy().items()
                   if h not in UP and self.sim.topology.kind.get(cid) == "roce" and ids.node_of(cid) in nodes)
        ports = self._npus(inst) * self.sim.topology.params.dies_per_npu
        return 1.0 - down / ports

    def _collective(self, inst: _Instance) -> float:
        """``sim.fabric.collective_factor(inst.nodes)``, from per-node factors cached until that node changes.

        The fabric drops its whole cache on any plant change; recomputing only the changed node keeps a change
        on one of the decode instance's 20 nodes at one node's cost. Same formula as the fabric's (a test checks).
        """
        assert self.sim is not None
        fab = self.sim.fabric
        bw = []
        for n in inst.nodes:
            if n not in self._node_bw:
                self._node_bw[n] = (fab.intra_node_factor(n), fab.inter_node_factor(n))
            bw.append(self._node_bw[n])
        f = min(a for a, _b in bw)
        if len(bw) > 1:
            f = min(f, min(b for _a, b in bw) * (1 - fab.params.inter_node_overhead))
        return f

    def _slowdown(self, inst: _Instance) -> float:
        return max((f for npu, f in self._slow.items() if ids.node_of(npu) in inst.nodes), default=1.0)

    def _compute(self) -> _Snap:
        assert self.sim is not None
        sim, p, roof = self.sim, self.p, self.roof
        snap = _Snap(sim.now)
        lam = self.demand_req_s
        snap.demand_tok_s = lam * p.output_tokens
        # prefill: the router sends to every instance it believes alive, balanced by capacity; a hung or
        # stalled instance keeps its nominal share (lost) until it is declared down
        pre = self._role("prefill")
        routable = [i for i in pre if i.state in ("running", "hung")]
        cap_tok: dict[str, float] = {}
        for i in pre:
            f = self._collective(i) if i.state == "running" else 0.0
            cap_tok[i.name] = roof.prefill_rate(self._npus(i), f, self._slowdown(i)) * self._npus(i)
        working = [i for i in routable if cap_tok[i.name] > 0]
        nominal = {i.name: self._nominal["prefill_tokens_per_s_per_npu"] * self._npus(i) for i in pre}
        blind = sum(nominal[i.name] for i in routable if cap_tok[i.name] <= 0)
        total_nom = sum(nominal[i.name] for i in routable)
        lam_work = lam * (1 - blind / total_nom) if total_nom > 0 else 0.0
        cap_req = sum(cap_tok[i.name] for i in working) / p.prompt_tokens
        # decode capacity; the router admits no more than decode can take (back-pressure)
        dec = self._role("decode")
        dcap: dict[str, tuple[float, float]] = {}
        for i in dec:
            f = self._collective(i) if i.state == "running" else 0.0
            n = self._npus(i)
            c, _b, _t = roof.decode_operating_point(math.inf, n, f, self._slowdown(i))
            dcap[i.name] = (c * n, f)
        snap.decode_cap_tok_s = sum(c for c, _f in dcap.values())
        admitted = min(lam_work, snap.decode_cap_tok_s / p.output_tokens)
        pre_served = min(admitted, cap_req)
        rho = admitted / cap_req if cap_req > 0 else math.inf
        snap.prefill_tok_s = pre_served * p.prompt_tokens
        for i in pre:
            share = cap_tok[i.name] / (cap_req * p.prompt_tokens) if i in working and cap_req > 0 else 0.0
            snap.inst_tok_s[i.name] = snap.prefill_tok_s * share
        # decode: what prefill hands over, balanced over working decode instances by capacity
        want = pre_served * p.output_tokens
        tpots: list[tuple[float, float]] = []
        for i in dec:
            c, f = dcap[i.name]
            if c <= 0:
                snap.inst_tok_s[i.name] = 0.0
                continue
            n = self._npus(i)
            d = want * c / snap.decode_cap_tok_s
            served, _b, tp = roof.decode_operating_point(d / n, n, f, self._slowdown(i))
            snap.inst_tok_s[i.name] = served * n
            tpots.append((served * n, tp))
        snap.decode_tok_s = sum(s for s, _t in tpots)
        if tpots:
            w = sum(s for s, _t in tpots)
            snap.tpot_s = (sum(s * t for s, t in tpots) / w) if w > 0 else min(t for _s, t in tpots)
        # TTFT = prefill batch time + M/D/1 wait + KV transfer over RDMA
        if working and cap_req > 0 and pre_served > 0:
            ctot = sum(cap_tok[i.name] for i in working)
            batch_s = sum(cap_tok[i.name] / ctot * p.prefill_batch_tokens_per_npu * self._npus(i) / cap_tok[i.name]
                          for i in working)
            wait = (rho * batch_s / (2 * (1 - rho))) if rho < 1 else math.inf
            wait = min(wait, p.max_queue_wait_s)
            rdma = min([self._rdma_factor(i) for i in working]
                       + [self._rdma_factor(i) for i in dec if dcap[i.name][0] > 0] + [1.0])
            kv_s = (p.prompt_tokens * p.kv_bytes_per_token / (sim.params.fabric.rdma_port_gbits_s / 8 * 1e9 * rdma)
                    if rdma > 0 else math.inf)
            snap.ttft_s = batch_s + wait + kv_s
        snap.violating = (snap.decode_tok_s < snap.demand_tok_s * (1 - 1e-9) or snap.tpot_s > p.tpot_slo_ms / 1e3
                          or snap.ttft_s > p.ttft_slo_s)
        for i in [*pre, *dec]:
            if i.state == "running":
                blocked = snap.inst_tok_s.get(i.name, 0.0) <= 0 and (
                    cap_tok.get(i.name, 1.0) <= 0 or dcap.get(i.name, (1.0, 1.0))[0] <= 0)
                if blocked and i.blocked_since is None:
                    i.blocked_since = sim.now
                    self._event(i, "instance_stalled")
                    sim.env.process(self._watch(i, i.gen, sim.now))
                elif not blocked and i.blocked_since is not None:
                    i.blocked_since = None
                    self._event(i, "instance_resumed")
            snap.inst_up[i.name] = i.state == "running" and i.blocked_since is None
        return snap

    # ---- time keeping and publishing ---------------------------------------------------------------
    def _advance(self, t: float) -> dict[str, float]:
        tot = dict(self._tot)
        if not self._hist:
            return tot
        s = self._hist[-1]
        dt = t - s.t
        if dt <= 0:
            return tot
        tot["tokens"] += s.decode_tok_s * dt
        tot["lost"] += max(0.0, s.demand_tok_s - s.decode_tok_s) * dt
        tot["slo_s"] += dt if s.violating else 0.0
        if s.decode_tok_s > 0 and math.isfinite(s.tpot_s):
            tot["tpot_tok"] += s.decode_tok_s * dt * s.tpot_s
            tot["tpot_w"] += s.decode_tok_s * dt
        return tot

    def _update(self) -> None:
        assert self.sim is not None
        now = self.sim.now
        if self._hist:
            last = self._hist[-1]
            for name, inst in self._insts.items():
                if not last.inst_up.get(name, False):
                    inst.down_s += now - last.t
        self._tot = self._advance(now)
        snap = self._compute()
        if self._times and self._times[-1] == now:
            self._hist[-1] = snap
        else:
            self._hist.append(snap)
            self._times.append(now)
        self._publish(snap)

    def _metric(self, metric: str, component: str, value: float) -> None:
        key = (metric, component)
        if self._published.get(key) != value:
            self._published[key] = value
            assert self.sim is not None
            self.sim.telemetry.metric(metric, component, value)

    def _publish(self, s: _Snap) -> None:
        dec_npus = sum(self._npus(i) for i in self._role("decode"))
        self._metric("decode_tokens_per_s", self.name, s.decode_tok_s)
        self._metric("decode_tokens_per_npu", self.name, s.decode_tok_s / dec_npus)
        self._metric("prefill_tokens_per_s", self.name, s.prefill_tok_s)
        self._metric("tpot_ms", self.name, s.tpot_s * 1e3)
        self._metric("ttft_ms", self.name, s.ttft_s * 1e3)
        for inst in self._insts.values():
            self._metric("instance_up", self._qual(inst), 1.0 if s.inst_up.get(inst.name) else 0.0)
            self._metric("instance_tokens_per_s", self._qual(inst), s.inst_tok_s.get(inst.name, 0.0))

    def _event(self, inst: _Instance, kind: str, **detail: Any) -> None:
        assert self.sim is not None
        self.sim.telemetry.job_event(self.name, kind, instance=self._qual(inst), role=inst.role, **detail)

    def _set_state(self, inst: _Instance, state: State, reason: str = "") -> None:
        inst.state = state
        inst.reason = reason
        inst.blocked_since = None
        assert self.sim is not None
        self.sim.trace.record(self.sim.now, "instance", self._qual(inst), state=state, reason=reason)

    def _watch(self, inst: _Instance, gen: int, since: float | None) -> Generator[simpy.Event, Any, None]:
        """Hang/stall watchdog: still blocked after ``hang_timeout_s`` => the instance is down."""
        assert self.sim is not None
        yield self.sim.env.timeout(self.p.hang_timeout_s)
        if inst.gen != gen:
            return
        if (since is None and inst.state == "hung") or (
                since is not None and inst.state == "running" and inst.blocked_since == since):
            self._set_state(inst, "down", "collective timeout")
            self._event(inst, "instance_down")
            self._update()

    # ---- plant and fault inputs ----------------------------------------------------------------------
    def on_plant_change(self, component: str, old: str, new: str) -> None:
        if self.sim is None:
            return
        node = ids.node_of(component)
        if node is None:  # an L2 chip or a pod/cluster fabric: every instance may be affected
            if ids.pod_of(component) not in self._pods and not component.startswith("cluster"):
                return
            self._node_bw.clear()
        else:
            owner = next((i for i in self._insts.values() if node in i.nodes), None)
            if owner is None:
                return
            self._node_bw.pop(node, None)
            if (self.sim.topology.kind.get(component) in _DEVICE_KINDS and new not in UP and old in UP
                    and owner.state == "running"):
                self._hang(owner, f"{component} {new}", node)  # trace only: the event carries no plant state
        self._update()

    def _hang(self, inst: _Instance, reason: str, node: str | None = None) -> None:
        self._set_state(inst, "hung", reason)
        inst.gen += 1
        self._event(inst, "instance_hang")  # a hang is silent: no reason a framework could print
        assert self.sim is not None
        self.sim.env.process(self._watch(inst, inst.gen, None))
        if node is not None:
            self.sim.env.process(self._peer_report(inst, inst.gen, node))

    def _peer_report(self, inst: _Instance, gen: int, node: str) -> Generator[simpy.Event, Any, None]:
        """The instance's other nodes report their notify-wait timeout naming the hung node: the same plog lines a
        training job's peers print, for every hang cause."""
        assert self.sim is not None
        sim = self.sim
        yield sim.env.timeout(sim.params.faults.peer_timeout_report_s)
        if inst.gen != gen or inst.state != "hung":
            return
        report_peer_waits(sim, [n for n in inst.nodes if n != node], node)

    def fail(self, component: str, mode: Literal["crash", "hang"], reason: str) -> str | None:
        """A fault hits ``component``: its instance goes down (crash) or stalls (hang). Returns the instance."""
        q = self.instance_of(component)
        if q is None or self.sim is None:
            return None
        inst = self._inst(q)
        where = self._crash_detail(component, reason)
        if mode == "crash":
            if inst.state != "down":
                inst.gen += 1
                self._set_state(inst, "down", reason)
                self._event(inst, "instance_crash", **where)
        elif mode == "hang":
            if inst.state == "running":
                self._hang(inst, reason, ids.node_of(component))
            elif inst.state == "restarting":
                inst.gen += 1
                self._set_state(inst, "down", reason)
                self._event(inst, "instance_crash", **where)
        else:
            raise ValueError(f"fail mode must be 'crash' or 'hang', got {mode!r}")
        self._update()
        return q

    def _crash_detail(self, component: str, reason: str) -> dict[str, Any]:
        """What a scheduler knows of an exited rank: its node, its device index (when one device), and the text the
        framework printed; never the plant component id or its health."""
        detail: dict[str, Any] = {"node": ids.node_of(component)}
        npu = ids.npu_of(component)
        if npu is not None:
            detail["device"] = ids.index(npu, "npu")
        if reason:
            detail["reason"] = reason
        return detail

    def set_slowdown(self, npu: str, factor: float) -> None:
        """A fail-slow NPU: its instance's compute and HBM time is multiplied by ``factor`` (1.0 clears)."""
        if self.instance_of(npu) is None:
            return
        if factor <= 1.0:
            self._slow.pop(npu, None)
        else:
            self._slow[npu] = factor
        self._update()

    # ---- control actions ----------------------------------------------------------------------------
    def _weights_load_s(self, inst: _Instance, source: str) -> float:
        """Each node loads the weights its NPUs hold, in parallel: the cold-start time x that share of 671 GB."""
        assert self.sim is not None
        per_node = self.roof.weights_per_npu_bytes(self._npus(inst)) * self.sim.topology.params.npus_per_node
        share = min(1.0, per_node / (self.p.total_params_b * self.p.bytes_per_param * 1e9))
        name = "ems_cold_start_s" if source == "ems" else "obs_cold_start_s"
        return self.sim.durations.draw(f"inference.{name}", getattr(self.p, name), share)

    def _relaunch_s(self) -> float:
        """One draw of the process relaunch stage (its own seeded stream)."""
        assert self.sim is not None
        return self.sim.durations.draw("inference.process_relaunch_s", self.p.process_relaunch_s)

    def _relaunch(self, inst: _Instance, stages: list[tuple[str, float]], action: str
                  ) -> Generator[simpy.Event, Any, dict[str, Any]]:
        assert self.sim is not None
        env = self.sim.env
        inst.gen += 1
        gen, start = inst.gen, env.now
        self._set_state(inst, "restarting", action)
        self._event(inst, "instance_restarting", action=action, nodes=list(inst.nodes))
        self._update()
        out: dict[str, Any] = {"instance": self._qual(inst), "action": action, "nodes": list(inst.nodes)}
        for stage, secs in stages:
            yield env.timeout(secs)
            out[f"{stage}_s"] = secs
            if inst.gen != gen:
                return {**out, "ok": False, "reason": "interrupted by a new fault or action",
                        "duration_s": env.now - start}
            if not self._hardware_ok(inst):
                inst.gen += 1
                self._set_state(inst, "down", f"{action}: device unusable")
                self._event(inst, "instance_restart_failed", action=action)
                self._update()
                return {**out, "ok": False, "reason": "device unusable", "duration_s": env.now - start}
        reinit_comm(self.sim, inst.nodes)
        self._set_state(inst, "running", action)
        self._event(inst, "instance_up", action=action, duration_s=env.now - start)
        self._update()
        return {**out, "ok": True, "duration_s": env.now - start}

    def _place(self, inst: _Instance, nodes: list[str]) -> None:
        others = {n for i in self._insts.values() if i is not inst for n in i.nodes}
        assert self.sim is not None
        others |= {n for w in self.sim.workloads.values() if w is not self for n in w.nodes}
        clash = others.intersection(nodes)
        if clash:
            raise ValueError(f"{self._qual(inst)}: node {sorted(clash)[0]} is in use")
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"{self._qual(inst)}: duplicate nodes")
        self._check_nodes(inst.name, nodes)
        for n in set(inst.nodes) - set(nodes):
            self._node_bw.pop(n, None)  # changes there are no longer heard
        inst.nodes = list(nodes)
        self.nodes = [n for i in self._insts.values() for n in i.nodes]
        self._pods = {ids.pod_of(n) for n in self.nodes}
        self.sim.trace.record(self.sim.now, "placement", self._qual(inst), nodes=list(nodes))

    def restart_instance(self, instance: str, replace: dict[str, str] | None = None,
                         weights_from: Literal["ems", "obs"] = "ems") -> simpy.Process:
        """Relaunch the instance's processes (optionally on replacement nodes) and reload its weights."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        if weights_from not in ("ems", "obs"):
            raise ValueError(f"weights_from must be 'ems' or 'obs', got {weights_from!r}")
        inst = self._inst(instance)
        if replace:
            missing = set(replace) - set(inst.nodes)
            if missing:
                raise ValueError(f"{self._qual(inst)}: {sorted(missing)[0]} is not one of its nodes")
            self._place(inst, [replace.get(n, n) for n in inst.nodes])
        stages = [("relaunch", self._relaunch_s()), ("weights", self._weights_load_s(inst, weights_from))]
        return self.sim.env.process(self._relaunch(inst, stages, f"restart_instance({weights_from})"))

    def recover_in_place(self, instance: str) -> simpy.Process:
        """Process-level online recovery: same nodes, weights stay in HBM; seconds, not minutes."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        inst = self._inst(instance)
        return self.sim.env.process(self._relaunch(
            inst, [("recovery", online_recovery_stages_s(self.sim, self.sim.params.training, self._npus(inst)))],
            "recover_in_place"))

    def scale_instance(self, instance: str, nodes: list[str]) -> simpy.Process:
        """Move the instance onto ``nodes`` (a new EP degree): relaunch and reload the re-sharded weights."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        inst = self._inst(instance)
        if not nodes:
            raise ValueError(f"{self._qual(inst)}: an instance needs at least one node")
        self._place(inst, list(nodes))
        stages = [("relaunch", self._relaunch_s()), ("weights", self._weights_load_s(inst, "ems"))]
        return self.sim.env.process(self._relaunch(inst, stages, "scale_instance"))

    # ---- histories and accounting -----------------------------------------------------------------------
    def _snap_at(self, t: float) -> _Snap | None:
        i = bisect_right(self._times, t) - 1
        return self._hist[i] if i >= 0 else None

    def throughput_at(self, t: float) -> float:
        """Decode tokens/s of the service at ``t``."""
        s = self._snap_at(t)
        return s.decode_tok_s if s else 0.0

    def tpot_at(self, t: float) -> float:
        """Mean seconds per output token at ``t`` (inf when no decode instance serves)."""
        s = self._snap_at(t)
        return s.tpot_s if s else math.inf

    def ttft_at(self, t: float) -> float:
        """Mean time to first token, seconds, at ``t`` (inf when no prefill instance serves)."""
        s = self._snap_at(t)
        return s.ttft_s if s else math.inf

    def rate_history(self) -> list[dict[str, Any]]:
        """Piecewise-constant segments, each valid from its ``t`` to the next one's."""
        return [s.as_dict() for s in self._hist]

    def accounting(self) -> dict[str, Any]:
        now = self.sim.now if self.sim else 0.0
        tot = self._advance(now)
        cap = self._nominal if self.sim else {}
        last = self._hist[-1] if self._hist else None
        down = {self._qual(i): i.down_s + (now - last.t if last and not last.inst_up.get(i.name) else 0.0)
                for i in self._insts.values()}
        return {
            "name": self.name, "kind": self.kind,
            "tokens_served": tot["tokens"], "lost_tokens": tot["lost"], "slo_violation_s": tot["slo_s"],
            "mean_tpot_ms": tot["tpot_tok"] / tot["tpot_w"] * 1e3 if tot["tpot_w"] > 0 else None,
            "decode_tokens_per_s_per_npu_fault_free": cap.get("decode_tokens_per_s_per_npu"),
            "prefill_tokens_per_s_per_npu_fault_free": cap.get("prefill_tokens_per_s_per_npu"),
            "tpot_ms_fault_free": cap.get("tpot_ms"),
            "demand_tokens_per_s": self.demand_req_s * self.p.output_tokens if self.sim else None,
            "instance_down_s": down,
        }
