"""What a campaign runs: the cluster, its workloads, the fault profile, and one plan per (seed, policy).

Layouts (``CampaignSpec.layout``):
- ``mixed`` (the default for one pod): the paper's inference layout on nodes 0-31, a training job on nodes 32-45,
  nodes 46-47 as warm spares;
- ``cluster`` (the default for several pods): one training job spanning nodes 0-45 of every pod (its
  data-parallel traffic between pods crosses the RDMA plane, see ``faultlib.workloads.training``), nodes 46-47 of
  every pod as warm spares.

Every seed draws its fault timeline from the same streams as ``chaos run`` (``build_plan``); both policies of a
seed share the timeline, so auto and manual are compared on the same faults.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from faultlib import ids
from faultlib.injection.profiles import PROFILES, draw_timeline
from faultlib.injection.spec import Timeline
from faultlib.numbers import NoBoolNumbers
from faultlib.params import ParamGroup, apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.policies import Policy
from opsbrain.scenario.plan import Plan
from opsbrain.scenario.schema import (
    MAX_SEED,
    Metadata,
    RandomFaults,
    Scenario,
    Spec,
    SweepSpec,
    TopologySpec,
    WorkloadSpec,
)

CAMPAIGN_FORMAT = 1  # bump when a change makes stored seed results incomparable with new ones
CHEAP_NOISE = {"noise.temp_update_interval_s": 48 * 3600.0}
"""``cheap_noise``: every noise family stays on in every pod; only the temperature wander of each NPU and HBM stack
is re-drawn every 48 h instead of every 12 h. Reason: at 27 pods those re-draws (~290,000 metric writes a week)
are a third of a run's cost, while temperatures under steady load are near constant and no fault, incident or
action depends on the wander (campaign records compared equal with and without it: tests/test_campaign.py)."""


class CampaignSpec(NoBoolNumbers):
    """A Monte Carlo campaign: ``seeds`` seeds (``first_seed`` ...) x ``policies`` of one cluster set-up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pods: int = Field(1, ge=1, le=64)
    days: float = Field(30.0, gt=0, le=90)
    seeds: int = Field(4, ge=1, le=10_000)
    first_seed: int = Field(0, ge=0, le=MAX_SEED)
    profile: str = "llama3"
    policies: tuple[Policy, ...] = ("auto",)
    layout: Literal["auto", "mixed", "cluster"] = "auto"
    spares_per_pod: int = Field(2, ge=0, le=16)
    bursty: bool = False
    lemons: bool = False
    noise: bool = True
    cheap_noise: bool = False
    sweeps: bool = False
    params: dict[str, Any] = Field(default_factory=dict, description="simulator parameter overrides (dotted keys)")

    @model_validator(mode="after")
    def _check(self) -> CampaignSpec:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r} (known: {', '.join(sorted(PROFILES))})")
        if not self.policies or len(set(self.policies)) != len(self.policies):
            raise ValueError("policies must be a non-empty list without repeats")
        if self.first_seed + self.seeds - 1 > MAX_SEED:
            raise ValueError(f"first_seed: seeds {self.first_seed}..{self.first_seed + self.seeds - 1} go past the "
                             f"largest seed, {MAX_SEED}")
        if self.resolved_layout == "mixed" and self.pods != 1:
            raise ValueError("the mixed layout (inference + training) is for one pod; use layout 'cluster'")
        return self

    @property
    def resolved_layout(self) -> str:
        return ("mixed" if self.pods == 1 else "cluster") if self.layout == "auto" else self.layout

    @property
    def seed_list(self) -> list[int]:
        return list(range(self.first_seed, self.first_seed + self.seeds))

    @property
    def name(self) -> str:
        return f"campaign-{self.profile}-{self.pods}pod-{self.days:g}d".replace(".", "p").replace("_", "-")

    def identity(self) -> dict[str, Any]:
        """Everything that fixes one seed's result (not the seed count, not how it is executed)."""
        d = self.model_dump(mode="json", exclude={"seeds", "first_seed", "policies"})
        d["format"] = CAMPAIGN_FORMAT
        return d

    @property
    def campaign_id(self) -> str:
        """Stable id of the set-up: a resumed or extended campaign finds the seeds it already ran."""
        blob = json.dumps(self.identity(), sort_keys=True).encode()
        return f"{self.name}-{hashlib.sha1(blob).hexdigest()[:8]}"


