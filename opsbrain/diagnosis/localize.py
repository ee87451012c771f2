"""Topology localization: from the class and the signals, the root component (link vs switch vs node vs NPU)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from opsbrain.diagnosis.features import DOWN, l2_of_link, link_of, node_id, npu_id
from opsbrain.ingest import Signal, dark_links

RULES = {
    "hbm_ce_storm": "hbm", "hbm_uce": "hbm", "hbm_row_exhaustion": "hbm", "hbm_overtemp": "hbm",
    "optical_degradation": "link", "link_flap": "link", "link_down": "link", "dirty_connector": "link",
    "l1_switch_failure": "l1_switch", "l2_switch_failure": "l2_switch",
    "aicore_hang": "die", "npu_off_bus": "npu", "npu_fail_slow": "npu", "silent_data_corruption": "npu",
    "node_crash": "node", "node_hang": "node", "qingtian_failure": "qingtian",
    "roce_port_down": "roce_port", "collective_timeout_sw": "job_rank",
    "npu_oom": "oom", "framework_error": "npu", "config_error": "node", "driver_firmware_error": "npu",
}


def sibling_roots(fault_class: str, component: str | None, signals: list[Signal]) -> list[str]:
    """The incident's further roots of a link class (session 42): the other links of the component's node that went
    down in it, each a fault of its own (a link class is a fault of one link; a node's, an L1 chip's or an L2 chip's
    failure that takes several down is a class of its own); for ``link_down`` only those still dark. Empty for
    every other class."""
    node = node_id(component) if component and RULES.get(fault_class) == "link" else None
    if node is None:
        return []
    pool = set(dark_links(signals)) if fault_class == "link_down" else {
        ln for s in signals if s.kind in DOWN and (ln := link_of(s))}
    return sorted(ln for ln in pool if ln != component and node_id(ln) == node)


def _most(items: Iterable[str | None]) -> str | None:
    c = Counter(x for x in items if x)
    return c.most_common(1)[0][0] if c else None


def _hw(s: Signal) -> bool:
    return s.kind.startswith(("dev:", "agent:", "os:", "rt:", "plugin:", "pub:", "train:", "hccn:", "ecc:", "drv:",
                              "mem:", "smi:", "err:", "op:", "cfg:"))


def localize(rule: str, signals: list[Signal]) -> str | None:
    """The root component for a localization ``rule`` (see :data:`RULES`); else the device a pasted FaultDiag report
    names for its fault categories (``fd:`` signals placed by :func:`opsbrain.ingest.derive.fd_placed`)."""
    return _by_rule(rule, signals) or _most(s.component for s in signals if s.kind.startswith("fd:"))


def _by_rule(rule: str, signals: list[Signal]) -> str | None:
    down = [ln for s in signals if s.kind in DOWN and (ln := link_of(s))]
    if rule == "hbm":
        npu = _most(npu_id(s.component) for s in signals if s.kind.startswith(("dev:80E0", "dev:80E1", "rt:5070")))
        npu = npu or _most(npu_id(s.component) for s in signals if s.kind.startswith("ecc:"))
        npu = npu or _most(npu_id(s.component) for s in signals if _hw(s))
        return f"{npu}/hbm" if npu else None
    if rule == "link":  # a switch's port flapping names its link too (parsers/twin.FLAP_KIND, session 42)
        return _most(link_of(s) for s in signals if s.kind.startswith(("sw:", "port:"))
                     or s.kind == "tk:switch_port_flap") or None
    if rule == "l1_switch":
        named = _most(s.component for s in signals if s.kind == "os:l1_fault")
        return named or _most(ln.split("~", 1)[0] for ln in down) or _most(  # else the chip the plugin names
            s.component for s in signals if s.kind.startswith("swfault:") and "l1sw" in (s.component or ""))
    if rule == "l2_switch":
        return _most(l2_of_link(ln) for ln in down)
    if rule == "die":  # the die whose own device OS reports the fault (a rank's process on its sibling names its own)
        die = _most(s.component for s in signals if s.component and "/die" in s.component and s.kind.startswith(
            "dev:")) or _most(s.component for s in signals if s.component and "/die" in s.component)
        return die or _most(npu_id(s.component) for s in signals if _hw(s))
    if rule == "npu":
        return _most(npu_id(s.component) for s in signals if _hw(s)) or _most(
            npu_id(s.component) for s in signals)
    if rule == "oom":  # the device that ran out of memory, not the peers whose collectives then timed out
        return _most(npu_id(s.component) for s in signals if s.kind.startswith("mem:")) or _by_rule("npu", signals)
    if rule == "node":
        named = _most(s.component for s in signals if s.kind.startswith("agent:node"))
        return named or _most(node_id(ln) for ln in down) or _most(
            node_id(s.component) or node_id(s.host) for s in signals if _hw(s))
    if rule == "qingtian":
        node = _most(node_id(s.component) or node_id(s.host) for s in signals if s.kind.startswith("os:"))
        return f"{node}/qingtian" if node else None
    if rule == "roce_port":  # a failing port's records first (a query of every port lists the healthy ones too)
        return _most(s.component for s in signals if s.kind.startswith("hccn:") and s.severity >= 1) or _most(
            s.component for s in signals if s.kind.startswith("hccn:")) or _most(
            npu_id(s.component) for s in signals if _hw(s))
    if rule == "job_rank":
        return _most(s.component for s in signals if s.kind == "hccl:remote") or _most(
            node_id(s.component) or node_id(s.host) for s in signals)
    return None
