"""The detector's parameters (a pydantic parameter group, imported only where one is built: a bundle's replay reads
their compiled defaults, :attr:`opsbrain.kb.compiled.CompiledKB.detector_params`)."""

from __future__ import annotations

from faultlib.params import P, ParamGroup


class DetectorParams(ParamGroup):
    """The detector: how long it holds, collects and groups signals (ops-brain design choices, not plant
    durations)."""

    collect_s: float = P(2.0, "s", "reason: sympathetic signals arrive together: a crashed node's or failed switch's "
                         "link-downs in the same second, an HBM UCE's device, plugin and runtime lines within "
                         "seconds (DESIGN principle 2); a self-healing flap re-locks within ~1 s", gt=0)
    rediagnose_settle_s: float = P(1.0, "s", "reason: let a burst of new signals land before diagnosing again", ge=0)
    horizon_s: float = P(3600.0, "s", "reason: job events (hang timeouts at 30 min, facts.md §3) and repeats on the "
                         "same part (a link flapping again) within an hour belong to the same incident", gt=0)
    group_window_s: float = P(60.0, "s", "reason: new errors on the same node within a minute of an incident's last "
                              "signal are taken as part of it (node agent heartbeat period, facts.md §3)", gt=0)
    recheck_s: float = P(5.0, "s", "reason: a self-healing flap re-locks within about a second (faults."
                         "dirty_flap_down_s, 0.5 s mean); a link still dark 5 s after its first diagnosis is not "
                         "re-locking: look again", gt=0)
    link_down_after_s: float = P(
        20.0, "s", "MindCluster escalates a link down for more than 20 s and only reports a shorter one (facts.md §3): "
        "the knowledge base's link_down is a link that stays down past it, its dirty_connector a blip under it "
        "(knowledge_base/classes/link_down.yaml, dirty_connector.yaml). A link still dark when it passes this is "
        "diagnosed once more (after the recheck), with its time dark past the definition's threshold; a link dark "
        "again after an incident's recheck ended is rechecked the same way (session 44)", gt=0)
    l2_join_s: float = P(1.0, "s", "reason: an L2 chip's failure is reported by all 48 peers in the same second; "
                         "later link-downs that merely share the chip belong to other incidents", ge=0)
    burst_count: int = P(3, "reports", "assumed: three correctable-error reports from one HBM stack within the burst "
                         "window is a storm (background is ~19 reports/day/pod, telemetry noise params)", ge=1)
    burst_window_s: float = P(3600.0, "s", "reason: correctable-error reports of one stack within an hour point to "
                              "one failing stack (MindCluster counts repeats over 24 h, facts.md §3); assumed", gt=0)
    flap_window_s: float = P(86400.0, "s", "MindCluster counts link-downs over 24 h (facts.md §3)", gt=0)
    reorder_s: float = P(
        3.0, "s", "reason: records reach the detector out of order (each detection path has its own poll and "
        "shipping delay, faultlib delivery.*); signals are held this long after their time stamp and processed in "
        "time-stamp order (event-time processing with a watermark), which covers ~95% of switch reports "
        "(delivery.switch_report_s: median 0.5 s, p90 2 s); later stragglers are processed when they arrive. "
        "0 = process on arrival", ge=0)
    clock_tolerance_s: float = P(
        0.128, "s", "ntpd's step threshold (ntpd(8), option -x: the clock is stepped when its offset exceeds 128 ms, "
        "slewed below): a host under NTP keeps its clock within it, so a line stamped more than this after it reached "
        "the collector proves that its host's clock is ahead (a line cannot arrive before it is written)", ge=0)
