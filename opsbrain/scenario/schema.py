"""The ChaosScenario file format, as typed pydantic models (JSON Schema: ``opsbrain chaos schema``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, create_model, field_validator, model_validator

from faultlib.faults.catalog import CATALOG
from faultlib.numbers import NoBoolNumbers
from faultlib.topology import TopologyParams
from opsbrain.policies import Policy
from opsbrain.recovery.schema import ACTIONS
from opsbrain.scenario.fault_params import params_model
from opsbrain.scenario.superpod import SuperpodSpec

MAX_DURATION_S = 90 * 86400  # reason: the longest campaign run (chaos campaign --days is at most 90)
MAX_SEED = 2**63 - 1  # reason: the run store keeps seeds as SQLite INTEGER (signed 64 bits)
NODES_PER_POD = TopologyParams().nodes_per_pod
MIN_SWEEP_INTERVAL_S = 30.0
"""reason: the optical trend keeps every sweep's Rx readings of every module for its window (trend_window_s, 2 h),
so a sweep costs in proportion to the window's sweep count: 240 at 30 s. A 3 s interval took 42 s for a 1-hour run
and 0.12 s (accepted before) would have taken hours (session 25); the default is 300 s."""
MAX_SWEEPS = 30_000  # reason: the default 300 s interval over the longest run (90 days) is 25,920 sweeps

if TYPE_CHECKING:
    FaultKindName = str
    DiagnosisName = str
else:  # a Literal of the catalog's kinds, so that pydantic rejects an unknown kind by name
    FaultKindName = Literal[tuple(sorted(CATALOG))]
    DiagnosisName = Literal[(*sorted(CATALOG), "none")]  # an expectation's class, or none (no diagnosis)


class Strict(NoBoolNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # .inf/.nan are not numbers here


NAME_MAX = 100
"""Characters of a scenario's or workload's name (reason: the name goes into the run's file names, at most 255 bytes
with its id and suffix, and into the run store's LIKE patterns; a 300-character name failed only after the run)."""


class Metadata(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=NAME_MAX,
                      description="scenario name (lower-case, dashes; it names the run's files)")
    description: str = Field(min_length=1, max_length=4096, description="one line saying what the scenario shows")
    tags: list[str] = Field(default_factory=list)
    expected_verdict: Literal["passed", "failed"] = Field(
        "passed", description="the verdict the scenario is meant to end with: 'failed' for a baseline that shows "
                              "what goes wrong (e.g. the manual policy deviating), or a known gap; needs a reason")
    expected_reason: str | None = Field(None, min_length=1, description="why the expected verdict is 'failed'")

    @model_validator(mode="after")
    def _failed_needs_a_reason(self) -> Metadata:
        if self.expected_verdict == "failed" and not self.expected_reason:
            raise ValueError("expected_verdict 'failed' needs expected_reason (why the scenario is meant to fail)")
        return self


class TopologySpec(Strict):
    pods: int = Field(1, ge=1, le=64)
    spares: int = Field(2, ge=0, le=NODES_PER_POD,
                        description="warm spare nodes per pod, taken from the highest node numbers")


class WorkloadSpec(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=NAME_MAX)
    kind: Literal["training", "inference"]
    first_node: int = Field(0, ge=0, le=64 * NODES_PER_POD,
                            description="index of the first node the workload is placed on")
    nodes: int | None = Field(None, ge=1, le=64 * NODES_PER_POD,
                              description="node count (training); inference uses the paper's 32")
    params: dict[str, Any] = Field(default_factory=dict, description="overrides of training/inference parameters")

    @model_validator(mode="after")
    def _inference_size(self) -> WorkloadSpec:
        if self.kind == "inference" and self.nodes is not None and self.nodes != INFERENCE_NODES:
            raise ValueError(f"nodes: an inference workload takes the paper's {INFERENCE_NODES} nodes (give no "
                             f"'nodes', or {INFERENCE_NODES}); {self.nodes} cannot be placed")
        return self


INFERENCE_NODES = 32
"""The inference service's size: the CloudMatrix384 paper's deployment (docs/parameters.md, the workloads)."""

WORKLOAD_METRICS = {"decode_tokens_per_npu": "inference", "tpot_ms": "inference", "ttft_ms": "inference",
                    "step_rate": "training"}
"""The probe metrics a workload gives, and its kind (the pod's own: isolated_npus, failed_links)."""


PROBE_UNITS = {"decode_tokens_per_npu": "tokens/s/NPU", "tpot_ms": "ms", "ttft_ms": "ms", "step_rate": "steps/s",
               "isolated_npus": "NPUs", "failed_links": "links"}
"""The unit of each probe metric (the monitor's readings: faultlib's throughput_at, TPOT/TTFT in ms, counts)."""


class Probe(Strict):
    """A steady-state probe: ``metric`` of ``workload`` compared with ``value`` (or a share of its baseline)."""

    name: str
    metric: Literal["decode_tokens_per_npu", "tpot_ms", "ttft_ms", "step_rate", "isolated_npus", "failed_links"]
    workload: str | None = None
    op: Literal[">=", "<=", "=="]
    value: float | None = None
    of_baseline: float | None = Field(None, gt=0, description="compare with this share of the fault-free value")

    @model_validator(mode="after")
    def _one_reference(self) -> Probe:
        if (self.value is None) == (self.of_baseline is None):
            raise ValueError("give exactly one of value or of_baseline")
        return self


class SteadyState(Strict):
    probes: list[Probe] = Field(default_factory=list)
    tolerance_s: float = Field(300.0, ge=0, description="how long a probe may deviate during the run before the "
                               "steady state counts as deviated (recovery time allowance)")


Pick = int | str | list[int | str]
"""A selector value: an index, a name ("node3", "pod0/node3") or a list of them (see faultlib.injection.selectors)."""


class Selector(Strict):
    kind: str | list[str] | None = None
    node: Pick | None = None
    rack: Pick | None = None
    plane: int | list[int] | None = None
    pod: Pick | None = None


JOB_EVENTS = ("checkpoint_write_start", "checkpoint_write_end", "recovery_start", "job_stalled", "job_down")
"""Training-job events a fault can wait for (the twin's event trace: a persistent checkpoint write begins or
ends, a restart or in-place recovery begins, the job stalls, the job goes down)."""
EVENTS = (*JOB_EVENTS, "fault_start")


class EventTrigger(Strict):
    """Start a fault ``after_s`` seconds after the ``occurrence``-th ``event`` (instead of at a fixed time)."""

    event: Literal[EVENTS]  # type: ignore[valid-type]
    after_s: float = Field(0.0, ge=0, le=MAX_DURATION_S, description="delay after the event")
    workload: str | None = Field(None, description="the training job whose event counts (default: any)")
    fault: int | None = Field(None, ge=0, description="fault_start: index (in faults) of the fault whose start "
                              "counts")
    occurrence: int = Field(1, ge=1, le=100_000, description="which occurrence of the event (1: the first)")

    @model_validator(mode="after")
    def _fault_for_fault_start(self) -> EventTrigger:
        if (self.event == "fault_start") != (self.fault is not None):
            raise ValueError("fault_start needs 'fault' (the index of the other fault); other events take none")
        if self.event == "fault_start" and self.workload is not None:
            raise ValueError("fault_start takes no workload")
        return self


class _FaultItemBase(Strict):
    at: float | EventTrigger = Field(description="seconds from the start of the run, or an event trigger")
    target: str | None = None
    selector: Selector | None = None
    mode: Literal["one", "all", "fixed", "fixed-percent", "random-max-percent"] = "one"
    value: int | float | None = Field(None, description="fixed: a count >= 1; the percent modes: a percentage")
    duration: float | None = Field(None, gt=0, le=MAX_DURATION_S)
    symptom_of: int | None = Field(None, ge=0, description="index (in faults) of the fault this one is a symptom "
                                   "of: scored with it, not as a fault of its own")

    @field_validator("at")
    @classmethod
    def _at_in_run(cls, v: float | EventTrigger) -> float | EventTrigger:
        if isinstance(v, float | int) and not 0 <= v <= MAX_DURATION_S:
            raise ValueError(f"must be between 0 and {MAX_DURATION_S:,.0f} seconds ({MAX_DURATION_S / 86400:g} days), "
                             f"got {v:g}")
        return v

    @model_validator(mode="after")
    def _target_or_selector(self) -> _FaultItemBase:
        if (self.target is None) == (self.selector is None):
            raise ValueError("give exactly one of target or selector")
        v = self.value
        if self.mode == "fixed" and not (isinstance(v, int) and v >= 1):
            raise ValueError(f"mode fixed needs an integer value >= 1, got {v!r}")
        if self.mode in ("fixed-percent", "random-max-percent") and not (v is not None and 0 < v <= 100):
            raise ValueError(f"mode {self.mode} needs a percentage value in (0, 100], got {v!r}")
        if self.mode in ("one", "all") and v is not None:
            raise ValueError(f"mode {self.mode} takes no value")
        return self

    @property
    def trigger(self) -> EventTrigger | None:
        return self.at if isinstance(self.at, EventTrigger) else None


def _fault_item(kind: str) -> type[_FaultItemBase]:
    """The fault item of one kind: its own ``params`` model (unknown keys, out-of-range values refused)."""
    pm = params_model(kind)
    name = "".join(w.title() for w in kind.split("_")) + "Fault"
    model: type[_FaultItemBase] = create_model(
        name, __base__=_FaultItemBase, __doc__=f"Fault kind {kind}: {CATALOG[kind].summary}.",
        kind=(Literal[kind], ...), params=(pm, Field(default_factory=pm)))  # type: ignore[arg-type]
    return model


class AnyKindFault(_FaultItemBase):
    """A fault item of an unknown kind, checked for everything but its kind and params (to report all errors)."""

    kind: str
    params: dict[str, Any] = Field(default_factory=dict)


FAULT_ITEMS: dict[str, type[_FaultItemBase]] = {k: _fault_item(k) for k in sorted(CATALOG)}
if TYPE_CHECKING:
    FaultItem = _FaultItemBase
else:
    FaultItem = Annotated[Union[tuple(FAULT_ITEMS.values())], Field(discriminator="kind")]  # noqa: UP007
"""One scripted fault; the ``kind`` selects its params model (:mod:`opsbrain.scenario.fault_params`)."""


class RandomFaults(Strict):
    profile: str = "llama3"
    bursty: bool = False
    lemons: bool = False
    background: bool = True


class Guard(Strict):
    """An abort condition checked during the run."""

    kind: Literal["isolated_npu_share", "isolated_node_share", "slo_breach_s"]
    max: float = Field(ge=0)

    @model_validator(mode="after")
    def _share_at_most_one(self) -> Guard:
        if self.kind.endswith("_share") and self.max > 1:
            raise ValueError(f"{self.kind}'s max is a share, 0..1 (0.25 = a quarter); got {self.max:g}, which no "
                             "run can cross")
        return self


class DegradedOperation(Strict):
    """The workload keeps working, if degraded (fewer replicas, a smaller instance), rather than waiting down."""

    workload: str
    max_down_s: float | None = Field(None, ge=0, description="longest stretch the workload may do no work at all")
    min_share: float | None = Field(None, gt=0, le=1, description="at the end of the run it works at least at this "
                                    "share of its fault-free rate")

    @model_validator(mode="after")
    def _something(self) -> DegradedOperation:
        if self.max_down_s is None and self.min_share is None:
            raise ValueError("give max_down_s, min_share or both")
        return self


PER_FAULT = ("diagnosis", "component", "ttr_max_s", "no_action")
RUN_LEVEL = ("false_alarms_max", "degraded_operation", "report_contains")


class Expectation(Strict):
    """What the fault with index ``fault`` (in ``faults``) should get; without ``fault``, what the whole run should
    show (false alarms, degraded operation, report content). ``actions_any`` fits both: the fault's response (or
    any response) completed at least one of these actions. Checked at the end of the run; any unmet expectation
    fails the verdict."""

    fault: int | None = Field(None, ge=0)
    diagnosis: DiagnosisName | None = None  # one Literal: a wrong name is one error, not one per union member
    component: str | None = None
    ttr_max_s: float | None = Field(None, ge=0)
    no_action: bool = False
    actions_any: list[Literal[tuple(ACTIONS)]] | None = Field(  # type: ignore[valid-type]
        None, min_length=1, description="at least one of these runbook actions succeeded")
    false_alarms_max: int | None = Field(None, ge=0, description="at most this many false-positive incidents")
    degraded_operation: DegradedOperation | None = None
    report_contains: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, min_length=1, description="texts the run's Markdown report must contain (case-insensitive)")

    @model_validator(mode="after")
    def _scope(self) -> Expectation:
        given = {k for k in (*PER_FAULT, *RUN_LEVEL, "actions_any") if getattr(self, k) is not None
                 and getattr(self, k) is not False}  # false_alarms_max: 0 is given
        if self.fault is None and given & set(PER_FAULT):
            raise ValueError(f"{', '.join(sorted(given & set(PER_FAULT)))} need 'fault' (the index of a fault)")
        if self.fault is not None and given & set(RUN_LEVEL):
            raise ValueError(f"{', '.join(sorted(given & set(RUN_LEVEL)))} apply to the whole run: give no 'fault'")
        if self.fault is None and not given:
            raise ValueError("an expectation without 'fault' needs one of: actions_any, " + ", ".join(RUN_LEVEL))
        return self


