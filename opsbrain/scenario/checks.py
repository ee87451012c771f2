"""The checks across a scenario's spec (references between its parts), run on the parts that are valid.

:class:`SpecParts` holds a spec's parts: all of a valid :class:`~opsbrain.scenario.schema.Spec` (its validator runs
the checks), or, for a file with field errors, each part that validates on its own (the loader runs the checks on
them, and the plan's checks: :func:`opsbrain.scenario.plan.plan_errors`). A check that needs a part the file got
wrong is skipped, not guessed: a probe of a workload whose ``kind`` is misspelt is not checked against its kind, a
cycle through a fault that is itself invalid is not looked for. Session 46 (validate46): these checks ran only on
a file whose every field was valid, so a file with mistakes of several kinds took several rounds to show them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from faultlib.faults.catalog import CATALOG
from opsbrain.scenario.schema import (
    MAX_SWEEPS,
    WORKLOAD_METRICS,
    ComponentState,
    Expectation,
    FaultItem,
    Probe,
    RandomFaults,
    Spec,
    SweepSpec,
    TopologySpec,
    WorkloadSpec,
)


@dataclass
class SpecParts:
    """A spec's parts that are valid; list items as (index in the file, item). ``None``: the part is not valid (or,
    ``random``, not given)."""

    duration: float | None = None
    topology: TopologySpec | None = None
    pods: int | None = None
    """``topology.pods`` when valid (a bad ``spares`` leaves the targets checkable)."""
    workloads: list[tuple[int, WorkloadSpec]] = field(default_factory=list)
    workload_names: list[str] = field(default_factory=list)
    """Every workload name that can be read, valid item or not (in order)."""
    workload_kinds: dict[str, str | None] = field(default_factory=dict)
    """Name -> kind; None where the item is not valid (its kind is not known)."""
    names_complete: bool = True
    """Every workload's name could be read: a name missing from them is unknown."""
    probes: list[tuple[int, Probe]] = field(default_factory=list)
    faults: list[tuple[int, Any]] = field(default_factory=list)
    fault_count: int | None = 0
    """How many items ``faults`` has, valid or not (None: ``faults`` is not a list)."""
    expectations: list[tuple[int, Expectation]] = field(default_factory=list)
    components: list[tuple[int, ComponentState]] = field(default_factory=list)
    spares_taken: list[str] | None = field(default_factory=list)
    random: RandomFaults | None = None
    sweeps: SweepSpec | None = None

    @classmethod
    def of_spec(cls, spec: Spec) -> SpecParts:
        return cls(spec.duration, spec.topology, spec.topology.pods, list(enumerate(spec.workloads)),
                   [w.name for w in spec.workloads], {w.name: w.kind for w in spec.workloads}, True,
                   list(enumerate(spec.steady_state.probes)), list(enumerate(spec.faults)), len(spec.faults),
                   list(enumerate(spec.expectations)), list(enumerate(spec.initial_state.components)),
                   list(spec.initial_state.spares_taken), spec.random, spec.sweeps)

    @classmethod
    def of_data(cls, spec: Any, refused: Collection[str]) -> SpecParts | None:
        """The parts of a parsed ``spec`` mapping that validate on their own and that no error in ``refused`` (the
        YAML paths of the file's field errors) names: a lax reading alone would take ``duration: true`` for 1.0."""
        if not isinstance(spec, dict) or any(p in ("spec", "(top)") for p in refused):
            return None

        def alone(path: str, adapter: Any, value: Any) -> Any:
            if any(p == path or p.startswith((f"{path}.", f"{path}[")) for p in refused):
                return None
            try:
                return adapter.validate_python(value)
            except ValidationError:
                return None

        def items(path: str, adapter: Any, raw: Any) -> list[tuple[int, Any]]:
            return [(i, v) for i, item in enumerate(raw if isinstance(raw, list) else [])
                    if (v := alone(f"{path}[{i}]", adapter, item)) is not None]

        sub: dict[str, dict[str, Any]] = {k: v if isinstance(v := spec.get(k), dict) else {}
                                          for k in ("steady_state", "initial_state")}
        raw_w, raw_f = spec.get("workloads", []), spec.get("faults", [])
        topology = spec.get("topology", {})
        pods = alone("spec.topology.pods", _PODS, topology.get("pods", TopologySpec.model_fields["pods"].default)) \
            if isinstance(topology, dict) else None
        parts = cls(alone("spec.duration", _DURATION, spec.get("duration", Spec.model_fields["duration"].default)),
                    alone("spec.topology", _TOPOLOGY, topology), pods,
                    items("spec.workloads", _WORKLOAD, raw_w),
                    probes=items("spec.steady_state.probes", _PROBE, sub["steady_state"].get("probes", [])),
                    faults=items("spec.faults", _FAULT, raw_f),
                    fault_count=len(raw_f) if isinstance(raw_f, list) else None,
                    expectations=items("spec.expectations", _EXPECTATION, spec.get("expectations", [])),
                    components=items("spec.initial_state.components", _COMPONENT,
                                     sub["initial_state"].get("components", [])),
                    spares_taken=alone("spec.initial_state.spares_taken", _NAMES,
                                       sub["initial_state"].get("spares_taken", [])),
                    random=alone("spec.random", _RANDOM, spec["random"]) if spec.get("random") is not None else None,
                    sweeps=alone("spec.sweeps", _SWEEPS, spec.get("sweeps", {})))
        valid = dict(parts.workloads)
        for i, w in enumerate(raw_w if isinstance(raw_w, list) else []):
            name = w.get("name") if isinstance(w, dict) else None
            if i in valid or isinstance(name, str):  # a name off the pattern is still the name a reference gives
                parts.workload_names.append(valid[i].name if i in valid else str(name))
                parts.workload_kinds[parts.workload_names[-1]] = valid[i].kind if i in valid else None
            else:
                parts.names_complete = False
        parts.names_complete &= isinstance(raw_w, list)
        return parts


