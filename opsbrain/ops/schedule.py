"""Day inference / night training: a cron plan switches node groups between roles; faults mid-switch recover.

A :class:`SchedulePlan` names groups of nodes with their day layout (prefill/decode instances) and cron rules
(``0 22 * * *`` -> training, ``0 6 * * *`` -> inference). :class:`ScheduleRunner` fires the rules on the
simulation's wall clock and runs each switch through the stages of :mod:`faultlib.workloads.switch`. When a start
fails (a node died mid-switch), the runner swaps the nodes that look unhealthy for free spares and starts again.
Per node it records the switch time (old work stops -> new work starts); per hand-back whether training freed its
nodes within ``handback_deadline_s`` of the rule firing, and if not, why.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Literal

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService, Role
from faultlib.workloads.switch import drain_s, hand_back, start_training, stop_s
from faultlib.workloads.training import TrainingJob
from opsbrain.ops.cron import Cron

MAX_START_ATTEMPTS = 3  # reason: a start that fails three times on fresh spares is a person's problem


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
class SchedulePlan:
    groups: tuple[Group, ...]
    rules: tuple[Rule, ...]
    spares: tuple[str, ...] = ()
    handback_deadline_s: float = 120.0
    faults: tuple[MidSwitchFault, ...] = ()
    handback_checkpoint: Literal["storage", "memory"] = "storage"  # memory: MindIO ACP (faultlib.workloads.switch)


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

    def node_switch_s(self) -> dict[str, float]:
        return {n: t - self.start_s for n, t in self.node_end_s.items()}


class ScheduleRunner:
    """Fires the plan's rules and runs the switches of one simulation."""

    def __init__(self, sim: Simulation, svc: ElasticInferenceService, plan: SchedulePlan) -> None:
        self.sim, self.svc, self.plan = sim, svc, plan
        self.spares = list(plan.spares)
        self.records: list[SwitchRecord] = []  # switches run, in order (fault ``switch`` indexes these)
        self.skipped: list[SwitchRecord] = []
        self.jobs: dict[str, TrainingJob] = {}
        self.layout: dict[str, list[tuple[Role, list[str]]]] = {g.name: [(r, list(ns)) for r, ns in g.instances]
                                                               for g in plan.groups}
        self.owned: dict[str, list[str]] = {}  # group -> qualified instance names serving on it now
        for q, info in svc.instances().items():
            for g in plan.groups:
                if set(info["nodes"]) <= set(g.nodes):
                    self.owned.setdefault(g.name, []).append(q)
        self._groups = {g.name: g for g in plan.groups}

    def firings(self, until_s: float) -> list[tuple[float, Rule]]:
        """(simulated second, rule) of every firing from now to ``until_s``, in order."""
        a, b = self.sim.wallclock(0.0), self.sim.wallclock(until_s)
        out = []
        for rule in self.plan.rules:
            for t in Cron.parse(rule.cron).times_between(a, b):
                out.append(((t - a).total_seconds(), rule))
        return sorted(out, key=lambda x: x[0])

    def start(self, until_s: float) -> None:
        for k, (t, rule) in enumerate(self.firings(until_s)):
            self.sim.env.process(self._at(t, k, rule))

    def _at(self, t: float, _k: int, rule: Rule) -> Generator[Any, Any, None]:
        yield self.sim.env.timeout(max(0.0, t - self.sim.now))
        rec = SwitchRecord(len(self.records), rule.group, rule.to, self.sim.now)
        training = rule.group in self.jobs
        if training == (rule.to == "training"):
            rec.skipped = f"the group is already {'training' if training else 'serving'}"
            self.skipped.append(rec)
            return
        self.records.append(rec)
        for f in self.plan.faults:
            if f.switch == rec.index:
                nodes = self._current(rule.group)
                target = nodes[f.node % len(nodes)]
                self.sim.inject(FaultSpec(at_s=self.sim.now + f.after_s, kind=f.kind, target=target))
        body = self._to_training(rec) if rule.to == "training" else self._to_inference(rec)
        yield from body

    def _current(self, group: str) -> list[str]:
        job = self.jobs.get(group)
        if job is not None:
            return list(job.nodes)
        return [n for _r, ns in self.layout[group] for n in ns]

    # ---- inference -> training --------------------------------------------------------------------------
    def _to_training(self, rec: SwitchRecord) -> Generator[Any, Any, None]:
        sim = self.sim
        quals = self.owned.get(rec.group, [])
        if not quals or rec.group in self.jobs:
            rec.skipped = "the group is not serving"
            return
        rec.stages["drain"] = max(drain_s(sim, self.svc, q) for q in quals)
        yield sim.env.timeout(rec.stages["drain"])
        nodes: list[str] = []
        for q in quals:
            nodes += self.svc.retire_instance(q)
        self.owned[rec.group] = []
        rec.stages["stop"] = stop_s(sim, len(nodes))
        yield sim.env.timeout(rec.stages["stop"])
        job, proc = start_training(sim, f"train-{rec.group}-{rec.index}", nodes)
        self.jobs[rec.group] = job
        t0 = sim.now
        ok = yield from self._done_or_dead(proc, lambda: job.nodes)
        while not ok and rec.attempts < MAX_START_ATTEMPTS:
            rec.attempts += 1
            swap = self._swap(job.nodes, rec)
            if swap is None:
                break
            t0 = sim.now
            ok = yield from self._done_or_dead(job.restart("persistent", replace=swap or None), lambda: job.nodes)
        rec.stages["training_start"] = sim.now - t0  # the attempt that ended the switch
        if not ok:
            rec.failed = "training did not start"
            return
        for n in job.nodes:
            rec.node_end_s[n] = sim.now
            rec.node_role[n] = "training"

    # ---- training -> inference --------------------------------------------------------------------------
    def _to_inference(self, rec: SwitchRecord) -> Generator[Any, Any, None]:
        sim = self.sim
        job = self.jobs.pop(rec.group, None)
        if job is None:
            rec.skipped = "the group is not training"
            return
        freed = list(job.nodes)
        hb = yield from hand_back(sim, job, self.plan.handback_checkpoint)
        hb["on_time"] = hb["duration_s"] <= self.plan.handback_deadline_s
        if not hb["on_time"]:
            ckpt = "wait for the step's memory checkpoint" if hb["checkpoint_to"] == "memory" else "checkpoint write"
            hb["why_late"] = (f"{ckpt} {hb['checkpoint_s']:.0f} s + stop {hb['stop_s']:.0f} s > "
                              f"deadline {self.plan.handback_deadline_s:.0f} s")
        rec.handback = hb
        rec.stages.update(checkpoint=hb["checkpoint_s"], stop=hb["stop_s"])
        original = self._groups[rec.group].nodes
        back = dict(zip(original, freed, strict=False))  # a spare that replaced a node keeps its slot
        layout = [(r, [back.get(n, n) for n in ns]) for r, ns in self.layout[rec.group]]
        procs = [self._serve(rec, role, nodes) for role, nodes in layout]
        yield sim.env.all_of(procs)
        self.layout[rec.group] = layout

    def _serve(self, rec: SwitchRecord, role: Role, nodes: list[str]) -> Any:
        sim = self.sim

        def run() -> Generator[Any, Any, None]:
            current = list(nodes)
            qual, proc = self.svc.add_instance(role, current)
            out = (yield from self._done_or_dead(proc, lambda: current)) or {}
            while not out.get("ok") and rec.attempts < MAX_START_ATTEMPTS:
                rec.attempts += 1
                swap = self._swap(current, rec)
                if swap is None:
                    break
                self.svc.retire_instance(qual)  # an unfinished start ends as interrupted
                current = [swap.get(n, n) for n in current]
                qual, proc = self.svc.add_instance(role, current)
                out = (yield from self._done_or_dead(proc, lambda c=current: c)) or {}  # type: ignore[misc]
            for stage in ("relaunch_s", "weights_s"):  # of the attempt that ended the switch
                key = f"{role}_{stage[:-2]}"
                rec.stages[key] = max(rec.stages.get(key, 0.0), float(out.get(stage, 0.0)))
            if not out.get("ok"):
                rec.failed = f"{role} instance did not start"
                return
            self.owned.setdefault(rec.group, []).append(qual)
            for n in current:
                rec.node_end_s[n] = sim.now
                rec.node_role[n] = role

        return sim.env.process(run())

    def _healthy(self, node: str) -> bool:
        st, topo = self.sim.state, self.sim.topology
        return st.is_up(node) and all(st.is_up(c) for c in topo.descendants(node)
                                      if topo.kind.get(c) in ("npu", "die", "hbm"))

    def _done_or_dead(self, proc: Any, nodes: Callable[[], list[str]]) -> Generator[Any, Any, Any]:
        """Wait for a start; every ``switch.node_health_poll_s`` look at its nodes, and give up (None) as soon as
        one looks dead -- the caller retries on spares instead of waiting for the start to fail."""
        poll = self.sim.params.switch.node_health_poll_s
        while True:
            yield self.sim.env.any_of([proc, self.sim.env.timeout(poll)])
            if proc.triggered:
                return proc.value
            if not all(self._healthy(n) for n in nodes()):
                return None

    def _swap(self, nodes: list[str], rec: SwitchRecord) -> dict[str, str] | None:
        """Spares for the nodes that look unhealthy (same pod); None if a spare is missing."""
        st = self.sim.state
        swap: dict[str, str] = {}
        for n in nodes:
            if self._healthy(n):
                continue
            cand = next((s for s in self.spares if ids.pod_of(s) == ids.pod_of(n) and st.is_up(s)), None)
            if cand is None:
                return None
            self.spares.remove(cand)
            swap[n] = cand
            rec.replaced[n] = cand
        return swap


def switch_stats(records: list[SwitchRecord]) -> dict[str, Any]:
    """Per-node switch times by direction, hand-backs on time, failed switches."""
    by: dict[str, list[float]] = {"training": [], "inference": []}
    by_role: dict[str, list[float]] = {}
    for r in records:
        for n, s in r.node_switch_s().items():
            by[r.to].append(s)
            by_role.setdefault(f"to {r.node_role.get(n, r.to)}", []).append(s)
    hbs = [r.handback for r in records if r.handback]
    stages: dict[str, list[float]] = {}
    for r in records:
        for k, v in r.stages.items():
            stages.setdefault(f"to {r.to}: {k}", []).append(v)
    return {"node_switch_s": by, "stages_s": stages, "node_switch_s_by_role": by_role, "handbacks": len(hbs),
            "handbacks_on_time": sum(bool(h["on_time"]) for h in hbs),
            "failed": [r.failed for r in records if r.failed], "skipped": sum(r.skipped is not None for r in records),
            "attempts": sum(r.attempts for r in records)}
