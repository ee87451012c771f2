"""The control API's parameters: each action's duration and failure probability (:class:`ControlParams`).

Split out of :mod:`faultlib.control` (session 40); ``faultlib.control.ControlParams`` still names it.
"""

from __future__ import annotations

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup

REASON_CMD = "reason: one management-plane command acknowledged by the device agent; seconds, not minutes"
SPREAD_CMD = "assumed p90 = 2.5-3 x median (a busy agent or a retried RPC)"


class ControlParams(ParamGroup):
    """Control API action durations and failure probabilities."""

    link_isolate_s: Dist = D(1.0, 3.0, "s", REASON_CMD + " (port admin-down on the L1/L2 chip); " + SPREAD_CMD)
    route_push_s: Dist = D(
        1.0, 3.0, "s", REASON_CMD + " (new UB route tables pushed to one L1 chip and acknowledged, before the route "
        "convergence wait fabric.route_convergence_s); " + SPREAD_CMD + "; the same spread per chip of a fan-out "
        "(route_push_fanout) is assumed too: no per-chip figure for the UB fabric is published")
    route_push_fanout: bool = P(
        True, "flag", "a route change around an L1-L2 link or an L2 chip is pushed to the L1 chip of that sub-plane on "
        "every node of the pod (every node's traffic toward the node must avoid that L2 chip; one L1 chip per node "
        "and sub-plane, 48 per pod, facts.md §2), and it ends when the slowest chip has acknowledged: the maximum of "
        "one route_push_s draw per chip (a network update completes at its slowest switch, and per-switch update "
        "times vary at run time: Dionysus, Jin et al., SIGCOMM 2014). false = one draw (the node's own chips only)")
    link_restore_s: Dist = D(2.0, 5.0, "s", REASON_CMD + " (port admin-up + link training); " + SPREAD_CMD)
    hbm_row_isolate_s: Dist = D(
        2.0, 5.0, "s", "reason: driver marks the faulty row/page unusable and remaps (cf. row remapping, facts.md §4); "
        + SPREAD_CMD)
    hbm_rows_replace_threshold: int = P(64, "rows", "0x80E18402: isolated rows reached 64 => replace (facts.md §3)",
                                        ge=1)
    hbm_rows_warn_threshold: int = P(16, "rows", "0x80E18401: >= 16 isolated rows warning (facts.md §3)", ge=1)
    chip_reset_s: Dist = D(
        60.0, 120.0, "s", "assumed: a hot reset of one NPU (driver unload, chip reset, firmware re-init) takes about "
        "a minute; MindCluster waits at most chip_reset_wait_s for it, so the p90 sits below that wait")
    chip_reset_wait_s: float = P(
        150.0, "s", "MindCluster chip reset wait 150 s (facts.md §3): a reset not back by then has failed", gt=0)
    node_cordon_s: Dist = D(1.0, 3.0, "s", REASON_CMD + " (scheduler marks the node unschedulable); " + SPREAD_CMD)
    node_reboot_s: Dist = D(
        600.0, 1200.0, "s", "reason: server POST + OS boot + NPU driver load; ~10 min is typical for large AI servers; "
        "assumed p90 20 min (memory training and device enumeration of a fully populated server)")
    part_replacement_s: Dist = D(
        4 * 3600.0, 24 * 3600.0, "s", "reason: a field replacement ticket (spare part on site, technician, re-test) ~ "
        "hours; assumed p90 a day (part not on site)")
    optics_replacement_s: Dist = D(
        86400.0, 4 * 86400.0, "s", "operators need days to replace failed optical links (arXiv 2305.13792, facts.md "
        "§8): median 1 day, assumed p90 4 days (the days-long tail)")
    restart_fail_after_s: Dist = D(
        10.0, 30.0, "s", "reason: a failed process-level restart surfaces at its first collective (HCCL init); "
        "bounded by the 30 s step-retry timeout (facts.md §3) at the p90")
    job_restart_fail_after_s: Dist = D(
        30.0, 90.0, "s", "reason: a failed job/instance restart surfaces during launch or communicator init, tens of "
        "seconds in; assumed p90 3 x median")
    reroute_failure_prob: float = P(0.01, "probability", "assumed: route push rarely fails; retried by runbooks",
                                    ge=0, le=1)
    isolate_failure_prob: float = P(0.01, "probability", "assumed: a config command rarely fails", ge=0, le=1)
    reset_failure_prob: float = P(0.05, "probability", "assumed: some chip resets do not bring the chip back",
                                  ge=0, le=1)
    restart_failure_prob: float = P(
        0.03, "probability", "assumed: a process/job restart occasionally fails (init error) and is retried",
        ge=0, le=1)
    spare_failure_prob: float = P(0.02, "probability", "assumed: a warm spare occasionally fails its self-check",
                                  ge=0, le=1)
