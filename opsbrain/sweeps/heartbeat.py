"""The heartbeat check: how long each NPU has not been heard from, and on a real source, which node's exporter has
gone stale as a whole (one finding on the node, not one lost NPU per chip)."""

from __future__ import annotations

import numpy as np

from opsbrain.sweeps.finding import SEVERITIES, Finding, levels
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot

STALE_ACTION = ("check the node's npu-exporter (its process, and its device queries: a hung driver stalls them) and "
                "the scrape; every reading of this node in the sweep is that old, its NPUs' state unknown (not lost)")

UNSEEN = ("; no series of it in this collection (an exporter that stopped answering, or a chip it no longer lists): "
          "aged from its last sample in the kept history")


def check_heartbeat(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Age of each NPU's last heartbeat (warn 3 s, alarm 10 s, critical 30 s). A real source's ages are counted
    beyond the exporter's refresh interval (``s.heartbeat_grace_s``), each chip against its own node's newest sample;
    a node whose newest sample is itself old (``s.node_sample_age_s``) is one 'metrics stale' finding on the node:
    Warning, or Alarm from ``heartbeat_alarm_s`` (never Critical: no chip is known lost)."""
    age = s.heartbeat_age_s
    lv = levels(age, p.heartbeat_warn_s, p.heartbeat_alarm_s, p.heartbeat_critical_s)
    actions = {1: "the NPU missed heartbeats: check it again next sweep",
               2: "the NPU stopped answering: check the device plugin and the node; prepare a spare",
               3: "the NPU is lost: move its rank to a spare (process-level recovery) and reset or separate the chip"}
    limits = (f"warn {p.heartbeat_warn_s:.0f} s, alarm {p.heartbeat_alarm_s:.0f} s, critical "
              f"{p.heartbeat_critical_s:.0f} s")
    g = s.heartbeat_grace_s

    def said(a: float) -> str:
        if not g:
            return f"no heartbeat for {a:.0f} s ({limits})"
        return (f"no heartbeat for {a:.0f} s beyond the exporter's {g:g} s refresh: its samples lag its node's newest "
                f"by {a + g:.0f} s ({limits})")

    unseen = s.npus_unseen or frozenset()
    out = [Finding(s.npus[i], "heartbeat", SEVERITIES[lv[i]], said(float(age[i])) + (UNSEEN if s.npus[i] in unseen
                                                                                     else ""),
                   actions[int(lv[i])], data={"age_s": age[i], **({"no_series": True} if s.npus[i] in unseen else {})})
           for i in np.flatnonzero(lv)]
    gone_nodes = {n.rpartition("/npu")[0] for n in unseen}
    for node, a in (s.node_sample_age_s or {}).items():
        if a < p.heartbeat_warn_s:
            continue
        sev = "Alarm" if a >= p.heartbeat_alarm_s else "Warning"
        gone = node in gone_nodes and not any(n.rpartition("/npu")[0] == node and n not in unseen for n in s.npus)
        out.append(Finding(node or "exporter", "heartbeat", sev,
                           f"metrics stale: the node's newest sample is {a + p.scrape_skew_s + g:.0f} s old, {a:.0f} s "
                           f"beyond a scrape spread ({p.scrape_skew_s:g} s) and one exporter refresh ({g:g} s), alike "
                           "on all its NPUs: its exporter (or the scrape) is stuck, not its NPUs lost"
                           + (UNSEEN if gone else ""), STALE_ACTION,
                           data={"age_s": a, "stale_node": True, **({"no_series": True} if gone else {})}))
    return out
