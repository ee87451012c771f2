"""What a day/night schedule is made of and what it records: node groups with their day layout, cron rules,
injected mid-switch faults, how a switch is operated (:class:`SwitchOps`), the plan, one :class:`SwitchRecord` per
switch and their statistics (:func:`switch_stats`). The runner that executes a plan: :mod:`opsbrain.ops.schedule`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from faultlib.workloads.elastic import Role
from faultlib.workloads.switch import HandbackCheckpoint, Inflight
from opsbrain.ops.cron import Cron
from opsbrain.ops.switch_faults import fault_report
from opsbrain.scenario.superpod import LAUNCH_SPARES


@dataclass(frozen=True)
class Group:
    name: str
    instances: tuple[tuple[Role, tuple[str, ...]], ...]  # the day layout on the group's nodes

    @property
    def nodes(self) -> list[str]:
        return [n for _r, ns in self.instances for n in ns]


@dataclass(frozen=True)
class Rule:
    cron: str
    group: str
    to: Literal["training", "inference"]


@dataclass(frozen=True)
class MidSwitchFault:
    switch: int  # index of the switch (in firing order) it hits
    after_s: float  # seconds after that switch starts
    node: int  # index into the group's nodes
    kind: str = "node_crash"


@dataclass(frozen=True)
class SwitchOps:
    """How a switch is operated (every duration stays the twin's sourced distribution; only what waits for what
    changes). ``per_node``: each node (each instance at dawn) moves to its next stage when it is free; the other
    three need it. ``stop_grace``: SIGKILL after ``switch.stop_grace_s``. ``prestage_checkpoint``: read the job's
    checkpoint into host memory from the switch's start. ``launch_spares``: launch on up to this many free spares
    too and start the job on the first N nodes ready."""

    per_node: bool = False
    stop_grace: bool = False
    prestage_checkpoint: bool = False
    launch_spares: int = 0

    def __post_init__(self) -> None:
        if self.launch_spares < 0:
            raise ValueError("launch_spares must be >= 0")
        if not self.per_node and (self.stop_grace or self.prestage_checkpoint or self.launch_spares):
            raise ValueError("stop_grace, prestage_checkpoint and launch_spares need per_node")

    @property
    def name(self) -> str:
        if self == SwitchOps():
            return "sequential"
        if self == OVERLAPPED:
            return "overlapped"
        return "per-node" + "".join(f"+{k}" for k, on in (("grace", self.stop_grace), ("prestage",
                                    self.prestage_checkpoint), (f"N+{self.launch_spares}", self.launch_spares)) if on)


OVERLAPPED = SwitchOps(per_node=True, stop_grace=True, prestage_checkpoint=True, launch_spares=LAUNCH_SPARES)
OPERATIONS = {"sequential": SwitchOps(), "overlapped": OVERLAPPED}


@dataclass(frozen=True)
class SchedulePlan:
    groups: tuple[Group, ...]
    rules: tuple[Rule, ...]
    spares: tuple[str, ...] = ()
    handback_deadline_s: float = 120.0
    faults: tuple[MidSwitchFault, ...] = ()
    handback_checkpoint: HandbackCheckpoint = "storage"  # memory: MindIO ACP (faultlib.workloads.switch)
    ops: SwitchOps = SwitchOps()
    dusk_inflight: Inflight = "drain"  # migrate: Llumnix-style live migration to the instances that stay


def window_switches(dusk: str, dawn: str, epoch: str, duration_s: float) -> tuple[int, float | None, bool]:
    """(switches, when the first switch to training begins in seconds from ``epoch`` or None, whether a hand-back
    follows it) of the one-group plan in ``duration_s``: its rules' firings before the end, in order, each a switch
    when the group is not in that role yet (it starts serving); a firing that finds the group already there is
    skipped, so the switches are the role changes."""
    a = datetime.fromisoformat(epoch)
    b = a + timedelta(seconds=duration_s)
    fires = sorted([(t, "training") for t in Cron.parse(dusk).times_between(a, b) if t < b]
                   + [(t, "inference") for t in Cron.parse(dawn).times_between(a, b) if t < b], key=lambda x: x[0])
    role, n, first_dusk, back = "inference", 0, None, False
    for t, to in fires:
        if to != role:
            role, n = to, n + 1
            if to == "training" and first_dusk is None:
                first_dusk = (t - a).total_seconds()
            back = back or (to == "inference" and first_dusk is not None)
    return n, first_dusk, back


@dataclass
class SwitchRecord:
    index: int
    group: str
    to: str
    start_s: float
    node_end_s: dict[str, float] = field(default_factory=dict)
    attempts: int = 0
    replaced: dict[str, str] = field(default_factory=dict)
    handback: dict[str, Any] | None = None
    failed: str | None = None
    skipped: str | None = None  # the rule found the group already in its target role
    node_role: dict[str, str] = field(default_factory=dict)  # node -> role it switched into
    stages: dict[str, float] = field(default_factory=dict)  # stage -> seconds (the group's critical path)
    node_ready_s: dict[str, float] = field(default_factory=dict)  # node -> its own stages done (s from start)
    set_aside: list[str] = field(default_factory=list)  # group nodes an N + k launch left out (they became spares)
    faults: list[dict[str, Any]] = field(default_factory=list)  # injected mid-switch: node, kind, after_s
    node_unit: dict[str, str] = field(default_factory=dict)  # node -> the job or instance it started in
    took_slot: dict[str, str] = field(default_factory=dict)  # group node left out -> the spare in its slot (N + k)
    waited_s: float = 0.0  # the rule fired while its group was mid-switch: waited this long for that switch to end
    end_s: float | None = None  # when the switch's work ended (its last node working, or the switch given up)

    def node_switch_s(self) -> dict[str, float]:
        return {n: t - self.start_s for n, t in self.node_end_s.items()}

    def whole_switch_s(self) -> float | None:
        """From the rule firing to the last node working in its new role."""
        return max(self.node_end_s.values()) - self.start_s if self.node_end_s else None


def switch_stats(records: list[SwitchRecord]) -> dict[str, Any]:
    """Per-node switch times by direction, hand-backs on time, failed switches; the times of switches without an
    injected fault beside, and what the faults cost (:func:`opsbrain.ops.switch_faults.fault_report`)."""
    by: dict[str, list[float]] = {"training": [], "inference": []}
    by_role: dict[str, list[float]] = {}
    for r in records:
        for n, s in r.node_switch_s().items():
            by[r.to].append(s)
            by_role.setdefault(f"to {r.node_role.get(n, r.to)}", []).append(s)
    ready = [v for r in records for v in r.node_ready_s.values()]
    whole: dict[str, list[float]] = {"training": [], "inference": []}
    for r in records:
        w = r.whole_switch_s()
        if w is not None:
            whole[r.to].append(w)
    hbs = [r.handback for r in records if r.handback]
    stages: dict[str, list[float]] = {}
    for r in records:
        for k, v in r.stages.items():
            stages.setdefault(f"to {r.to}: {k}", []).append(v)
    reports = [fault_report(r) for r in records if r.faults]
    faulted = {"faults": [f for rep in reports for f in rep["faults"]],
               "domain_s": [v for rep in reports for v in rep["domain_s"]],
               "outside_s": [v for rep in reports for v in rep["outside_s"]]}
    clean = [v for r in records if not r.faults for v in r.node_switch_s().values()]
    return {"node_switch_s": by, "stages_s": stages, "node_switch_s_by_role": by_role, "handbacks": len(hbs),
            "fault_free_node_switch_s": clean, "faulted": faulted,
            "handbacks_on_time": sum(bool(h["on_time"]) for h in hbs),
            "failed": [r.failed for r in records if r.failed], "skipped": sum(r.skipped is not None for r in records),
            "attempts": sum(r.attempts for r in records), "node_ready_s": ready, "whole_switch_s": whole,
            "set_aside": sum(len(r.set_aside) for r in records)}
