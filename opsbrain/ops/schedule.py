"""Day inference / night training: a cron plan switches node groups between roles; faults mid-switch recover.

A :class:`SchedulePlan` names groups of nodes with their day layout (prefill/decode instances) and cron rules
(``0 22 * * *`` -> training, ``0 6 * * *`` -> inference). :class:`ScheduleRunner` fires the rules on the
simulation's wall clock and runs each switch through the stages of :mod:`faultlib.workloads.switch`. When a start
fails (a node died mid-switch), the runner swaps the nodes that look unhealthy for free spares and starts again.
Per node it records the switch time (old work stops -> new work starts); per hand-back whether training freed its
nodes within ``handback_deadline_s`` of the rule firing, and if not, why.

:class:`SwitchOps` says how the switch is operated. The default runs the stages one after another for the whole
group (``sequential``); :data:`OVERLAPPED` moves each node on as soon as it is free, kills processes after a grace
period, pre-stages the checkpoint into host memory while the group drains and launches, and launches on N + k nodes
(the plan's spares) -- see :mod:`faultlib.workloads.switch`. A rule that fires while its group is mid-switch waits
for that switch to end, then runs (or is skipped when the group is already in its role); the wait is recorded
(``SwitchRecord.waited_s``; session 36: both switches ran at once, the day's instances starting on the nodes the
night's job was starting on). A training node's switch ends when the job runs (no
rank works before all are ready); the moment its own stages were done is recorded beside it (``node_ready_s``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Literal

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.faults import catalog
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService, Role
from faultlib.workloads.switch import (
    SwitchedTrainingJob,
    checkpoint_read_s,
    detach,
    hand_back,
    handback_checkpoint,
    launch_draws,
    leave_s,
    start_training,
    stop_draws,
    stop_s,
)
from faultlib.workloads.training import TrainingJob
from opsbrain.ops.cron import Cron
from opsbrain.ops.schedule_plan import (
    OPERATIONS,
    OVERLAPPED,
    Group,
    MidSwitchFault,
    Rule,
    SchedulePlan,
    SwitchOps,
    SwitchRecord,
    switch_stats,
)
from opsbrain.ops.setup import serviceable

__all__ = ["MAX_START_ATTEMPTS", "OPERATIONS", "OVERLAPPED", "Group", "MidSwitchFault", "Rule", "SchedulePlan",
           "ScheduleRunner", "SwitchOps", "SwitchRecord", "switch_stats"]

MAX_START_ATTEMPTS = 3  # reason: a start that fails three times on fresh spares is a person's problem


class ScheduleRunner:
    """Fires the plan's rules and runs the switches of one simulation."""

    def __init__(self, sim: Simulation, svc: ElasticInferenceService, plan: SchedulePlan) -> None:
        self.sim, self.svc, self.plan = sim, svc, plan
        self.spares = list(plan.spares)
        self.warm: set[str] = set()  # spares whose training processes are launched (an N + k launch left them out)
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
        self._busy: dict[str, Any] = {}  # group -> the event its switch in progress triggers when it ends

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
        fired = self.sim.now
        while rule.group in self._busy:  # one switch of a group at a time: wait for the one under way
            yield self._busy[rule.group]
        rec = SwitchRecord(len(self.records), rule.group, rule.to, self.sim.now, waited_s=self.sim.now - fired)
        training = rule.group in self.jobs
        if training == (rule.to == "training"):
            rec.skipped = f"the group is already {'training' if training else 'serving'}"
            self.skipped.append(rec)
            return
        self.records.append(rec)
        done = self._busy[rule.group] = self.sim.env.event()
        for f in self.plan.faults:
            if f.switch == rec.index:
                nodes = self._current(rule.group)
                target = nodes[f.node % len(nodes)]
                if "npu" in catalog.kind(f.kind).targets:  # a device fault hits the node's first NPU
                    target = ids.npu(ids.index(target, "pod"), ids.index(target, "node"), 0)
                self.sim.inject(FaultSpec(at_s=self.sim.now + f.after_s, kind=f.kind, target=target))
                rec.faults.append({"node": ids.node_of(target) or target, "target": target, "kind": f.kind,
                                   "after_s": f.after_s})
        if self.plan.ops.per_node:
            body = self._to_training_per_node(rec) if rule.to == "training" else self._to_inference_per_node(rec)
        else:
            body = self._to_training(rec) if rule.to == "training" else self._to_inference(rec)
        yield from body
        rec.end_s = self.sim.now
        del self._busy[rule.group]
        done.succeed()

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
        rec.stages["drain"] = max(leave_s(sim, self.svc, q, self.plan.dusk_inflight) for q in quals)
        yield sim.env.timeout(rec.stages["drain"])
        nodes: list[str] = []
        for q in quals:
            nodes += self.svc.retire_instance(q)
        self.owned[rec.group] = []
        rec.stages["stop"] = stop_s(sim, len(nodes))
        yield sim.env.timeout(rec.stages["stop"])
        job, proc = start_training(sim, f"train-{rec.group}-{rec.index}", nodes)
        self.jobs[rec.group] = job
        t0 = yield from self._start_job(rec, job, proc)
        rec.stages["training_start"] = sim.now - t0  # the attempt that ended the switch
        self._job_running(rec, job)

    def _start_job(self, rec: SwitchRecord, job: TrainingJob, proc: Any) -> Generator[Any, Any, float]:
        """Wait for the job's start; if a node dies meanwhile, restart it with the dead nodes swapped for spares.
        Value: when the attempt that ended the wait began."""
        t0 = self.sim.now
        ok = yield from self._done_or_dead(proc, lambda: job.nodes)
        while not ok and rec.attempts < MAX_START_ATTEMPTS:
            rec.attempts += 1
            swap = self._swap(job.nodes, rec)
            if swap is None:
                break
            t0 = self.sim.now
            # swapped only onto warm standbys: a process-level reschedule (MindCluster; the twin's scope="process")
            scope: Literal["job", "process"] = "process" if swap and set(swap.values()) <= self.warm else "job"
            self.warm -= set(swap.values())
            proc = job.restart("persistent", replace=swap or None, scope=scope)
            ok = yield from self._done_or_dead(proc, lambda: job.nodes)
        if not ok:
            rec.failed = "training did not start"
        return t0

    def _job_running(self, rec: SwitchRecord, job: TrainingJob) -> None:
        if rec.failed:
            return
        for n in job.nodes:
            rec.node_end_s[n] = self.sim.now
            rec.node_role[n] = "training"
            rec.node_unit[n] = job.name

    def _to_training_per_node(self, rec: SwitchRecord) -> Generator[Any, Any, None]:
        """Each instance drains, then each of its nodes stops and launches the training processes on its own
        clock; free spares launch at once (N + k); the job takes the first N nodes whose processes report ready,
        then runs rank table + HCCL init (and waits for the checkpoint being pre-staged) and loads the checkpoint."""
        sim, ops = self.sim, self.plan.ops
        quals = self.owned.get(rec.group, [])
        if not quals or rec.group in self.jobs:
            rec.skipped = "the group is not serving"
            return
        t0 = sim.now
        drains = {q: leave_s(sim, self.svc, q, self.plan.dusk_inflight) for q in quals}
        members = {q: list(self.svc.instances()[q]["nodes"]) for q in quals}
        group = [n for q in quals for n in members[q]]
        spares = [n for n in self.spares if self._healthy(n)][:ops.launch_spares]
        for n in spares:
            self.spares.remove(n)  # reserved while they launch
        stops = iter(stop_draws(sim, len(group), ops.stop_grace))
        launches = iter(launch_draws(sim, len(group) + len(spares)))
        ready_at: dict[str, float] = {}
        for q in quals:
            for n in members[q]:
                ready_at[n] = t0 + drains[q] + next(stops) + next(launches)
            sim.env.process(self._retire_after(q, drains[q]))
        for n in spares:
            ready_at[n] = t0 + next(launches)  # an idle spare launches at once
        self.owned[rec.group] = []
        rec.stages["drain"] = max(drains.values())
        chosen = yield from self._first_ready(rec, ready_at, len(group), spares)
        left = [n for n in ready_at if n not in chosen]
        self.spares += [n for n in left if self._healthy(n)]
        self.warm |= {n for n in left if self._healthy(n)}  # launched, not in the job: warm standbys
        if len(chosen) < len(group):
            rec.failed = f"only {len(chosen)} of {len(group)} nodes came up for training"
            self.spares += [n for n in chosen if self._healthy(n)]
            return
        rec.set_aside = [n for n in group if n in left and self._healthy(n)]
        extra = iter([n for n in spares if n in chosen])
        nodes = [n if n in chosen else next(extra) for n in group]  # a spare takes the slot of a node left out
        rec.took_slot.update({g: n for g, n in zip(group, nodes, strict=True) if g != n})
        t_ready = sim.now
        rec.stages["nodes_ready"] = t_ready - t0
        job = SwitchedTrainingJob(f"train-{rec.group}-{rec.index}", nodes)
        job.launched = True
        if ops.prestage_checkpoint:
            done = t0 + checkpoint_read_s(sim, len(group))
            if any(n in spares for n in nodes):  # a spare reads its slot's shard once it is chosen
                done = max(done, t_ready + checkpoint_read_s(sim, 1) / len(nodes))
            job.prestaged_until = done
        sim.add_workload(job)
        self.jobs[rec.group] = job
        yield from self._start_job(rec, job, job.restart("memory" if ops.prestage_checkpoint else "persistent"))
        rec.stages["job_start"] = sim.now - t_ready
        rec.node_ready_s = {n: ready_at[n] - t0 for n in job.nodes if n in ready_at}
        self._job_running(rec, job)

    def _first_ready(self, rec: SwitchRecord, ready_at: dict[str, float], need: int, spares: list[str]
                     ) -> Generator[Any, Any, list[str]]:
        """The first ``need`` nodes whose processes register (at ``ready_at``; a dead node never does). Every
        ``switch.node_health_poll_s`` the controller looks at the nodes still launching; when too few are left
        alive it launches a free spare in a dead one's place (pod scheduling onto the spare, then its launch).
        ``ready_at`` and ``spares`` grow with those replacements."""
        sim, poll = self.sim, self.sim.params.switch.node_health_poll_s
        tp = sim.params.training
        pending, chosen = dict(ready_at), list[str]()
        next_poll = sim.now + poll
        while len(chosen) < need and pending:
            n = min(pending, key=lambda x: pending[x])
            polled = next_poll < pending[n]
            yield sim.env.timeout(max(0.0, (next_poll if polled else pending[n]) - sim.now))
            if polled:
                next_poll += poll
                dead = [m for m in pending if not self._healthy(m)]
            else:
                del pending[n]
                if self._healthy(n):
                    chosen.append(n)
                    continue
                dead = [n]
            for m in dead:
                pending.pop(m, None)
            for m in dead:
                if len(chosen) + len(pending) >= need:
                    break
                spare = next((x for x in self.spares if self._healthy(x)), None)
                if spare is None:
                    break
                self.spares.remove(spare)
                rec.replaced[m] = spare
                t = (sim.durations.draw("training.replace_node_s", tp.replace_node_s)
                     + sim.durations.draw("training.launch_s", tp.launch_s))
                pending[spare] = ready_at[spare] = sim.now + t
                spares.append(spare)
        return chosen

    def _retire_after(self, qual: str, delay: float) -> Generator[Any, Any, None]:
        yield self.sim.env.timeout(delay)
        self.svc.retire_instance(qual)

    # ---- training -> inference --------------------------------------------------------------------------
    def _take_job(self, rec: SwitchRecord) -> TrainingJob | None:
        job = self.jobs.pop(rec.group, None)
        if job is None:
            rec.skipped = "the group is not training"
        return job

    def _to_inference(self, rec: SwitchRecord) -> Generator[Any, Any, None]:
        sim = self.sim
        job = self._take_job(rec)
        if job is None:
            return
        freed = list(job.nodes)
        hb = yield from hand_back(sim, job, self.plan.handback_checkpoint)
        self._judge_handback(hb)
        rec.handback = hb
        rec.stages.update(checkpoint=hb["checkpoint_s"], stop=hb["stop_s"])
        layout = self._day_layout(rec.group, freed)
        procs = [self._serve(rec, role, nodes) for role, nodes in layout]
        yield sim.env.all_of(procs)
        self.layout[rec.group] = layout

    def _to_inference_per_node(self, rec: SwitchRecord) -> Generator[Any, Any, None]:
        """The job checkpoints, then each node's training processes stop on their own clock; each instance of the
        day layout starts as soon as its own nodes are free. The hand-back ends when the last node is free."""
        sim = self.sim
        job = self._take_job(rec)
        if job is None:
            return
        freed = list(job.nodes)
        self.warm.clear()  # the standbys' training processes end with the job
        hb = yield from handback_checkpoint(sim, job, self.plan.handback_checkpoint)
        free_in = dict(zip(freed, stop_draws(sim, len(freed), self.plan.ops.stop_grace), strict=True))
        hb["stop_s"] = max(free_in.values())
        hb["duration_s"] = sim.now - rec.start_s + hb["stop_s"]
        self._judge_handback(hb)
        rec.handback = hb
        rec.stages.update(checkpoint=hb["checkpoint_s"], stop=hb["stop_s"])
        layout = self._day_layout(rec.group, freed)
        detach(sim, job)  # the job stopped at its checkpoint; what is left is each node's processes exiting
        procs = [self._serve(rec, role, nodes, delay=max(free_in.get(n, 0.0) for n in nodes))
                 for role, nodes in layout]
        yield sim.env.all_of(procs)
        self.layout[rec.group] = layout

    def _judge_handback(self, hb: dict[str, Any]) -> None:
        hb["on_time"] = hb["duration_s"] <= self.plan.handback_deadline_s
        if not hb["on_time"]:
            ckpt = ("wait for the step's memory checkpoint" if hb["checkpoint_to"].startswith("memory")
                    else "checkpoint write")
            hb["why_late"] = (f"{ckpt} {hb['checkpoint_s']:.0f} s + stop {hb['stop_s']:.0f} s > "
                              f"deadline {self.plan.handback_deadline_s:.0f} s")

    def _day_layout(self, group: str, freed: list[str]) -> list[tuple[Role, list[str]]]:
        original = self._groups[group].nodes
        back = dict(zip(original, freed, strict=False))  # a spare that replaced a node keeps its slot
        return [(r, [back.get(n, n) for n in ns]) for r, ns in self.layout[group]]

    def _serve(self, rec: SwitchRecord, role: Role, nodes: list[str], delay: float = 0.0) -> Any:
        sim = self.sim

        def run() -> Generator[Any, Any, None]:
            if delay > 0:
                yield sim.env.timeout(delay)
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
                rec.node_unit[n] = qual

        return sim.env.process(run())

    def _healthy(self, node: str) -> bool:
        return serviceable(self.sim, node)

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
        swap: dict[str, str] = {}
        for n in nodes:
            if self._healthy(n):
                continue
            pool = sorted(self.spares, key=lambda s: s not in self.warm)  # warm standbys first
            # a spare that may take work (session 36: its host alone was looked at, so one with a chip down was taken)
            cand = next((s for s in pool if ids.pod_of(s) == ids.pod_of(n) and self._healthy(s)), None)
            if cand is None:
                return None
            self.spares.remove(cand)
            swap[n] = cand
            rec.replaced[n] = cand
        return swap
