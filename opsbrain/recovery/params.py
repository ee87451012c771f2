"""Parameters of the recovery orchestrator, its guardrails and the ``manual`` (status quo) policy.

Same conventions as the simulator's parameters (``P(default, unit, source)``); they live in opsbrain because
they describe the controller, not the plant. ``docs/recovery.md`` carries the tables :func:`render_markdown`
produces between markers; ``python -m opsbrain.recovery.params`` rewrites them (a test keeps them current).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup, iter_params
from opsbrain.errors import InputError
from opsbrain.fsio import write_atomic

NVS = "NVIDIA NVSentinel circuit breaker pattern (facts.md §6)"
RATE = "one unexpected interruption per ~5.5 days on 384 accelerators (Llama 3, facts.md §4)"


class RecoveryParams(ParamGroup):
    """Runbook execution and guardrails of the automated (``auto``) policy."""

    training_scale_in_max_share: float = P(
        0.1, "fraction of a training job's launch nodes", "assumed: a job may shed up to a tenth of its data-parallel "
        "replicas (same global batch, ~10% slower steps) rather than wait down for a repair when no warm spare is "
        "left; beyond that a person re-plans the job. 0 forbids scale-in", ge=0, lt=1)
    min_confidence: float = P(
        0.5, "probability", "reason: below even odds an automated action on the wrong part costs more than a page; "
        "such diagnoses go to a human", ge=0, le=1)
    step_retries: int = P(
        2, "retries", "reason: control actions fail independently with probability <= 0.05 (control.*_failure_prob), "
        "so two retries leave < 1.3e-4 before escalating to the next rung", ge=0, le=10)
    retry_backoff_s: float = P(
        2.0, "s", "reason: a failed management command is re-sent after a short pause, well inside MindCluster's "
        "30 s step-retry timeout (facts.md §3)", ge=0)
    step_timeout_s: float = P(
        1800.0, "s", "reason: above the slowest action on a recovery path (node reboot 600 s, restart from a "
        "persistent checkpoint ~5 min); a step that takes longer counts as failed", gt=0)
    restart_pending_max_s: float = P(
        900.0, "s", "reason: a training job's restart waits (pending, as a gang-scheduled job waits for its nodes: "
        "Volcano, MindCluster) while a node it would keep is out of service and another response is bringing it back "
        "or giving it up; long enough for a node reboot (600 s median, control params) plus an on-call approval of a "
        "scale-in (600 s median) to overlap, short enough that the step (step_timeout_s) can still run the restart "
        "itself (about 5 min from a persistent checkpoint)", gt=0)
    paged_spare_wait_max_s: float = P(
        86400.0, "s", "reason: a response that paged a person with its training job down for want of a node keeps a "
        "claim on the next healthy spare of its pod (or its own node back in service) and resumes its ladder with it, "
        "as Volcano keeps a gang-scheduled job pending while resources are short and does not end it (MindCluster "
        "FAQ 'A Job Is Pending Due to Insufficient Resources', hiascend.com .../mindcluster/730/clustersched/"
        "schedulingug/dlug_installation_faq_025.html). Bounded at the p90 of a field repair (control."
        "part_replacement_s, 24 h): a node of the pod under repair is back by then in 9 of 10 cases; beyond it the "
        "job is the paged person's. Only a job down for want of a node holds a claim: one whose restarts failed with "
        "every node in service is left to the person (journal: job_not_restarted), as MindCluster retries a job "
        "failing on healthy nodes fault-retry-times times and then does not handle the fault (Service Plane "
        "Faults, .../schedulingug/dl_resume_020.html; Volcano sets the job Failed, dlug_installation_faq_037.html). "
        "A pod with no free node first moves the job's group of nodes in it (its logical SuperPoD) whole to the pod "
        "whose pool holds it (MindCluster 'Affinity Scheduling of Logical SuperPoDs', dl_affinity_0032.html; "
        "recovery/superpod_move.py); the claim is for a job no pod can take", gt=0)
    approval_median_s: float = P(
        600.0, "s", "assumed: an on-call engineer acknowledges and approves a paged change in ~10 min (median)", gt=0)
    approval_sigma: float = P(0.7, "log-space s.d.", "assumed: long right tail (p90 ~ 2.5 x median)", ge=0)
    max_isolated_npu_share: float = P(
        0.125, "fraction of a pod's NPUs", "reason: 6 of 48 nodes' worth of NPUs; beyond that the loss exceeds "
        "warm spares sized to the p99 of simultaneous failures (ByteRobust, facts.md §5) and independent faults at "
        + RATE + " are an unlikely cause: a human decides", gt=0, le=1)
    max_isolated_node_share: float = P(
        0.125, "fraction of a pod's nodes", "reason: same bound as max_isolated_npu_share, counted in whole nodes",
        gt=0, le=1)
    max_isolated_link_share: float = P(
        0.05, "fraction of a pod's L1-L2 links", "reason: > 99% of optical faults are tolerated in software "
        "(facts.md §1), but 5% of 5,376 links (~270) out means a systemic optics problem (bad batch, dirty "
        "fibres after maintenance: 37% of new links flapped, facts.md §2) that needs people", gt=0, le=1)
    max_isolated_l2_share: float = P(
        0.0625, "fraction of a pod's L2 chips", "reason: 7 of 112 chips (one plane's worth of 1/16); each chip "
        "is shared by all 48 nodes (medium probability, whole-supernode blast radius, facts.md §2)", gt=0, le=1)
    breaker_window_s: float = P(600.0, "s", "reason: isolations counted over 10 min; " + NVS + " uses 5 min", gt=0)
    breaker_trip_share: float = P(
        0.1, "fraction of a pod's nodes", "reason: 5 of 48 nodes isolated within the window is > 1,000x the "
        "independent-fault rate (" + RATE + "): a common cause (power, firmware, bad diagnosis); " + NVS
        + " trips at 50%", gt=0, le=1)
    breaker_hold_s: float = P(
        3600.0, "s", "reason: a tripped breaker stays open while a human investigates the common cause (modelled "
        "as a fixed hold before it closes)", ge=0)
    repeat_window_s: float = P(86400.0, "s", "MindCluster counts repeated fault codes over 24 h (facts.md §3)", gt=0)
    lemon_incidents: int = P(
        6, "incidents", "reason: this many incidents on one component within repeat_window_s, more than "
        "MindCluster's largest escalation count (5 link-downs in 24 h => isolate, facts.md §3), mean automation is not "
        "fixing it: a human takes it",
        ge=2)
    spare_quantile: float = P(
        0.99, "probability", "warm spares sized to the p99 of simultaneous failures (ByteRobust, facts.md §5)",
        gt=0, lt=1)
    spare_repair_s: float = P(
        14400.0, "s", "reason: a planning figure for spare sizing: a node that left service returns after a field "
        "repair, the median of control.part_replacement_s (4 h)", gt=0)
    stuck_after_s: float = P(
        60.0, "s", "progress watchdog: a training job stalled or down this long with no restart or recovery under "
        "way is restarted whatever the diagnosis said; MindCluster's RestartRequest reschedules what has not "
        "recovered within 60 s (facts.md §3)", gt=0)
    stuck_revivals: int = P(
        3, "revivals per repeat_window_s", "reason: a job the generic ladder (online recovery, restart from memory, "
        "from the persistent checkpoint) did not bring back three times needs a person, not a fourth try", ge=1)
    hccl_retry_hold_s: float = P(
        1.0, "s", "reason: the auto policy launches training jobs and inference services with HCCL_OP_RETRY_PARAMS "
        "HoldTime 1000 ms (CANN range 0-60,000 ms) instead of the 5000 ms default: a dirty end-face flap re-locks "
        "in ~0.5 s (noise.flap_down_mean_s) and a re-route converges in fabric.route_convergence_s (3 s), so "
        "re-executions every hccl_retry_interval_s from 1 s on catch the path as soon as it is back. The manual "
        "policy keeps the CANN default (training.op_retry_hold_s, inference.op_retry_hold_s)", ge=0, le=60)
    hccl_retry_interval_s: float = P(
        4.0, "s", "reason: HCCL_OP_RETRY_PARAMS IntervalTime 4000 ms (CANN default 1000 ms), the smallest whole "
        "second for which the re-executions (MaxCnt 10: HoldTime + 9 x IntervalTime = 37 s) outlast the p99 of the "
        "auto policy's re-route path: onset to a firm diagnosis at detector.reorder_s + detector.collect_s = 5 s "
        "(measured on link-down-training and l2-switch-failure, 20 seeds; it was 10 s on an earlier model, whose "
        "first verdict abstained), the route push fanned out to the sub-plane's 48 L1 chips "
        "(control.route_push_fanout: p99 20.8 s over 50,000 draws) and fabric.route_convergence_s 3 s: ~29 s, so "
        "IntervalTime >= (29 - 1) / 9 = "
        "3.1 s; with the earlier 10 s diagnosis ~34 s and 3.7 s: 4 s covers both. Derived from that path, not from a "
        "recovery target; 2000 ms (the value before the fan-out was modelled) ends the re-executions at 19 s, below "
        "that path's p90", gt=0, le=60)
    hccl_retry_max_cnt: int = P(
        10, "re-executions", "HCCL_OP_RETRY_PARAMS MaxCnt set explicitly to the CANN maximum 10 (default 1), so "
        "the re-executions outlast the re-route (see hccl_retry_interval_s); beyond them the job falls to the next "
        "rung (online recovery, then process-level, then job-level restart)", ge=1, le=10)

    persistent_ckpt_interval_s: float = P(
        10800.0, "s", "reason: under the auto policy a failure restarts from the in-memory checkpoint (every step, "
        "replicated on a peer); only a silent data corruption (1.4% of unexpected interruptions, facts.md §4) or "
        "the loss of a node and its replica peer needs the persistent one. Young/Daly sqrt(2 M C) with that M: "
        "0.173 x 0.014 per accelerator-year => M ~ 16 days for a 9,504-NPU job, C ~ 42 s => 2.9 h; longer for "
        "smaller jobs. 3 h is kept for all (the manual policy, which restarts from the persistent checkpoint, keeps "
        "training.ckpt_interval_s)", gt=0)

    def inference_launch_overrides(self) -> dict[str, float]:
        """Inference-service parameters the auto policy sets when it launches a service: its HCCL retry
        configuration (the same re-route path as a training job's; see hccl_retry_interval_s)."""
        return {"op_retry_hold_s": self.hccl_retry_hold_s, "op_retry_interval_s": self.hccl_retry_interval_s,
                "op_retry_max_cnt": self.hccl_retry_max_cnt}

    def job_launch_overrides(self) -> dict[str, float]:
        """Training-job parameters the auto policy sets when it launches a job: its HCCL retry configuration and
        the persistent checkpoint interval."""
        return {**self.inference_launch_overrides(), "ckpt_interval_s": self.persistent_ckpt_interval_s}


def hccl_launch_env(p: Any) -> dict[str, str]:
    """The HCCL environment a workload with parameters ``p`` (TrainingParams or InferenceParams) is launched with,
    as the journal shows it (CANN names: HCCL_OP_RETRY_ENABLE, HCCL_OP_RETRY_PARAMS in ms)."""
    return {"HCCL_OP_RETRY_ENABLE": "L0:0, L1:1, L2:1",
            "HCCL_OP_RETRY_PARAMS": f"MaxCnt:{p.op_retry_max_cnt},HoldTime:{round(p.op_retry_hold_s * 1000)},"
                                    f"IntervalTime:{round(p.op_retry_interval_s * 1000)}",
            "HCCL_EXEC_TIMEOUT": f"{round(p.hang_timeout_s)}"}


class ManualParams(ParamGroup):
    """The ``manual`` policy: how the status quo detects, diagnoses and repairs (for side-by-side comparison)."""

    page_response_median_s: float = P(
        900.0, "s", "reason: a job-failure alert or hardware alarm is picked up by a person in ~15 min (median); "
        "ByteRobust reports 10-30 min for timeout-based detection (facts.md §5)", gt=0)
    page_response_sigma: float = P(0.6, "log-space s.d.", "assumed: p10-p90 ~ 7-33 min", ge=0)
    hang_notice_median_s: float = P(
        2700.0, "s", "reason: a hung job raises no alert of its own; a person notices flat throughput on a "
        "dashboard later than a collective timeout would fire (30 min, facts.md §3) in most cases", gt=0)
    hang_notice_sigma: float = P(0.8, "log-space s.d.", "assumed: wide spread (who is watching)", ge=0)
    diagnosis_median_s: float = P(
        1200.0, "s", "reason: manual log triage across nodes; the article's tooled target is network-fault "
        "diagnosis in < 10 min (facts.md §1), so the status quo median is set at twice that", gt=0)
    diagnosis_sigma: float = P(0.8, "log-space s.d.", "assumed: long tail of hard cases (p90 ~ 2.8 x median)", ge=0)
    retry_delay_median_s: float = P(
        300.0, "s", "reason: a person re-runs a failed command after looking at why it failed (~5 min median)", ge=0)
    retry_delay_sigma: float = P(0.6, "log-space s.d.", "assumed: as page_response_sigma (p90 ~ 2.2 x median)", ge=0)
    retries: int = P(2, "retries", "reason: after two failed attempts a person escalates to the next team", ge=0)
    job_watch_s: float = P(
        60.0, "s", "assumed: a person who finds the job hung in a collective (a stall, not a crash) lets the "
        "collective retry or timeout decide, and looks at the job again about once a minute (a dashboard refresh)",
        gt=0)
    weights_from: str = P(
        "obs", "source", "reason: without the EMS memory pool an instance reloads weights from object storage "
        "(cold start 2,560 s vs 320 s via EMS, facts.md §2)", pattern=r"^(ems|obs)$")


MC = "MindCluster 7.3 cluster scheduling user guide"


class VendorParams(ParamGroup):
    """The ``vendor-default`` policy: what an Ascend cluster does out of the box with MindCluster's default fault
    handling (job-level rescheduling from the last persistent checkpoint, CANN's default HCCL retry), no people."""

    fault_report_s: Dist = D(
        5.0, 15.0, "s", "reason: a device or switch fault code travels Ascend Device Plugin (polls every 1 s, "
        "facts.md §3) -> ClusterD (ConfigMap or gRPC) -> Volcano, which deletes the job's pods: job-level "
        "rescheduling 'stops all pods each time a fault occurs' and is 'used by default' (" + MC + ", dl_resume_023). "
        "Assumed median 5 s, p90 15 s (a ConfigMap update in a large cluster has an 'uncontrollable' delay, same page)")
    heartbeat_lost_s: float = P(
        30.0, "s", "HCCL's heartbeat timeout: it declares 'Heartbeat Lost' when no heartbeat arrives from a remote for "
        "30 s (CANN HCCL docs, facts.md §8): the earliest a crashed or hung host is known to be gone", ge=0)
    node_lost_s: Dist = D(
        30.0, 150.0, "s", "reason: after the heartbeat loss, until ClusterD marks the node faulty and Volcano "
        "reschedules: the node is treated as lost after 3 missed heartbeat intervals of NodeD's ~60 s reports "
        "(facts.md §8), so heartbeat_lost_s + this has its p90 at the 3 x 60 s bound; median 30 s assumed "
        "(half a report interval)")
    job_watch_s: float = P(
        1.0, "s", "reason: after a link-level fault code MindCluster waits for the job's own outcome (a link down "
        "<= 20 s is only reported, facts.md §3); the scheduler sees a pod exit at its next poll, as the device "
        "plugin's 1 s poll period", gt=0)
    retry_delay_s: float = P(
        30.0, "s", "reason: a rescheduled job that failed to come up is re-submitted after MindCluster's 30 s "
        "step-retry timeout (facts.md §3)", ge=0)
    retries: int = P(
        3, "retries", "reason: MindCluster's example job YAML sets fault-retry-times 3 (" + MC + ", OME "
        "instance rescheduling); after that the job waits for a person", ge=0)
    weights_from: str = P(
        "obs", "source", "reason: an inference instance rescheduled by MindCluster reloads weights from object "
        "storage (no EMS memory pool out of the box, facts.md §2)", pattern=r"^(ems|obs)$")


def render_markdown(models: tuple[type[BaseModel], ...] | None = None) -> str:
    """Markdown tables of the parameters (one per group), as in ``docs/recovery.md``: the orchestrator's, the
    manual policy's and the detector's (its collection, reorder and grouping windows)."""
    from opsbrain.detection.detector import DetectorParams

    models = models or (RecoveryParams, ManualParams, VendorParams, DetectorParams)
    out: list[str] = []
    for model, prefix in zip(models, ("recovery", "manual", "vendor", "detector"), strict=False):
        out.append(f"### `{prefix}`\n")
        doc = " ".join((model.__doc__ or "").split())
        if doc:
            out.append(f"{doc}\n")
        out.append("| parameter | default | unit | source / reason |")
        out.append("| --- | --- | --- | --- |")
        for path, default, unit, source, _desc in iter_params(model, prefix + "."):
            cell = " ".join(str(source).split()).replace("|", "\\|")
            value = (f"{default:g}" if isinstance(default, float) else f"`{default}`" if isinstance(default, str)
                     else str(default))
            out.append(f"| `{path}` | {value} | {unit} | {cell} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "recovery.md"
BEGIN = "<!-- BEGIN recovery-params (generated by python -m opsbrain.recovery.params; do not edit) -->"
END = "<!-- END recovery-params -->"


def doc_block(text: str) -> str:
    """The generated part of ``docs/recovery.md`` (between the markers), or empty."""
    if BEGIN not in text or END not in text:
        return ""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def main(path: Path = DOC_PATH) -> int:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{path}: markers not found", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    try:  # a reader never sees half the document
        write_atomic(path, f"{head}{BEGIN}\n{render_markdown()}{END}{tail}".encode())
    except InputError as exc:
        print(f"opsbrain: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"opsbrain: error: {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