class NoiseSpec(Strict):
    scale: float = Field(1.0, ge=0, le=100, description="multiplies the rates of background noise events (benign "
                         "CE counts and bursts, self-healing flaps, CRC errors); 0: no noise events")


class ComponentState(Strict):
    """The state a component starts the run in (a part already sick, out of service or ageing)."""

    id: str = Field(min_length=1, description="component, link or optical-module id")
    health: Literal["degraded", "failed", "isolated", "cordoned"] | None = None
    lanes_down: int | None = Field(None, ge=1, le=64, description="a link: lanes already lost")
    rx_dbm: float | None = Field(None, ge=-40, le=10, description="a link or optical module: Rx power every lane "
                                 "of it (each module of a link) reads at the start, in dBm (healthy ~-2)")

    @model_validator(mode="after")
    def _something(self) -> ComponentState:
        if self.health is None and self.lanes_down is None and self.rx_dbm is None:
            raise ValueError("give health, lanes_down or rx_dbm")
        return self


class InitialState(Strict):
    spares_taken: list[str] = Field(default_factory=list, description="warm spares already in use at the start "
                                    "(removed from the pool)")
    components: list[ComponentState] = Field(default_factory=list)


class SweepSpec(Strict):
    """In-run health sweeps (issue 7): the checks of ``opsbrain sweep`` every ``interval`` simulated seconds; an
    Alarm that predicts an optical failure opens a proactive incident (drain the link before it goes down)."""

    enabled: bool = True
    interval: float | None = Field(None, ge=MIN_SWEEP_INTERVAL_S, description="seconds between sweeps (default: "
                                   "the sweep parameter interval_s, 300 s)")


