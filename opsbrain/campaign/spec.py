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
from pydantic import BaseModel, ConfigDict, Field, model_validator

from faultlib import ids
from faultlib.injection.profiles import PROFILES, draw_timeline
from faultlib.injection.spec import Timeline
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.scenario.plan import Plan
from opsbrain.scenario.schema import Metadata, RandomFaults, Scenario, Spec, TopologySpec, WorkloadSpec

Policy = Literal["auto", "manual"]
INFERENCE_NODES = 32  # the paper's serving layout: 6 prefill instances x 2 nodes + 20 decode nodes (facts.md §2)
TRAINING_FIRST_NODE = 32
CAMPAIGN_FORMAT = 1  # bump when a change makes stored seed results incomparable with new ones


class CampaignSpec(BaseModel):
    """A Monte Carlo campaign: ``seeds`` seeds (``first_seed`` ...) x ``policies`` of one cluster set-up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pods: int = Field(1, ge=1, le=64)
    days: float = Field(30.0, gt=0, le=90)
    seeds: int = Field(4, ge=1, le=10_000)
    first_seed: int = Field(0, ge=0)
    profile: str = "llama3"
    policies: tuple[Policy, ...] = ("auto",)
    layout: Literal["auto", "mixed", "cluster"] = "auto"
    spares_per_pod: int = Field(2, ge=0, le=16)
    bursty: bool = False
    lemons: bool = False
    noise: bool = True
    sweeps: bool = False
    params: dict[str, Any] = Field(default_factory=dict, description="simulator parameter overrides (dotted keys)")

    @model_validator(mode="after")
    def _check(self) -> CampaignSpec:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r} (known: {', '.join(sorted(PROFILES))})")
        if not self.policies or len(set(self.policies)) != len(self.policies):
            raise ValueError("policies must be a non-empty list without repeats")
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
    base = SimParams()
    return apply_overrides(base, dict(spec.params)) if spec.params else base


def scenario(spec: CampaignSpec) -> Scenario:
    """The campaign as a scenario (metadata, duration, workloads, random faults; no probes, guards or scripted
    faults: a campaign measures accounting over the whole horizon and never aborts)."""
    per_pod = SimParams().topology.nodes_per_pod
    train_per_pod = per_pod - spec.spares_per_pod
    if spec.resolved_layout == "mixed":
        train = train_per_pod - TRAINING_FIRST_NODE
        if train < 1:
            raise ValueError(f"{spec.spares_per_pod} spares leave no node for the training job")
        workloads = [WorkloadSpec(name="serve", kind="inference", first_node=0),
                     WorkloadSpec(name="train", kind="training", first_node=TRAINING_FIRST_NODE, nodes=train)]
    else:
        if train_per_pod < 1:
            raise ValueError(f"{spec.spares_per_pod} spares per pod leave no node for the training job")
        workloads = [WorkloadSpec(name="train", kind="training", first_node=0, nodes=train_per_pod * spec.pods)]
    extra: dict[str, Any] = {"sweeps": {"enabled": spec.sweeps}} if "sweeps" in Spec.model_fields else {}
    return Scenario(
        apiVersion="opsbrain/v1", kind="ChaosScenario",
        metadata=Metadata(name=spec.name, description=f"Monte Carlo campaign {spec.campaign_id}",
                          tags=["campaign"]),
        spec=Spec(duration=spec.days * 86400.0, seed=spec.first_seed, policy=spec.policies[0],
                  topology=TopologySpec(pods=spec.pods, spares=spec.spares_per_pod), workloads=workloads,
                  random=RandomFaults(profile=spec.profile, bursty=spec.bursty, lemons=spec.lemons),
                  noise=spec.noise, **extra))


def placements(spec: CampaignSpec, per_pod: int) -> tuple[dict[str, list[str]], list[str]]:
    """Workload nodes and warm spares (the highest ``spares_per_pod`` node numbers of every pod)."""
    keep = per_pod - spec.spares_per_pod
    spares = [ids.node(p, n) for p in range(spec.pods) for n in range(keep, per_pod)]
    if spec.resolved_layout == "mixed":
        return ({"serve": [ids.node(0, n) for n in range(INFERENCE_NODES)],
                 "train": [ids.node(0, n) for n in range(TRAINING_FIRST_NODE, keep)]}, spares)
    return {"train": [ids.node(p, n) for p in range(spec.pods) for n in range(keep)]}, spares


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
    sc = scenario(spec)
    place, spares = placements(spec, params.topology.nodes_per_pod)
    wparams = {w.name: (params.training if w.kind == "training" else params.inference) for w in sc.spec.workloads}
    return Plan(sc, seed, policy, topo, params, place, spares, tl if tl is not None else
                timeline(spec, topo, seed, params), wparams)
