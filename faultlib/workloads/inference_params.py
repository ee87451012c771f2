"""Parameters of the inference twin (DeepSeek-R1 on CloudMatrix384, arXiv 2506.12708): model, layout, roofline
calibration, SLOs, failure handling. The service is :mod:`faultlib.workloads.inference`."""

from __future__ import annotations

from faultlib.durations import D, Dist
from faultlib.params import P
from faultlib.workloads.op_retry import OpRetryParams

PAPER = "arXiv 2506.12708 (CloudMatrix-Infer), facts.md §2"
DSV3 = "DeepSeek-V3/R1 config (arXiv 2412.19437)"
MAX_FLEET_NODES = 64 * 48
"""Nodes of the largest fleet a scenario may build (64 pods of 48 nodes): a layout past it cannot be placed, and a
billion decode nodes made the plan's node list exhaust memory before placement was checked (session 25)."""
CAL = "calibrated so that "
CAL_TEST = " (see tests/test_inference.py::test_calibration)"


class InferenceParams(OpRetryParams):
    """Inference service parameters (model, layout, roofline calibration, SLOs, HCCL operator retry)."""

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
    prefill_instances: int = P(6, "instances", "6 prefill instances, " + PAPER, ge=1, le=MAX_FLEET_NODES)
    prefill_nodes_per_instance: int = P(2, "nodes", "16 NPUs (EP32) per prefill instance, " + PAPER, ge=1,
                                        le=MAX_FLEET_NODES)
    decode_nodes: int = P(20, "nodes", "one decode instance of 160 NPUs (EP320), " + PAPER, ge=1,
                          le=MAX_FLEET_NODES)
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
    peer_load_s: Dist = D(
        33.3, 50.0, "s", "671 GB into a new 2-node serving instance from instances already serving the model (their "
        "host memory, P2P over RDMA, into an engine started with dummy weights): DeepSeek-V3.1 FP8, 2 nodes of a "
        "256-GPU H20 cluster, 33.30 s ('Update (P2P)', MoonshotAI checkpoint-engine README benchmark, "
        "github.com/MoonshotAI/checkpoint-engine); a node pays its resident bytes / (671 GB / peer_load_ref_nodes) "
        "of it; assumed p90 1.5 x median (as ems_cold_start_s)")
    peer_load_ref_nodes: int = P(
        2, "nodes", "the instance of the peer_load_s figure: 16 GPUs (TP16) on 2 nodes, each receiving half the "
        "model (checkpoint-engine README benchmark)", ge=1)

