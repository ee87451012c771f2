"""The ``spec.superpod`` block of a scenario: superpod operations beyond repair (issue 21).

Three optional experiments, run by ``opsbrain superpod run`` and by ``opsbrain chaos run`` (scored against issue
21's bounds and journaled with the run, :mod:`opsbrain.ops.superpod_journal`):

* ``elastic`` -- a day of diurnal demand with bursts, decode/prefill node crashes, the autoscaler compared with
  static layouts on the same seeds;
* ``schedule`` -- a day/night plan (cron expressions) switching a node group between inference and training, with
  faults injected mid-switch;
* ``tenants`` -- two tenants on one pod and a fault campaign on tenant ``a`` (scripted items or random ones).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from faultlib.numbers import NoBoolNumbers
from opsbrain.ops.cron import Cron, CronError

DAY_S = 86400.0
MAX_RUN_S = 7 * DAY_S  # reason: a superpod-operations run covers days; a week bounds one seed's cost
LAUNCH_SPARES = 2  # reason: half the plan's default 4 spare nodes launch beside the group; 2 stay free for retries


class _Strict(NoBoolNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _params_ok(params: dict[str, Any]) -> dict[str, Any]:
    """The dotted overrides, checked against the twin's parameters now (session 36: an unknown name was refused only
    when the block ran, naming ``spec.superpod``; a value out of range named neither the file nor the block)."""
    from pydantic import ValidationError

    from opsbrain.ops.setup import ops_params

    try:
        ops_params(params)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None
    return params


class ElasticFault(_Strict):
    at: float = Field(ge=0, le=MAX_RUN_S, description="seconds from the start of the run")
    role: Literal["decode", "prefill"] = Field("decode", description="a node of the first such instance crashes")


PolicyName = Literal["autoscale", "static-peak", "static-paper"]


def _all_policies() -> list[PolicyName]:
    return ["autoscale", "static-peak", "static-paper"]


class ElasticBlock(_Strict):
    duration: float = Field(DAY_S, gt=0, le=MAX_RUN_S)
    pods: int = Field(2, ge=1, le=8)
    start_hour: float = Field(0.0, ge=0, lt=24, description="hour of the day the run starts at")
    peak_tokens_per_s: float = Field(180000.0, gt=0, description="decode tokens/s at the daily peak (no burst)")
    budget_npus: int = Field(736, ge=16, description="NPUs the service may hold at most")
    spare_nodes: int = Field(4, ge=0, le=64)
    faults: list[ElasticFault] = Field(default_factory=list)
    policies: list[PolicyName] = Field(default_factory=_all_policies, min_length=1)
    params: dict[str, Any] = Field(default_factory=dict, description="dotted parameter overrides "
                                   "(demand.trough_ratio: 0.4)")

    _params = field_validator("params")(_params_ok)

    @model_validator(mode="after")
    def _fits(self) -> ElasticBlock:
        """Faults inside the run; a budget that holds the smallest layout (session 36: a fault past the end never
        fired and the run passed; a budget below one decode and one prefill instance was exceeded by the opening
        layout, its NPU-hours above budget x hours)."""
        from opsbrain.ops.setup import ops_params

        for k, f in enumerate(self.faults):
            if f.at >= self.duration:
                raise ValueError(f"faults[{k}].at: {f.at:g} s is not inside the run (duration {self.duration:g} s)")
        p = ops_params(self.params)
        least = (p.inference.decode_nodes + p.inference.prefill_nodes_per_instance) * p.topology.npus_per_node
        if self.budget_npus < least:
            raise ValueError(f"budget_npus: {self.budget_npus} NPUs cannot hold the smallest layout, one decode "
                             f"({p.inference.decode_nodes} nodes) and one prefill instance "
                             f"({p.inference.prefill_nodes_per_instance} nodes): {least} NPUs")
        return self


class SwitchFault(_Strict):
    switch: int = Field(ge=0, description="index of the switch it hits (in firing order)")
    after: float = Field(ge=0, le=DAY_S, description="seconds after the switch starts")
    node: int = Field(0, ge=0, description="index into the group's nodes")
    kind: Literal["node_crash", "node_hang", "npu_off_bus"] = "node_crash"


class ScheduleBlock(_Strict):
    dusk: str = Field("0 22 * * *", description="cron: the flexible group switches to training")
    dawn: str = Field("0 6 * * *", description="cron: the flexible group switches back to inference")
    duration: float = Field(DAY_S + 7 * 3600.0, gt=0, le=MAX_RUN_S)
    peak_load: float = Field(0.7, gt=0, le=1.5, description="demand peak / day layout decode capacity at the SLO")
    handback_deadline_s: float = Field(120.0, gt=0, description="training must free its nodes this soon")
    faults: list[SwitchFault] = Field(default_factory=list)
    params: dict[str, Any] = Field(default_factory=dict)
    handback_checkpoint: Literal["storage", "memory", "memory-last-step"] = Field(
        "storage", description="storage: the job writes its checkpoint to storage before it frees its nodes; memory: "
        "MindIO ACP, the step's in-memory checkpoint, persisted to storage after the hand-back; memory-last-step: the "
        "job stops at once with its last step boundary's in-memory checkpoint (the step under way is lost)")
    operation: Literal["sequential", "overlapped"] = Field(
        "sequential", description="sequential: each stage for the whole group, one after another; overlapped: each "
        "node moves on when it is free, SIGKILL after a grace period, checkpoint pre-staged into host memory during "
        "the drain, training launched on N + k nodes (k = launch_spares of the plan's spares)")
    launch_spares: int = Field(LAUNCH_SPARES, ge=0, le=8,
                               description="overlapped: spares launched beside the group (N + k)")
    dusk_inflight: Literal["drain", "migrate"] = Field(
        "drain", description="the decode instances' in-flight sequences at dusk: drain (wait for the longest "
        "output) or migrate (Llumnix-style live migration with their KV cache to the instances that stay)")
    weights_from: Literal["ems", "peer"] = Field(
        "ems", description="where the dawn's instances load their weights: ems (the pool, the paper's 320 s for "
        "671 GB) or peer (P2P from an instance of the same role that serves the model, checkpoint-engine's mode for "
        "instances added while others serve; the EMS pool when none serves)")

    @field_validator("dusk", "dawn")
    @classmethod
    def _cron(cls, v: str) -> str:
        try:
            Cron.parse(v)
        except CronError as exc:
            raise ValueError(f"bad cron expression: {exc}") from None
        return v

    _params = field_validator("params")(_params_ok)

    @model_validator(mode="after")
    def _plan(self) -> ScheduleBlock:
        """dusk and dawn differ; a window in which the group switches to training also hands it back (else the
        hand-back bound would be met by no hand-back at all); each fault hits a switch the window holds and a node of
        the group. Session 36: a dusk equal to dawn left the group training with no hand-back; a hand-back at the
        window's very end passed as "0/0 on time" (tester 36c); a fault on a switch past the last was never injected;
        a node index past the group wrapped round to another node. A window with no switch at all runs, and its
        switch bounds are not judged (ops36)."""
        from opsbrain.ops.schedule_plan import window_switches
        from opsbrain.ops.setup import ops_params

        if Cron.parse(self.dusk).same_times(Cron.parse(self.dawn)):
            raise ValueError(f"dusk {self.dusk!r} and dawn {self.dawn!r} fire at the same times: the same minute "
                             "cannot switch the group both ways")
        p = ops_params(self.params)
        switches, first_dusk, back = window_switches(self.dusk, self.dawn, p.telemetry.epoch, self.duration)
        if first_dusk is not None and not back:
            raise ValueError(f"dawn: {self.dawn!r} does not fire after the dusk switch at {first_dusk:g} s and before "
                             f"the schedule's end at {self.duration:g} s ({self.duration / 3600:g} h): no hand-back "
                             "to check (lengthen the schedule's duration)")
        group = p.inference.decode_nodes + p.inference.prefill_nodes_per_instance
        for k, f in enumerate(self.faults):
            if f.switch >= switches:
                raise ValueError(f"faults[{k}].switch: {f.switch}, but the plan runs {switches} switch"
                                 f"{'es' * (switches != 1)} in {self.duration:g} s (indexes from 0): the fault would "
                                 "never be injected")
            if f.node >= group:
                raise ValueError(f"faults[{k}].node: {f.node}, but the flexible group has {group} nodes "
                                 f"(0-{group - 1})")
        return self


class TenantItem(_Strict):
    at: float = Field(ge=0, le=DAY_S)
    kind: Literal["node_crash", "node_hang", "hbm_uce", "npu_off_bus", "aicore_hang", "link_down"]
    target: str = Field(description="a component of tenant a (nodes 0-21 of pod 0)")
    diagnosed: str | None = Field(None, description="the component the diagnosis names (default: the target)")

    @model_validator(mode="after")
    def _components_exist(self) -> TenantItem:
        """The target is a component of the pod the kind can hit, and the diagnosed one a component of the same
        kind (before, a node's HBM as a node_crash target, or a diagnosed ``garbage``, failed mid-run)."""
        from faultlib.injection.selectors import resolve_id
        from faultlib.injection.spec import FaultPlanError

        index = _one_pod_index()
        try:
            resolve_id(index, self.kind, self.target)
        except FaultPlanError as exc:
            raise ValueError(str(exc).partition(": ")[2] or str(exc)) from None
        from faultlib import ids
        from opsbrain.ops.tenant_run import TENANT_NODES

        node = ids.node_of(self.target)
        a_nodes = TENANT_NODES["a"]
        if node is None or not node.startswith("pod0/node") or int(node.rpartition("node")[2]) not in a_nodes:
            raise ValueError(f"target {self.target!r} is not a component of tenant a (nodes {a_nodes.start}-"
                             f"{a_nodes.stop - 1} of pod 0): the campaign's faults hit tenant a, and a diagnosis on "
                             "tenant b's part is set with 'diagnosed'")
        if self.diagnosed is not None and index.kind_of(self.diagnosed) != index.kind_of(self.target):
            raise ValueError(f"diagnosed {self.diagnosed!r} is not a component of the target's kind "
                             f"({index.kind_of(self.target)}) in the pod")
        return self


@functools.cache
def _one_pod_index() -> Any:
    """The components of one pod (the tenants' pod), built once."""
    from faultlib.injection.selectors import TargetIndex
    from faultlib.simparams import SimParams
    from faultlib.topology import Topology

    return TargetIndex(Topology.build(SimParams().topology, 1))


class TenantsBlock(_Strict):
    campaign: list[TenantItem] = Field(default_factory=list)
    random_faults: int = Field(0, ge=0, le=50, description="add this many random faults on tenant a per seed")
    wrong_share: float = Field(0.3, ge=0, le=1, description="share of random faults diagnosed on tenant b's part")


class SuperpodSpec(_Strict):
    seeds: int = Field(3, ge=1, le=100, description="seeds per experiment (seed, seed + 1, ...)")
    elastic: ElasticBlock | None = None
    schedule: ScheduleBlock | None = None
    tenants: TenantsBlock | None = None
