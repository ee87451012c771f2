"""Checks of what a real source reads of NPU presence and ports beside DOM and CRC (session 35): the node's NPU count,
the RoCE port's packet error and retry counters, a port's link speed and its optical module's presence
(npu-exporter's ``machine_npu_nums``, ``npu_chip_roce_*`` / ``npu_chip_mac_rx_bad_pkt_num``, ``npu_chip_link_speed``
/ ``npu_chip_info_link_speed``, ``npu_chip_optical_state``: :mod:`opsbrain.sources.exporter_ports`). The twin's own
sweep has none of them (``Snapshot.ports`` None); the twin's page publishes ``machine_npu_nums`` only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from opsbrain.sweeps.finding import SEVERITIES, Finding, levels, window_words
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot

BAD = ("rx_err", "verify_err", "mac_rx_bad")
"""Counters of packets received damaged: RoCE packets in error, packets failing the RoCE field checks (ICRC, length,
destination port: the metrics reference) and bad packets at the MAC."""
RETRY = ("retries", "out_of_order")
"""Counters of packets sent again or received out of sequence (a lost packet makes the receiver see a PSN gap and
the sender retry: the metrics reference on ``npu_chip_roce_out_of_order_num``)."""
_SAID = {"rx_err": "RoCE packets received in error", "verify_err": "RoCE packets failing verification (ICRC, length, "
         "port)", "mac_rx_bad": "bad packets at the MAC", "retries": "RoCE retransmissions",
         "out_of_order": "RoCE packets out of sequence"}


@dataclass(frozen=True, eq=False)
class PortState:
    """A real source's NPU counts and port readings at the snapshot's time, with what its kept collections read of
    them before (``window_s``: how far back "before" reaches)."""

    window_s: float
    nodes: tuple[str, ...]
    npus_counted: np.ndarray
    """(nodes,) the NPUs the node's exporter lists now (``machine_npu_nums``)."""
    npus_counted_before: np.ndarray
    """(nodes,) the most it listed in an earlier kept collection (NaN: none read)."""
    npus_read: np.ndarray
    """(nodes,) NPUs of the node with a chip series now."""
    ports: tuple[str, ...]
    errors: Mapping[str, np.ndarray]
    """Counter (``retries``, ``rx_err`` ...) -> (ports,) its increase over ``errors_window_s`` (NaN: no step)."""
    errors_window_s: float
    speed_links: tuple[str, ...]
    speed: np.ndarray
    speed_before: np.ndarray
    """(speed_links,) the highest speed the port read in an earlier kept collection (NaN: none)."""
    speed_peers: np.ndarray
    """(speed_links,) the speed most ports of the same kind on the node read now, where most of at least 3 do (NaN
    otherwise)."""
    modules: tuple[str, ...]
    present: np.ndarray
    present_before: np.ndarray
    """(modules,) the module was read present in an earlier kept collection."""
    npus_unhealthy: np.ndarray | None = None
    """(nodes,) the NPUs the node's exporter counts unhealthy (``machine_unhealthy_npu_nums``; NaN: not published;
    session 42)."""
    npus_unknown: np.ndarray | None = None
    """(nodes,) the NPUs whose health it could not read (``machine_unknown_npu_nums``; NaN: not published)."""
    npus_shown_unhealthy: np.ndarray | None = None
    """(nodes,) the node's NPUs whose own series show a fault now (health 0, or a fault code)."""


def _node(cid: str) -> str:
    return cid.rpartition("/npu")[0]


