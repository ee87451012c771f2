"""How much of the paper's 671 GB weight cold start a node of an instance pays: three readings of one figure.

The one published figure is CloudMatrix-Infer's model cold start of DeepSeek-R1 (671 GB): ~2,560 s from object
storage, ~320 s via the EMS memory pool (arXiv 2506.12708, facts.md §2). The paper does not say on how many nodes it
was measured, nor which stage of the load it is bound by (the pool's transport, or the engine's own load: tensor
construction, format cast, device copies). The twin has to read it somehow; each reading gives a node a share of the
figure (its draw is ``ems_cold_start_s`` or ``obs_cold_start_s`` scaled by that share):

* ``resident`` (the twin's reading since issue 21): the figure is what one node pays to load 671 GB; every node of an
  instance loads the weights its NPUs hold in parallel, so its share is its resident bytes / 671 GB -- the dense part
  counted once per die (it is replicated on every die), the routed experts sharded over the EP dies (EP320 decode
  node ~0.46, EP32 prefill node ~0.89). Independent evidence that a node pays per resident byte at about this rate:
  vllm-ascend on Atlas 800I A3 (910C) nodes logs each die's worker loading its own shard in parallel ("Loading model
  weights took 35.9085 GB", "load_model total time: 360.75 seconds" on every rank of DeepSeek-V4-Pro W4A8; issue
  vllm-project/vllm-ascend#16983), i.e. ~0.1 GB/s per die, ~1.6 GB/s per node from a plain model path, against
  671 GB / 320 s = 2.1 GB/s here -- the load is bound by the engine's per-die work, not by the path.
* ``unique``: the node fetches each distinct byte once (the dense part once, its expert shard) and copies the dense
  part to its dies locally; share = unique bytes / 671 GB (decode node ~0.07, prefill node ~0.51). Right only if the
  pool transport is the bound and the loader deduplicates; no source says either for EMS. An optimistic bound.
* ``instance``: the figure is the time of a whole instance, whatever its size; share 1. A pessimistic bound.

Only ``resident`` is used for the twin's figures; the other two are printed as the range the reading spans
(``benchmarks/bench_switch.py --sensitivity``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from faultlib.workloads.inference import InferenceParams

WeightAccounting = Literal["resident", "unique", "instance"]
ACCOUNTINGS: tuple[WeightAccounting, ...] = ("resident", "unique", "instance")


def node_bytes(p: InferenceParams, npus: int, npus_per_node: int, dies_per_npu: int,
               accounting: WeightAccounting) -> float:
    """Bytes one node of an instance of ``npus`` NPUs loads under ``accounting`` (``instance``: the whole model)."""
    model = p.total_params_b * p.bytes_per_param * 1e9
    experts = (p.total_params_b - p.dense_params_b) * p.bytes_per_param * 1e9
    dense = p.dense_params_b * p.bytes_per_param * 1e9
    ep_dies = npus * dies_per_npu
    node_dies = min(npus, npus_per_node) * dies_per_npu
    if accounting == "resident":
        return node_dies * (dense + experts / ep_dies)
    if accounting == "unique":
        return dense + experts * node_dies / ep_dies
    if accounting == "instance":
        return model
    raise ValueError(f"weight accounting must be one of {', '.join(ACCOUNTINGS)}, got {accounting!r}")


def node_share(p: InferenceParams, npus: int, npus_per_node: int, dies_per_npu: int,
               accounting: WeightAccounting) -> float:
    """The node's share of the 671 GB cold-start figure (at most 1)."""
    model = p.total_params_b * p.bytes_per_param * 1e9
    return min(1.0, node_bytes(p, npus, npus_per_node, dies_per_npu, accounting) / model)