_DURATION: TypeAdapter[float] = TypeAdapter(Annotated[float, Spec.model_fields["duration"]])
_TOPOLOGY: TypeAdapter[TopologySpec] = TypeAdapter(TopologySpec)
_PODS: TypeAdapter[int] = TypeAdapter(Annotated[int, TopologySpec.model_fields["pods"]])
_WORKLOAD: TypeAdapter[WorkloadSpec] = TypeAdapter(WorkloadSpec)
_PROBE: TypeAdapter[Probe] = TypeAdapter(Probe)
_FAULT: TypeAdapter[Any] = TypeAdapter(FaultItem)
_EXPECTATION: TypeAdapter[Expectation] = TypeAdapter(Expectation)
_COMPONENT: TypeAdapter[ComponentState] = TypeAdapter(ComponentState)
_NAMES: TypeAdapter[list[str]] = TypeAdapter(list[str])
_RANDOM: TypeAdapter[RandomFaults] = TypeAdapter(RandomFaults)
_SWEEPS: TypeAdapter[SweepSpec] = TypeAdapter(SweepSpec)


def reference_problems(p: SpecParts) -> Iterator[str]:
    """Every problem between the parts, each a one-line ``path: reason`` (the path inside ``spec``)."""
    yield from _check_unique([(i, w.name) for i, w in p.workloads], "workloads[{}].name",
                             "is also the name of workloads[{}] (workload names must be unique)")
    yield from _check_unique([(i, x.name) for i, x in p.probes], "steady_state.probes[{}].name",
                             "is also the name of probes[{}] (each probe's readings, baseline and time off its "
                             "bar are kept under its name)")
    yield from _check_unique([(i, c.id) for i, c in p.components], "initial_state.components[{}].id",
                             "is also the id of components[{}] (give each component's starting state in one item)")
    kinds = p.workload_kinds
    known = f"(workloads: {', '.join(p.workload_names) or 'none'})"
    for i, probe in p.probes:
        if probe.workload is not None and probe.workload not in kinds:
            if p.names_complete:
                yield f"steady_state.probes[{i}].workload: unknown workload {probe.workload!r} {known}"
            continue
        need = WORKLOAD_METRICS.get(probe.metric)
        has = "names no workload" if probe.workload is None else \
            f"names {probe.workload!r}, a {kinds[probe.workload]} workload"
        if need is not None and (probe.workload is None or kinds[probe.workload] not in (need, None)):
            article = "an" if need == "inference" else "a"
            yield (f"steady_state.probes[{i}].workload: {probe.metric} is a metric of {article} {need} workload; "
                   f"the probe {has}")
    for k, e in p.expectations:
        if e.fault is not None and p.fault_count is not None and e.fault >= p.fault_count:
            from opsbrain.report.text import count

            yield (f"expectations[{k}].fault: faults[{e.fault}] does not exist (the scenario has "
                   f"{count(p.fault_count, 'fault')})")
        if e.degraded_operation is not None and e.degraded_operation.workload not in kinds and p.names_complete:
            yield (f"expectations[{k}].degraded_operation.workload: unknown workload "
                   f"{e.degraded_operation.workload!r} {known}")
    yield from _check_fault_links(p.faults, p.fault_count or 0, kinds, p.names_complete)
    yield from _check_durations(p.faults)
    seen: dict[tuple[Any, ...], int] = {}
    for i, f in p.faults:
        if getattr(f, "target", None) is not None and isinstance(f.at, int | float):
            key = (getattr(f, "kind", None), f.target, float(f.at))
            if key in seen:
                yield (f"faults[{i}]: repeats faults[{seen[key]}] (the same kind, target and time): one fault "
                       "cannot start twice at once")  # its item's path (session 46: it said 'spec:')
            seen.setdefault(key, i)
        if p.duration is not None and (late := late_fault(i, f.at, p.duration)) is not None:
            yield late
    s = p.sweeps
    if s is not None and p.duration is not None and s.enabled and s.interval is not None and \
            p.duration / s.interval > MAX_SWEEPS:
        yield f"sweeps.interval {s.interval:g} s gives more than {MAX_SWEEPS} sweeps in {p.duration:g} s"