def check_npu_count(s: Snapshot, p: SweepParams) -> list[Finding]:
    """NPUs the node's exporter lists (``machine_npu_nums``: the DCMI device list it re-reads): fewer than it listed
    in an earlier kept collection is an NPU gone from the node (off the PCIe bus, or its driver lost it): Critical,
    as a chip lost (its rank's job fails). Fewer NPUs with series than it lists: the exporter cannot read some
    (npu-exporter leaves out a chip whose reads all fail), so their checks see nothing: Warning.

    The node's health summary (session 42): more NPUs counted unhealthy (``machine_unhealthy_npu_nums``, the same
    DCMI health as the chips' ``npu_chip_info_health_status``) than the node's chip series show at fault (health 0
    or a fault code) is an unhealthy NPU no per-device reading explains: Alarm, as an NPU's own unhealthy health,
    located to the node only (no class is drawn from it); NPUs whose health could not be read
    (``machine_unknown_npu_nums``): Warning. One finding per node, at the highest of its levels."""
    ps = s.ports
    if ps is None:
        return []
    nan = np.full(len(ps.nodes), np.nan)
    bad = ps.npus_unhealthy if ps.npus_unhealthy is not None else nan
    unknown = ps.npus_unknown if ps.npus_unknown is not None else nan
    shown = ps.npus_shown_unhealthy if ps.npus_shown_unhealthy is not None else np.zeros(len(ps.nodes))
    out = []
    for i, node in enumerate(ps.nodes):
        now, before, read = ps.npus_counted[i], ps.npus_counted_before[i], ps.npus_read[i]
        parts: list[tuple[str, str, str]] = []
        data: dict[str, int] = {"with_series": int(read)}
        if now == now:
            data["listed"] = int(now)
        if before == before and now < before:
            data["listed_before"] = int(before)
            parts.append((
                "Critical", f"the node's exporter lists {now:.0f} NPUs, {before:.0f} in an earlier collection of the "
                f"last {ps.window_s / 3600:.0f} h (machine_npu_nums): {before - now:.0f} gone from the node (off the "
                "PCIe bus, or lost by its driver)", "the job on the missing NPU has failed: move its rank to a spare, "
                "then check the chip on the bus (lspci, npu-smi info) and the kernel log for PCIe errors; reset or "
                "replace it"))
        elif read < now:
            parts.append((
                "Warning", f"the node's exporter lists {now:.0f} NPUs (machine_npu_nums) but publishes series of "
                f"{read:.0f}: {now - read:.0f} unread, their checks see nothing", "check the unread NPUs with "
                "npu-smi info and the exporter's log (a chip whose reads fail is left out of its page)"))
        if bad[i] == bad[i] and bad[i] > shown[i]:
            data |= {"unhealthy": int(bad[i]), "shown_unhealthy": int(shown[i])}
            parts.append((
                "Alarm", f"the node's exporter counts {bad[i]:.0f} unhealthy NPUs (machine_unhealthy_npu_nums) but "
                f"its NPUs' own series show {shown[i]:.0f} at fault (health 0 or a fault code): "
                f"{bad[i] - shown[i]:.0f} unhealthy NPU(s) no per-device reading explains",
                "find the unhealthy NPU with npu-smi info (Health column) and npu-smi info -t health -i N, then "
                "read its fault codes"))
        if unknown[i] == unknown[i] and unknown[i] > 0:
            data["health_unknown"] = int(unknown[i])
            parts.append((
                "Warning", f"{unknown[i]:.0f} NPUs whose health the node's exporter could not read "
                "(machine_unknown_npu_nums): their health is not checked", "check those NPUs with npu-smi info and "
                "the exporter's log (a DCMI health query that fails)"))
        if parts:
            sev = max((x[0] for x in parts), key=SEVERITIES.index)
            out.append(Finding(node, "npu_count", sev, "; ".join(x[1] for x in parts),
                               "; ".join(x[2] for x in parts), data=data))
    return out