def sim_params(spec: CampaignSpec) -> SimParams:
    """Simulator parameters of the campaign: defaults, then ``cheap_noise`` (unless overridden), then ``params``."""
    over = {**(CHEAP_NOISE if spec.cheap_noise else {}), **spec.params}
    return apply_overrides(SimParams(), over) if over else SimParams()


def inference_nodes(params: SimParams) -> int:
    """Nodes of the paper's serving layout (6 prefill instances x 2 nodes + 20 decode nodes with the defaults)."""
    ip = params.inference
    return int(ip.prefill_instances * ip.prefill_nodes_per_instance + ip.decode_nodes)


def placements(spec: CampaignSpec, params: SimParams) -> tuple[dict[str, list[str]], list[str]]:
    """Workload nodes and warm spares (the highest ``spares_per_pod`` node numbers of every pod)."""
    per_pod = params.topology.nodes_per_pod
    keep = per_pod - spec.spares_per_pod
    spares = [ids.node(p, n) for p in range(spec.pods) for n in range(keep, per_pod)]
    if spec.resolved_layout == "mixed":
        n_inf = inference_nodes(params)
        if keep - n_inf < 1:
            raise ValueError(f"{spec.spares_per_pod} spares and {n_inf} inference nodes leave no training node")
        return ({"serve": [ids.node(0, n) for n in range(n_inf)],
                 "train": [ids.node(0, n) for n in range(n_inf, keep)]}, spares)
    if keep < 1:
        raise ValueError(f"{spec.spares_per_pod} spares per pod leave no node for the training job")
    return {"train": [ids.node(p, n) for p in range(spec.pods) for n in range(keep)]}, spares


def scenario(spec: CampaignSpec, params: SimParams | None = None) -> Scenario:
    """The campaign as a scenario (metadata, duration, workloads, random faults; no probes, guards or scripted
    faults: a campaign measures accounting over the whole horizon and never aborts)."""
    params = params or sim_params(spec)
    place = placements(spec, params)[0]
    first_train = ids.index(place["train"][0], "node")
    workloads = [WorkloadSpec(name="serve", kind="inference", first_node=0)] if "serve" in place else []
    workloads.append(WorkloadSpec(name="train", kind="training", first_node=first_train, nodes=len(place["train"])))
    return Scenario(
        apiVersion="opsbrain/v1", kind="ChaosScenario",
        metadata=Metadata(name=spec.name, description=f"Monte Carlo campaign {spec.campaign_id}",
                          tags=["campaign"]),
        spec=Spec(duration=spec.days * 86400.0, seed=spec.first_seed, policy=spec.policies[0],
                  topology=TopologySpec(pods=spec.pods, spares=spec.spares_per_pod), workloads=workloads,
                  random=RandomFaults(profile=spec.profile, bursty=spec.bursty, lemons=spec.lemons),
                  noise=spec.noise, sweeps=SweepSpec(enabled=spec.sweeps)))


def timeline(spec: CampaignSpec, topo: Topology, seed: int, params: SimParams) -> Timeline:
    """The seed's random fault timeline (same generator as ``build_plan``: ``default_rng([seed, 2])``)."""
    return draw_timeline(spec.profile, topo, spec.days, np.random.default_rng([seed, 2]), bursty=spec.bursty,
                         lemons=spec.lemons, background=True, params=params.injection)


def campaign_plan(spec: CampaignSpec, seed: int, policy: str, topology: Topology | None = None,
                  tl: Timeline | None = None) -> Plan:
    """The plan of one (seed, policy) run; ``topology`` (built for ``spec.pods``) may be shared between runs."""
    params = sim_params(spec)
    topo = topology or Topology.build(params.topology, spec.pods)
    if topo.pods != spec.pods:
        raise ValueError(f"topology has {topo.pods} pods, the campaign {spec.pods}")
    sc = scenario(spec, params)
    place, spares = placements(spec, params)
    wparams: dict[str, ParamGroup] = {
        w.name: (params.training if w.kind == "training" else params.inference) for w in sc.spec.workloads}
    return Plan(sc, seed, policy, topo, params, place, spares, tl if tl is not None else
                timeline(spec, topo, seed, params), wparams)
