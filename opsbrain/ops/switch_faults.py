"""What a fault injected mid-switch cost, kept apart from the switch itself.

A node that crashes during a switch is not switched: it is repaired, and a spare takes its slot. The nodes that
start together with that slot (the training job's ranks at dusk, the serving instance's nodes at dawn -- its
*fault domain*) wait for the spare, so their switch time includes the repair. :func:`fault_report` says, per
injected fault, which node it hit, which spare took its slot and how long after the fault that slot worked in its
new role, and splits the switch's per-node times into the fault domain and the rest. The per-node switch time
itself is unchanged (rule firing -> the node works in its new role); this only says which of those times carry a
repair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opsbrain.ops.schedule import SwitchRecord


def slot_holder(rec: SwitchRecord, node: str) -> str | None:
    """The node that ended the switch in ``node``'s slot: ``node`` itself, or the spare that replaced it (a spare
    that died in turn is followed to its own replacement); None if the slot never worked."""
    seen = set()
    while node not in rec.node_end_s and node not in seen:
        seen.add(node)
        nxt = rec.replaced.get(node) or rec.took_slot.get(node)
        if nxt is None:
            return None
        node = nxt
    return node if node in rec.node_end_s else None


def fault_report(rec: SwitchRecord) -> dict[str, Any]:
    """Per injected fault: the node hit, its slot's holder at the end, seconds from the fault to that slot working
    (None: it never worked), and whether the node had already switched when the fault hit. Beside: the per-node
    switch seconds of the fault domain and of the other nodes of the switch."""
    faults, domain = [], set()
    for f in rec.faults:
        at = f["after_s"]
        holder = slot_holder(rec, f["node"])
        done = rec.node_end_s.get(f["node"])
        before = done is not None and done - rec.start_s <= at
        working = None if holder is None else rec.node_end_s[holder] - rec.start_s - at
        unit = rec.node_unit.get(holder) if holder is not None else None
        if unit is not None and not before:
            domain |= {n for n, u in rec.node_unit.items() if u == unit}
        faults.append({"switch": rec.index, "to": rec.to, "node": f["node"], "target": f.get("target", f["node"]),
                       "kind": f["kind"], "after_s": at,
                       "slot_holder": holder, "switched_before_fault": before,
                       "slot_working_after_fault_s": None if before else working})
    times = rec.node_switch_s()
    return {"faults": faults, "domain_s": [t for n, t in times.items() if n in domain],
            "outside_s": [t for n, t in times.items() if n not in domain]}