def check_roce_errors(s: Snapshot, p: SweepParams) -> list[Finding]:
    """The NPU's RoCE port counters' increase over the CRC window: damaged packets received (RoCE packets in error,
    failing verification, bad at the MAC: the largest of the three, as they overlap) against the CRC thresholds
    (warn ``crc_warn_errors``, alarm ``crc_alarm_errors``: each is a lost packet, as a frame with a bad FCS is);
    retransmissions and out-of-sequence packets (the largest) over ``crc_warn_errors``, a Warning only: a retry is a
    packet lost anywhere on the path, congestion too, not this port's fault for certain."""
    ps = s.ports
    if ps is None or not ps.errors:
        return []
    n = len(ps.ports)
    nan = np.full(n, np.nan)

    def most(names: tuple[str, ...]) -> np.ndarray:
        got = [ps.errors[c] for c in names if c in ps.errors]
        return np.fmax.reduce(got) if got else nan

    bad, retry = most(BAD), most(RETRY)
    lv = np.maximum(levels(bad, p.crc_warn_errors, p.crc_alarm_errors),
                    np.minimum(levels(retry, p.crc_warn_errors, p.crc_alarm_errors), 1))
    span = window_words(ps.errors_window_s)
    out = []
    for i in np.flatnonzero(lv):
        sev = SEVERITIES[lv[i]]
        counts = {c: float(v[i]) for c, v in ps.errors.items() if v[i] == v[i] and v[i] > 0}
        said = "; ".join(f"{v:.0f} {_SAID[c]}" for c, v in counts.items())
        out.append(Finding(
            ps.ports[i], "roce_errors", sev,
            f"{said} in the last {span} (npu-exporter RoCE counters; warn {p.crc_warn_errors:.0f}, alarm "
            f"{p.crc_alarm_errors:.0f} damaged packets; retransmissions at most a Warning)",
            "packets are being damaged on this port: drain and re-route it, then check the optics and cable "
            "(hccn_tool -i N -optical -g, -stat -g)" if sev == "Alarm" else
            "watch the port's counters (hccn_tool -i N -stat -g); check the optics if damaged packets keep rising",
            data={"counts": counts}))
    return out


def check_link_speed(s: Snapshot, p: SweepParams) -> list[Finding]:
    """A port's link speed below the highest it read in an earlier kept collection, or below the speed most ports of
    its kind on its node read now (ascend-faultdiag's RoCE port analysis flags a port whose speed differs from its
    peer's): it runs degraded (fewer lanes, or renegotiated down), its job at its slowest link. Warning:
    MindCluster's level for dropped port lanes (0x81078605) is NotHandleFaultCodes, no action; the link still carries
    traffic. A speed of 0 is a link down (link_light's)."""
    ps = s.ports
    if ps is None:
        return []
    sp = ps.speed
    ref = np.fmax(ps.speed_before, ps.speed_peers)
    out = []
    for i in np.flatnonzero((sp > 0) & (sp < ref)):
        before, peers = ps.speed_before[i], ps.speed_peers[i]
        why = [f"{before:g} earlier" if before == before and sp[i] < before else "",
               f"{peers:g} on most of its node's ports" if peers == peers and sp[i] < peers else ""]
        out.append(Finding(
            ps.speed_links[i], "link_speed", "Warning",
            f"link speed {sp[i]:g}, below {' and '.join(w for w in why if w)} (npu-exporter's unit for the port: "
            "RoCE npu_chip_link_speed, UB npu_chip_info_link_speed in G): the link runs degraded",
            "the link carries less than it should and slows collectives over it: check its lanes and optics "
            "(hccn_tool -i N -speed -g, -optical -g) and re-seat or replace the module at the next window",
            data={"speed": float(sp[i]), "before": float(before) if before == before else None,
                  "peers": float(peers) if peers == peers else None}))
    return out


def check_optics_present(s: Snapshot, p: SweepParams) -> list[Finding]:
    """The RoCE port's optical module present (npu-exporter's ``npu_chip_optical_state``, ``hccn_tool -optical -g``'s
    ``present``): not present now, present in an earlier kept collection, is a module lost (pulled, or no longer
    detected: the port has no link): Critical, as a link down; not present in every collection kept, Warning (an
    uncabled port, or a module the port cannot detect)."""
    ps = s.ports
    if ps is None:
        return []
    out = []
    for i in np.flatnonzero(~ps.present):
        lost = bool(ps.present_before[i])
        out.append(Finding(
            ps.modules[i], "optics_present", "Critical" if lost else "Warning",
            "optical module not present (npu-exporter npu_chip_optical_state 0)" +
            (", present in an earlier collection: the port has lost its module and its link" if lost else
             " in any collection kept"),
            "re-route the node's RoCE traffic, then re-seat or replace the module" if lost else
            "if the port should be cabled, seat a module (hccn_tool -i N -optical -g shows what it detects)",
            data={"present_before": lost}))
    return out


def npus_per_node(npus: tuple[str, ...]) -> dict[str, int]:
    """NPU ids counted per node id."""
    out: dict[str, int] = {}
    for n in npus:
        out[_node(n)] = out.get(_node(n), 0) + 1
    return out
