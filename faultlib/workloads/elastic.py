"""An inference service whose prefill and decode pools grow and shrink: instances are added and retired at run time.

The serving physics is :class:`faultlib.workloads.inference.InferenceService` unchanged (roofline, router, TPOT and
TTFT, life cycle); this subclass adds the two control actions an elastic scheduler has:

* :meth:`ElasticInferenceService.add_instance` places a new prefill or decode instance on free nodes and starts it:
  process launch + HCCL init (``inference.process_relaunch_s``) and the weights of its EP shard from the EMS pool
  or object storage (``inference.ems_cold_start_s`` / ``obs_cold_start_s`` x the node's share of 671 GB), the same
  draws as a restart. It serves once both stages are done; the router then rebalances by capacity. With
  ``weights_from="peer"`` the weights come from an instance of the same role that serves the model now (P2P from its
  host memory into the new instance, ``inference.peer_load_s``: MoonshotAI checkpoint-engine's P2P mode, made for
  instances added while the others serve); without such a peer the load falls back to the EMS pool.
* :meth:`ElasticInferenceService.retire_instance` drains an instance out of the router at once (fluid model: its
  in-flight sequences are not modelled) and frees its nodes.

It also keeps the NPU accounting an autoscaler is judged on: NPU-seconds allocated, NPU-seconds of instances that
serve, and (with :meth:`slo_attainment`) the share of time the SLO held.
"""

from __future__ import annotations

from typing import Any, Literal

import simpy

from faultlib.ems import EmsPool
from faultlib.workloads.inference import InferenceService, _Instance
from faultlib.workloads.weight_load import WeightAccounting, node_bytes, node_share

Role = Literal["prefill", "decode"]
WeightsFrom = Literal["ems", "obs", "peer"]