def late_fault(i: int, at: Any, duration: float) -> str | None:
    """The problem of ``faults[i]`` starting at or after the run's end (None for an event trigger or a time before
    it)."""
    if isinstance(at, int | float) and at >= duration:
        return (f"faults[{i}].at: {at!r} s is not before the end of the run (duration {duration!r} s): the fault "
                "would never start")
    return None


def _check_unique(values: Iterable[tuple[int, str]], where: str, said: str) -> Iterator[str]:
    """Each value met again: ``where`` and ``said`` take the later and the first index."""
    first: dict[str, int] = {}
    for j, v in values:
        if v in first:
            yield f"{where.format(j)}: {v!r} {said.format(first[v])}"
        first.setdefault(v, j)


def _check_durations(faults: list[tuple[int, Any]]) -> Iterator[str]:
    """A ``duration`` only where the kind's model reads it: when the fault heals, or its part's repair time
    (``faultlib.injection.replay``'s DURATION_KINDS and REPAIR_KINDS, checked against the models by a test); the
    other models never read it, so it would be ignored without a word."""
    from faultlib.injection.replay import DURATION_KINDS, REPAIR_KINDS

    for i, f in faults:
        kind = getattr(f, "kind", None)
        if f.duration is not None and kind in CATALOG and kind not in DURATION_KINDS | REPAIR_KINDS:
            yield (f"faults[{i}].duration: {kind} takes no duration: it lasts until the response (or a "
                   f"replacement) ends it. A duration is when the fault heals for "
                   f"{', '.join(sorted(DURATION_KINDS))}, and the part's repair time for "
                   f"{', '.join(sorted(REPAIR_KINDS))}")


def _check_fault_links(faults: list[tuple[int, Any]], n: int, workloads: dict[str, str | None],
                       names_complete: bool) -> Iterator[str]:
    """Event triggers name existing training jobs and faults; ``symptom_of`` and ``fault_start`` form no cycle
    (``faults``: the valid ones of ``n``; a cycle through an invalid fault is not looked for)."""
    after: dict[int, int] = {}

    def other(i: int, k: int) -> str:
        got = "itself" if k == i else f"faults[{k}], which does not exist"
        others = "there is no other fault" if n == 1 else f"0..{n - 1} other than {i}"
        return f"must be the index of another fault ({others}), got {k}: {got}"

    for i, f in faults:
        t = f.trigger
        job = None if t is None or t.workload is None else \
            workloads.get(t.workload, "unknown" if names_complete else None)
        if t is not None and job not in ("training", None):  # None: no job named, or its kind is not known
            jobs = ", ".join(w for w, kind in workloads.items() if kind == "training") or "none"
            yield (f"faults[{i}].at.workload: {t.workload!r} is not a training workload of this scenario "
                   f"(training workloads: {jobs})")
        if t is not None and t.fault is not None:
            if t.fault >= n or t.fault == i:
                yield f"faults[{i}].at.fault: {other(i, t.fault)}"
            else:
                after[i] = t.fault
        if f.symptom_of is not None and (f.symptom_of >= n or f.symptom_of == i):
            yield f"faults[{i}].symptom_of: {other(i, f.symptom_of)}"
    symptoms = {i: f.symptom_of for i, f in faults if f.symptom_of is not None and f.symptom_of < n
                and f.symptom_of != i}
    for links, what in ((after, "at.fault"), (symptoms, "symptom_of")):
        in_cycle: set[int] = set()
        for start in links:
            seen, k = {start}, start
            while k in links:
                k = links[k]
                if k in seen:
                    if k not in in_cycle:  # one line per cycle, at the first fault that leads into it
                        yield f"faults[{start}].{what}: the faults refer to each other in a cycle"
                    in_cycle |= seen
                    break
                seen.add(k)
