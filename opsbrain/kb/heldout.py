"""The held-out protocol's axes: what the generator varies, which values training saw, which only evaluation sees.

Training runs the one world :data:`opsbrain.kb.cases.TRAIN_WORLD` (one pod, fixed placement, default fault
parameters, onset 300-900 s, noise x1 or x3, complete collection, lines as emitted, synchronized host clocks,
counters that start with the run). Every held-out run takes a held-out value on *every* axis at once (drawn per run
from its seed), so no evaluation incident comes from a world training saw; the per-axis table then groups the scored
incidents by each axis's value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from opsbrain.kb import cases as case_lib
from opsbrain.kb.cases import ParamDraws, RunArgs, World

EVAL_CONCURRENCY = 0.3  # share of held-out runs with a concurrent second fault (training: 0.2)


@dataclass(frozen=True)
class Axis:
    name: str
    what: str
    training: tuple[str, ...]  # the value names training uses
    held_out: tuple[str, ...]  # the value names only evaluation uses (disjoint from ``training``)


AXES: tuple[Axis, ...] = (
    Axis("placement", "nodes the two workloads occupy (faults land anywhere in their pods)",
         ("inference 0-31, training 32-45",),
         ("training 0-13, inference 16-47", "inference 8-39, training 0-6+40-46")),
    Axis("pods", "pods in the cluster and which pod runs which workload",
         ("1 pod",), ("2 pods, both workloads in pod 1", "2 pods, inference pod 0, training pod 1")),
    Axis("fault_params", "fault parameters (ranges in FAULT_PARAMS; disjoint from training's)",
         ("training draws",), ("low", "high")),
    Axis("onset", "fault onset after the start of the run", ("300-900 s",), ("1800-3600 s", "5400-7200 s")),
    Axis("noise", "background noise rate (flaps, correctable-error bursts) times the default",
         ("x1", "x3"), ("x0.5", "x6")),
    Axis("collection", "what reaches the collector",
         ("complete",), ("5% of lines dropped", "20% of lines dropped", "25% of hosts not collected",
                         "L2 switch logs not collected", "no device-plugin log", "no device-os log")),
    Axis("format", "line layout (variants the ingestion layer reads: docs/formats.md)",
         ("as emitted",), ("syslog", "syslog <PRI> + year")),
    Axis("clock", "host clocks: a line carries the time stamp of the host that wrote it",
         ("synchronized",), ("every host within 0.1 s (congested NTP)",
                             "10% of hosts within 7 s (NTP lost 1 day)")),
    Axis("software", "the torch_npu and Megatron-core releases: how a rank's device error and a NaN gradient are "
         "printed (cases.SOFTWARE)", ("InnerRun messages, assertion",),
         ("error-code messages (ERR00100), rerun state machine",)),
    Axis("job_size", "nodes of the training job (the first of its placement's nodes): how many peer ranks report a "
         "stall", ("14 nodes",), ("8 nodes", "11 nodes")),
    Axis("serving", "serving layout on the inference's 32 nodes: prefill instances x nodes, then one decode instance",
         ("6 x 2 prefill + 20 decode",), ("3 x 4 prefill + 20 decode", "4 x 4 prefill + 16 decode",
                                          "3 x 4 prefill + 16 decode")),
    Axis("counters_age", "how long the cumulative counters (HBM correctable errors, link CRC/FEC) have counted "
         "before the run starts (faultlib noise.counters_age_s)", ("0 (fresh pod)",), ("1-3 days", "14-30 days")),
)

_DEFAULT_OF = {("hbm_ce_storm", "rate_per_s"): "ce_storm_rate_per_s", ("hbm_row_exhaustion", "rows_at_onset"):
               "rows_at_onset", ("link_flap", "flaps"): "flap_count", ("npu_fail_slow", "factor"): "fail_slow_factor",
               ("hbm_overtemp", "ramp_s"): "overtemp_ramp_s",
               ("silent_data_corruption", "detect_delay_s"): "sdc_detect_delay_s"}


def train_param_points() -> dict[tuple[str, str], float]:
    """Training's value of each parameter evaluation varies: faultlib's default (faultlib/faults/params.py). The
    optical decay rate is the exception: training draws it from 0.3-3.0 dB/h (cases.TRAIN_FAULT_PARAMS)."""
    from faultlib.faults.params import FaultParams

    p = FaultParams()
    return {key: float(getattr(p, attr)) for key, attr in _DEFAULT_OF.items()}


FAULT_PARAMS: dict[str, ParamDraws] = {
    "low": (("optical_degradation", "dbm_per_hour", 0.2, 0.28), ("link_flap", "flaps", 2, 3),
            ("npu_fail_slow", "factor", 1.15, 1.25), ("hbm_ce_storm", "rate_per_s", 0.15, 0.3),
            ("hbm_row_exhaustion", "rows_at_onset", 30, 34), ("silent_data_corruption", "detect_delay_s", 30, 60),
            ("hbm_overtemp", "ramp_s", 60, 120)),
    "high": (("optical_degradation", "dbm_per_hour", 3.5, 6.0), ("link_flap", "flaps", 10, 14),
             ("npu_fail_slow", "factor", 1.7, 2.0), ("hbm_ce_storm", "rate_per_s", 1.0, 2.0),
             ("hbm_row_exhaustion", "rows_at_onset", 52, 60), ("silent_data_corruption", "detect_delay_s", 300, 600),
             ("hbm_overtemp", "ramp_s", 1200, 1800)),
}
"""Held-out fault parameters. The other kinds have no parameter knob in faultlib; they vary through the other axes.
HBM overheating (training: faults.overtemp_ramp_s, 5 min from nominal to fatal), assumed: within 1-2 min when a
liquid-cooling loop stops (cold-plate flow lost; the chip's heat has nowhere to go), over 20-30 min when air or
coolant flow only degrades (a failing fan or pump, a clogged filter)."""

_PLACEMENT = {  # value -> (first inference node, training job's nodes) within a pod
    "inference 0-31, training 32-45": (0, tuple(range(32, 46))),
    "training 0-13, inference 16-47": (16, tuple(range(0, 14))),
    "inference 8-39, training 0-6+40-46": (8, (*range(0, 7), *range(40, 47))),
}
_PODS = {"1 pod": (1, 0, 0), "2 pods, both workloads in pod 1": (2, 1, 1),
         "2 pods, inference pod 0, training pod 1": (2, 0, 1)}  # value -> (pods, inference pod, training pod)
_ONSET = {"300-900 s": (300.0, 900.0), "1800-3600 s": (1800.0, 3600.0), "5400-7200 s": (5400.0, 7200.0)}
_NOISE = {"x0.5": 0.5, "x1": 1.0, "x3": 3.0, "x6": 6.0}
_COLLECTION: dict[str, tuple[float, float, tuple[str, ...]]] = {  # value -> (lines dropped, hosts missing, sources)
    "complete": (0.0, 0.0, ()), "5% of lines dropped": (0.05, 0.0, ()), "20% of lines dropped": (0.2, 0.0, ()),
    "25% of hosts not collected": (0.0, 0.25, ()),
    "L2 switch logs not collected": (0.0, 0.0, ("l2_switch",)),  # cases.UNCOLLECTED: the reason of each source
    "no device-plugin log": (0.0, 0.0, ("device_plugin",)), "no device-os log": (0.0, 0.0, ("device_os",))}
_FORMAT = {"as emitted": "as_emitted", "syslog": "syslog", "syslog <PRI> + year": "syslog_pri_year"}
_CLOCK = {  # value -> (offset bound s, share of hosts skewed)
    "synchronized": (0.0, 0.0),
    # Wikipedia, Network Time Protocol: "Asymmetric routes and network congestion can cause errors of 100 ms or more"
    "every host within 0.1 s (congested NTP)": (0.1, 1.0),
    # Mills, Computer Network Time Synchronization (2nd ed.), ch. 'Clock discipline': a survey of ~20,000 NTP hosts
    # found a median oscillator frequency error of 78 ppm, almost 7 s a day for a host whose NTP stopped
    "10% of hosts within 7 s (NTP lost 1 day)": (7.0, 0.1),
}


_SOFTWARE = {"InnerRun messages, assertion": "older", "error-code messages (ERR00100), rerun state machine": "newer"}
# the CloudMatrix-Infer paper's layout (faultlib inference.*); DeepSeek-V3 technical report (arXiv 2412.19437) §3.4:
# "The minimum deployment unit of the prefilling stage consists of 4 nodes with 32 GPUs"
# DeepSeek-V3 §3.4 decodes on 320 GPUs: one routed expert per GPU (256) plus 64 for redundant and shared experts; a
# 16-node decode instance (256 dies, EP256) is that deployment without the redundant experts (assumed)
_SERVING = {"6 x 2 prefill + 20 decode": (6, 2, 20), "3 x 4 prefill + 20 decode": (3, 4, 20),
            "4 x 4 prefill + 16 decode": (4, 4, 16), "3 x 4 prefill + 16 decode": (3, 4, 16)}
DAY_S = 86400.0
# assumed: a node rebooted or its driver reloaded in the last days / a pod in service between monthly maintenance
_COUNTERS_AGE = {"0 (fresh pod)": (0.0, 0.0), "1-3 days": (1 * DAY_S, 3 * DAY_S),
                 "14-30 days": (14 * DAY_S, 30 * DAY_S)}
_JOB_SIZE = {"14 nodes": 14, "8 nodes": 8, "11 nodes": 11}


def world_for(values: dict[str, str]) -> World:
    """The world of one run from its value on each axis (a missing axis takes training's first value)."""
    v = {a.name: values.get(a.name, a.training[0]) for a in AXES}
    first, train_nodes = _PLACEMENT[v["placement"]]
    pods, inf_pod, train_pod = _PODS[v["pods"]]
    drop, missing, sources = _COLLECTION[v["collection"]]
    skew, skewed = _CLOCK[v["clock"]]
    params = case_lib.TRAIN_FAULT_PARAMS if v["fault_params"] == "training draws" else FAULT_PARAMS[v["fault_params"]]
    train_nodes = train_nodes[:_JOB_SIZE[v["job_size"]]]
    return replace(case_lib.TRAIN_WORLD, pods=pods, inference_node=(inf_pod, first),
                   training_nodes=tuple((train_pod, n) for n in train_nodes), noise_scale=_NOISE[v["noise"]],
                   software=_SOFTWARE[v["software"]], prefill=_SERVING[v["serving"]][:2],
                   decode_nodes=_SERVING[v["serving"]][2], counters_age_s=_COUNTERS_AGE[v["counters_age"]],
                   onset_s=_ONSET[v["onset"]], fault_params=params, drop_lines=drop, missing_hosts=missing,
                   missing_sources=sources,
                   line_format=_FORMAT[v["format"]], clock_skew_s=skew, skewed_hosts=skewed)


def draw_values(seed: int) -> dict[str, str]:
    """One held-out value per axis for run ``seed`` (fixed by the seed)."""
    rng = np.random.default_rng([seed, 4241])
    return {a.name: a.held_out[int(rng.integers(len(a.held_out)))] for a in AXES}


def plan_heldout(per_kind: int, seeds: range = case_lib.EVAL_SEEDS, text_views: bool = False
                 ) -> list[tuple[RunArgs, dict[str, str]]]:
    """``per_kind`` held-out runs per fault class, each with its axis values."""
    it = iter(seeds)
    out = []
    for _r in range(per_kind):
        for kind in case_lib.KINDS:
            seed = next(it)
            values = draw_values(seed)
            w = world_for(values)
            args: RunArgs = (seed, kind, case_lib.concurrent_run(seed, EVAL_CONCURRENCY), w.noise_scale, True,
                             text_views, w)
            out.append((args, values))
    return out


def axes_table() -> list[dict[str, Any]]:
    """The axes as rows (name, what, training values, held-out values), for reports and docs."""
    return [{"axis": a.name, "what": a.what, "training": list(a.training), "held_out": list(a.held_out)}
            for a in AXES]


def check_disjoint() -> None:
    """Raise when an axis's held-out values overlap training's (or a parameter range covers training's value)."""
    for a in AXES:
        if set(a.training) & set(a.held_out):
            raise ValueError(f"axis {a.name}: {sorted(set(a.training) & set(a.held_out))} in both")
    train_ranges = {(k, n): (lo, hi) for k, n, lo, hi in case_lib.TRAIN_FAULT_PARAMS}
    points = train_param_points()
    for name, draws in FAULT_PARAMS.items():
        for kind, param, lo, hi in draws:
            tr = train_ranges.get((kind, param))
            point = points.get((kind, param))
            if tr is not None and not (hi < tr[0] or lo > tr[1]):
                raise ValueError(f"fault_params {name}: {kind}.{param} {lo}-{hi} overlaps training {tr}")
            if point is not None and lo <= point <= hi:
                raise ValueError(f"fault_params {name}: {kind}.{param} {lo}-{hi} covers training's {point}")