PROBLEMS_SEP = "\n"
"""Between the problems of one check across a spec (each a one-line ``path: reason``; the loader splits them)."""


class Spec(Strict):
    duration: float = Field(3600.0, gt=0, le=MAX_DURATION_S, description="simulated seconds")
    seed: int = Field(0, ge=0, le=MAX_SEED)
    policy: Policy = "auto"
    topology: TopologySpec = Field(default_factory=TopologySpec)
    workloads: list[WorkloadSpec] = Field(default_factory=list)
    steady_state: SteadyState = Field(default_factory=SteadyState)
    faults: list[FaultItem] = Field(default_factory=list)
    random: RandomFaults | None = None
    noise: bool | NoiseSpec = Field(True, description="background noise: true, false, or {scale: x}")
    initial_state: InitialState = Field(default_factory=InitialState)
    guards: list[Guard] = Field(default_factory=list)
    expectations: list[Expectation] = Field(default_factory=list)
    sweeps: SweepSpec = Field(default_factory=SweepSpec)
    superpod: SuperpodSpec | None = Field(None, description="superpod operations (opsbrain superpod run)")

    @model_validator(mode="after")
    def _references(self) -> Spec:
        """The checks across the spec; every problem found, one per line (:data:`PROBLEMS_SEP`; the loader gives
        each its own YAML path). Session 36: the first problem stopped the others."""
        from opsbrain.scenario.checks import SpecParts, reference_problems

        problems = list(reference_problems(SpecParts.of_spec(self)))
        if problems:
            raise ValueError(PROBLEMS_SEP.join(problems))
        return self

    @property
    def noise_scale(self) -> float:
        """0 (no noise), 1 (the default rates) or the scale given."""
        if isinstance(self.noise, NoiseSpec):
            return self.noise.scale
        return 1.0 if self.noise else 0.0


class Scenario(Strict):
    apiVersion: Literal["opsbrain/v1"]
    kind: Literal["ChaosScenario"]
    metadata: Metadata
    spec: Spec
