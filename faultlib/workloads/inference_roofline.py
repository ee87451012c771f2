"""The inference twin's per-NPU roofline (decode step and prefill token costs) and the paper's placement.

See :mod:`faultlib.workloads.inference` for the model's description; the numbers are :class:`InferenceParams`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.workloads.inference_params import InferenceParams

if TYPE_CHECKING:
    from faultlib.topology import Topology


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

