"""Scheduler-visible job events as signals: the event kind, the node/rank/device it names, and any codes in the
error text the framework printed."""

from __future__ import annotations

from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.where import device_component, is_twin_node

JOB_KINDS = {"crash", "timeout", "stalled", "instance_crash", "instance_hang", "instance_down", "instance_stalled",
             "recover_failed", "checkpoint_failed"}


def parse_job_event(job: str, kind: str, detail: dict[str, object], t: float,
                    placement: dict[str, list[str]], twin: bool | ChipMap | None = None) -> list[Signal]:
    """A job event as a scheduler reports it: kind, the node it names, and codes in its error text. ``twin``: as
    :func:`~opsbrain.ingest.parsers.parse_line`'s (False for a real host a bundle numbered onto a twin-shaped id:
    its device ids are as written; its ChipMap where its npu-smi output shows its product; None: told by the
    node's id)."""
    del placement
    if kind not in JOB_KINDS:
        return []
    named = detail.get("node")
    node = named if isinstance(named, str) else None
    dev = detail.get("device")
    a3 = twin if twin is not None else is_twin_node(node)
    comp = (device_component(node, dev, a3)  # node + index (on an A3 node: a die's logical id)
            if node and isinstance(dev, int) and not isinstance(dev, bool) else None)
    where = str(comp or node or detail.get("instance") or job)
    out = [Signal(t, f"job:{kind}", where, None, 2, f"{job}: {kind}")]
    reason = detail.get("reason")
    if isinstance(reason, str):
        for s in parse_line(reason, t, origin=node or comp, twin=twin):
            out.append(Signal(t, s.kind, s.component or where, s.host, s.severity, f"{job}: {reason}", s.peer,
                              s.device))
    return out