class ElasticInferenceService(InferenceService):
    """An :class:`InferenceService` with :meth:`add_instance` / :meth:`retire_instance` and NPU accounting."""

    kind = "inference"

    def __init__(self, name: str, prefill_nodes: list[list[str]], decode_nodes: list[str],
                 params: Any = None, extra_decode: list[list[str]] | None = None) -> None:
        super().__init__(name, prefill_nodes, decode_nodes, params)
        seen = set(self.nodes)
        for k, ns in enumerate(extra_decode or [], start=1):  # more decode instances, running from the start
            if not ns or seen.intersection(ns) or len(set(ns)) != len(ns):
                raise ValueError(f"{name}/decode{k}: needs its own distinct nodes")
            seen.update(ns)
            self._insts[f"decode{k}"] = _Instance(f"decode{k}", "decode", list(ns))
        self.nodes = [n for i in self._insts.values() for n in i.nodes]
        self.ems: EmsPool | None = None  # with tenants: weights are read from this pool under ``namespace``
        self.namespace: str = name
        # how a node's weight load reads the paper's cold-start figure (faultlib.workloads.weight_load); the twin's
        # figures use "resident", the others are the bounds of a sensitivity run
        self.weights_accounting: WeightAccounting = "resident"
        # share of the relaunch stage run beside the weight load (0: after it, the twin's model); a what-if of a
        # sensitivity run only: no published split of the relaunch says how much of it could overlap
        self.relaunch_overlap: float = 0.0
        # where an added instance reads its weights by default: the EMS pool (the model kept cached there), or
        # object storage (a sensitivity run: the pool does not hold the model), or a peer serving the model
        self.weights_source: WeightsFrom = "ems"
        self.peer_fallbacks = 0  # peer loads that found no serving peer and read from the EMS pool instead
        self._serial = {"prefill": len(self._role("prefill")), "decode": len(self._role("decode"))}
        self._npu_s = {"allocated": 0.0, "serving": 0.0, "decode_allocated": 0.0}
        self._npu_t = 0.0

    # ---- accounting -------------------------------------------------------------------------------
    def _npu_advance(self) -> None:
        if self.sim is None:
            return
        now = self.sim.now
        dt = now - self._npu_t
        if dt > 0 and self._hist:
            last = self._hist[-1]
            npn = self.sim.topology.params.npus_per_node
            self._npu_s["allocated"] += dt * npn * len(self.nodes)
            self._npu_s["decode_allocated"] += dt * npn * sum(len(i.nodes) for i in self._role("decode"))
            self._npu_s["serving"] += dt * npn * sum(len(i.nodes) for i in self._insts.values()
                                                     if last.inst_up.get(i.name))
        self._npu_t = now

    def _update(self) -> None:
        self._npu_advance()
        super()._update()

    def npu_seconds(self) -> dict[str, float]:
        """NPU-seconds allocated to the service's instances, and of those, instances that served."""
        self._npu_advance()
        return dict(self._npu_s)

    def allocated_npus(self, role: Role | None = None) -> int:
        assert self.sim is not None
        npn = self.sim.topology.params.npus_per_node
        return sum(len(i.nodes) * npn for i in self._insts.values() if role is None or i.role == role)

    def slo_attainment(self, until: float | None = None) -> float:
        """Share of time from 0 to ``until`` (default now) with the SLO met (no shed demand, TPOT and TTFT bounds)."""
        assert self.sim is not None
        end = self.sim.now if until is None else until
        if end <= 0:
            return 1.0
        bad = 0.0
        for k, s in enumerate(self._hist):
            t1 = self._hist[k + 1].t if k + 1 < len(self._hist) else end
            t0, t1 = min(s.t, end), min(t1, end)
            if s.violating:
                bad += t1 - t0
        return 1.0 - bad / end

    def violations(self) -> list[tuple[float, float]]:
        """The intervals (start, end) with the SLO violated, merged."""
        assert self.sim is not None
        out: list[tuple[float, float]] = []
        for k, s in enumerate(self._hist):
            if not s.violating:
                continue
            t1 = self._hist[k + 1].t if k + 1 < len(self._hist) else self.sim.now
            if out and abs(out[-1][1] - s.t) < 1e-9:
                out[-1] = (out[-1][0], t1)
            elif t1 > s.t:
                out.append((s.t, t1))
        return out

    def _peer(self, inst: _Instance) -> _Instance | None:
        """A running instance of ``inst``'s role (it holds the same weights) to copy them from; None if none serves."""
        snap = self._hist[-1] if self._hist else None
        return next((i for i in self._insts.values() if i is not inst and i.role == inst.role
                     and i.state == "running" and snap is not None and snap.inst_up.get(i.name)), None)

    def _weights_load_s(self, inst: _Instance, source: str) -> float:
        """As the base service; a load from the EMS pool reads the model's weights in the service's namespace. From
        a peer: the node's bytes (under :attr:`weights_accounting`) over its share of the ``peer_load_s`` figure."""
        if source == "peer" and self.sim is not None:
            if self._peer(inst) is not None:
                topo = self.sim.topology.params
                model = self.p.total_params_b * self.p.bytes_per_param * 1e9
                node = node_bytes(self.p, self._npus(inst), topo.npus_per_node, topo.dies_per_npu,
                                  self.weights_accounting)
                share = node / (model / self.p.peer_load_ref_nodes)
                return self.sim.durations.draw("inference.peer_load_s", self.p.peer_load_s, share)
            self.peer_fallbacks += 1
            source = "ems"
        if source == "ems" and self.ems is not None and self.sim is not None:
            self.ems.read(self.sim.now, self.namespace, self.namespace, f"weights/{self.name}")
        if self.weights_accounting == "resident" or self.sim is None:
            return super()._weights_load_s(inst, source)
        topo = self.sim.topology.params
        share = node_share(self.p, self._npus(inst), topo.npus_per_node, topo.dies_per_npu, self.weights_accounting)
        name = "ems_cold_start_s" if source == "ems" else "obs_cold_start_s"
        return self.sim.durations.draw(f"inference.{name}", getattr(self.p, name), share)

    def _start_stages(self, inst: _Instance, weights_from: str) -> list[tuple[str, float]]:
        """Relaunch then weights (``relaunch_overlap`` of the relaunch moved beside the weight load)."""
        relaunch, weights = self._relaunch_s(), self._weights_load_s(inst, weights_from)
        f = min(1.0, max(0.0, self.relaunch_overlap))
        return [("relaunch", relaunch * (1.0 - f)), ("weights", max(weights, relaunch * f))]

    def decode_batch_per_npu(self, instance: str) -> float:
        """Sequences in flight per NPU of a decode instance now: the roofline's operating point at the rate it
        serves (0 for a prefill instance or one that does not serve)."""
        inst = self._inst(instance)
        snap = self._hist[-1] if self._hist else None
        if inst.role != "decode" or snap is None or not snap.inst_up.get(inst.name):
            return 0.0
        n = self._npus(inst)
        _served, batch, _tpot = self.roof.decode_operating_point(
            snap.inst_tok_s.get(inst.name, 0.0) / n, n, self._serving_factor(inst), self._slowdown(inst))
        return batch

    # ---- control actions --------------------------------------------------------------------------
    def add_instance(self, role: Role, nodes: list[str], weights_from: WeightsFrom | None = None
                     ) -> tuple[str, simpy.Process]:
        """Place a new ``role`` instance on ``nodes`` and start it; returns (qualified name, start process).
        ``weights_from`` defaults to :attr:`weights_source`."""
        weights_from = weights_from or self.weights_source
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        if role not in ("prefill", "decode"):
            raise ValueError(f"role must be 'prefill' or 'decode', got {role!r}")
        if weights_from not in ("ems", "obs", "peer"):
            raise ValueError(f"weights_from must be 'ems', 'obs' or 'peer', got {weights_from!r}")
        if not nodes:
            raise ValueError(f"{self.name}: an instance needs at least one node")
        name = f"{role}{self._serial[role]}"
        self._serial[role] += 1
        inst = _Instance(name, role, [], state="down", reason="new")
        self._insts[name] = inst
        try:
            self._place(inst, list(nodes))
        except ValueError:
            del self._insts[name]
            self.nodes = [n for i in self._insts.values() for n in i.nodes]
            raise
        stages = self._start_stages(inst, weights_from)
        return self._qual(inst), self.sim.env.process(self._relaunch(inst, stages, f"add_instance({weights_from})"))

    def retire_instance(self, instance: str) -> list[str]:
        """Take an instance out of service and free its nodes; returns them. The last of a role cannot go."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        inst = self._inst(instance)
        if len(self._role(inst.role)) <= 1:
            raise ValueError(f"{self._qual(inst)}: the last {inst.role} instance cannot be retired")
        self._npu_advance()
        inst.gen += 1  # a start under way ends as interrupted
        freed = list(inst.nodes)
        for n in freed:
            self._node_bw.pop(n, None)
        self._set_state(inst, "down", "retired")
        self._event(inst, "instance_retired", nodes=freed)
        del self._insts[inst.name]
        self.nodes = [n for i in self._insts.values() for n in i.nodes]
        self.sim.trace.record(self.sim.now, "placement", self._qual(inst), nodes=[])
        self._update()
        return freed
