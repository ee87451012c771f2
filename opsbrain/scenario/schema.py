"""The ChaosScenario file format, as typed pydantic models (JSON Schema: ``opsbrain chaos schema``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from faultlib.faults.catalog import CATALOG
from faultlib.topology import TopologyParams

MAX_DURATION_S = 90 * 86400  # reason: the longest campaign run (chaos campaign --days is at most 90)
MAX_SEED = 2**63 - 1  # reason: the run store keeps seeds as SQLite INTEGER (signed 64 bits)
NODES_PER_POD = TopologyParams().nodes_per_pod
MAX_SWEEPS = 30_000  # reason: the default 300 s interval over the longest run (90 days) is 25,920 sweeps

FaultKindName = Literal[tuple(sorted(CATALOG))]  # type: ignore[valid-type]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # .inf/.nan are not numbers here


class Metadata(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="scenario name (lower-case, dashes)")
    description: str = Field(min_length=1, description="one line saying what the scenario shows")
    tags: list[str] = Field(default_factory=list)


class TopologySpec(Strict):
    pods: int = Field(1, ge=1, le=64)
    spares: int = Field(2, ge=0, le=NODES_PER_POD,
                        description="warm spare nodes per pod, taken from the highest node numbers")


class WorkloadSpec(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: Literal["training", "inference"]
    first_node: int = Field(0, ge=0, le=64 * NODES_PER_POD,
                            description="index of the first node the workload is placed on")
    nodes: int | None = Field(None, ge=1, le=64 * NODES_PER_POD,
                              description="node count (training); inference uses the paper's 32")
    params: dict[str, Any] = Field(default_factory=dict, description="overrides of training/inference parameters")


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


class Selector(Strict):
    kind: str | None = None
    node: str | None = None
    rack: str | None = None
    plane: int | None = None
    pod: int | None = None


class FaultItem(Strict):
    at: float = Field(ge=0, le=MAX_DURATION_S, description="seconds from the start of the run")
    kind: FaultKindName
    target: str | None = None
    selector: Selector | None = None
    mode: Literal["one", "all", "fixed", "fixed-percent", "random-max-percent"] = "one"
    value: float | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    duration: float | None = Field(None, gt=0, le=MAX_DURATION_S)

    @model_validator(mode="after")
    def _target_or_selector(self) -> FaultItem:
        if (self.target is None) == (self.selector is None):
            raise ValueError("give exactly one of target or selector")
        return self


class RandomFaults(Strict):
    profile: str = "llama3"
    bursty: bool = False
    lemons: bool = False
    background: bool = True


class Guard(Strict):
    """An abort condition checked during the run."""

    kind: Literal["isolated_npu_share", "isolated_node_share", "slo_breach_s"]
    max: float = Field(ge=0)


class Expectation(Strict):
    """What the fault with index ``fault`` (in ``faults``) should get."""

    fault: int = Field(ge=0)
    diagnosis: FaultKindName | Literal["none"] | None = None
    component: str | None = None
    ttr_max_s: float | None = Field(None, ge=0)
    no_action: bool = False


class SweepSpec(Strict):
    """In-run health sweeps (issue 7): the checks of ``opsbrain sweep`` every ``interval`` simulated seconds; an
    Alarm that predicts an optical failure opens a proactive incident (drain the link before it goes down)."""

    enabled: bool = True
    interval: float | None = Field(None, gt=0, description="seconds between sweeps (default: the sweep parameter "
                                   "interval_s, 300 s)")


class Spec(Strict):
    duration: float = Field(3600.0, gt=0, le=MAX_DURATION_S, description="simulated seconds")
    seed: int = Field(0, ge=0, le=MAX_SEED)
    policy: Literal["auto", "manual", "vendor-default"] = "auto"
    topology: TopologySpec = Field(default_factory=TopologySpec)
    workloads: list[WorkloadSpec] = Field(default_factory=list)
    steady_state: SteadyState = Field(default_factory=SteadyState)
    faults: list[FaultItem] = Field(default_factory=list)
    random: RandomFaults | None = None
    noise: bool = True
    guards: list[Guard] = Field(default_factory=list)
    expectations: list[Expectation] = Field(default_factory=list)
    sweeps: SweepSpec = Field(default_factory=SweepSpec)

    @model_validator(mode="after")
    def _references(self) -> Spec:
        names = [w.name for w in self.workloads]
        if len(set(names)) != len(names):
            raise ValueError("workload names must be unique")
        for p in self.steady_state.probes:
            if p.workload is not None and p.workload not in names:
                raise ValueError(f"probe {p.name!r} names unknown workload {p.workload!r}")
        for e in self.expectations:
            if e.fault >= len(self.faults):
                raise ValueError(f"expectation refers to faults[{e.fault}], which does not exist")
        if self.sweeps.enabled and self.sweeps.interval is not None and \
                self.duration / self.sweeps.interval > MAX_SWEEPS:
            raise ValueError(f"sweeps.interval {self.sweeps.interval:g} s gives more than {MAX_SWEEPS} sweeps in "
                             f"{self.duration:g} s")
        return self


class Scenario(Strict):
    apiVersion: Literal["opsbrain/v1"]
    kind: Literal["ChaosScenario"]
    metadata: Metadata
    spec: Spec
