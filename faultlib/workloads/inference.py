"""The inference service: DeepSeek-R1 served disaggregated on CloudMatrix384 (arXiv 2506.12708), as a fluid model.

Layout (the paper's): prefill instances of 16 NPUs (EP32) and one decode instance of 160 NPUs (EP320); the KV
cache of each prompt moves prefill -> decode over the RDMA plane.

Roofline, per NPU (all numbers are :class:`InferenceParams`):

* decode step ``= F + B * c`` for ``B`` sequences per NPU. ``F`` = resident weights read from HBM + one EP
  dispatch/combine latency per MoE layer. ``c`` = compute of the step's tokens (main + MTP draft) at peak x
  efficiency + the sequence's KV cache read from HBM + its expert-parallel all-to-all bytes over the NPU's UB
  bandwidth x ``sim.fabric.collective_factor(instance nodes)`` x achievable fraction. One step emits
  ``1 + mtp_acceptance`` tokens per sequence, so ``TPOT(B) = (F + B c) / (1 + mtp_acceptance)`` and decode
  tokens/s per NPU ``= B / TPOT(B)``.
* prefill per token ``= compute + all-to-all + (weights read + layer latencies) / batch tokens``.
* The two compute efficiencies and the EP collective latency are calibrated to the paper's three figures
  (see ``tests/test_inference.py::test_calibration``). The split of a decode token's cost is an assumption
  (see ``decode_a2a_efficiency``): ~18% UB all-to-all, ~82% compute + HBM, fault-free.

Demand is a fluid request rate (``load_factor`` x fault-free capacity). Served = min(demand, prefill capacity,
decode capacity) (the router admits no more than decode takes); the decode batch follows from Little's law,
``B = d TPOT(B)`` for demand ``d`` tokens/s per NPU, capped at the max batch, so TPOT rises with load and with
lost bandwidth. TTFT = prefill batch time ``S`` + M/D/1 wait ``rho S / (2 (1 - rho))`` (``rho`` = admitted
prompt tokens / working prefill capacity; capped at ``max_queue_wait_s``, admission control) + KV bytes of the
prompt over one RoCE port (x share of the instances' ports up). TPOT / TTFT are ``inf`` when nothing is served.
Rates change only on plant changes (listener), faults (:meth:`InferenceService.fail`, :meth:`set_slowdown`) and
control actions; there are no per-request or per-second events.

Restarts: ``process_relaunch_s`` + weight load, where each node loads its NPUs' resident weights in parallel:
the paper's 671 GB cold start (OBS 2,560 s, EMS 320 s) x the node's share of 671 GB (EP320 decode: ~0.46,
EP32 prefill: ~0.9). In-place recovery keeps the weights: the CANN process-level recovery stages of
``training.stop_step_s`` .. ``training.comm_resume_s`` (:func:`faultlib.workloads.training.online_recovery_stages_s`;
no training-state rollback).

Instance life cycle: ``running`` -> ``hung`` (a hang, or a device of the instance left service: peers block in
the collective) -> ``down`` after ``hang_timeout_s``; ``crash`` -> ``down`` at once; ``restarting`` while a
restart / in-place recovery runs. A running instance whose collective path is dead (factor 0) stalls; HCCL's
operator retry (:mod:`faultlib.workloads.op_retry`, CANN: supported on Atlas A3 inference products for HCCL operators
expanded on the AI CPU and for fused compute-communication operators built for it) re-executes the collective
``op_retry_hold_s`` after the stall and every ``op_retry_interval_s`` after that: the first re-execution that finds
the path back (a re-route) resumes the instance; when all ``op_retry_max_cnt`` found it dead, the error surfaces
(EI0006 in the event's text) and the instance is down until a restart; a path still dead at ``hang_timeout_s`` ends
in a collective timeout.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Literal

import simpy

from faultlib import ids
from faultlib.health import UP
from faultlib.telemetry import formats as fmt
from faultlib.workloads.base import Workload, reinit_comm, report_peer_waits
from faultlib.workloads.inference_params import InferenceParams
from faultlib.workloads.inference_rates import _DEVICE_KINDS, InferenceRates, State, _Instance, _Snap
from faultlib.workloads.inference_roofline import Roofline, paper_layout
from faultlib.workloads.op_retry import reexecution_offsets_s
from faultlib.workloads.training import online_recovery_stages_s

if TYPE_CHECKING:
    from faultlib.engine import Simulation

__all__ = ["InferenceParams", "InferenceService", "Roofline", "State", "_Instance", "_Snap", "paper_layout"]


class InferenceService(InferenceRates, Workload):
    """DeepSeek-R1 served with disaggregated prefill / decode instances (fluid rate model)."""

    kind = "inference"

    def __init__(self, name: str, prefill_nodes: list[list[str]], decode_nodes: list[str],
                 params: InferenceParams | None = None) -> None:
        if not prefill_nodes:
            raise ValueError(f"{name}: at least one prefill instance is needed")
        insts = [_Instance(f"prefill{i}", "prefill", list(ns)) for i, ns in enumerate(prefill_nodes)]
        insts.append(_Instance("decode0", "decode", list(decode_nodes)))
        seen: set[str] = set()
        for inst in insts:
            if not inst.nodes:
                raise ValueError(f"{name}/{inst.name}: an instance needs at least one node")
            dup = seen.intersection(inst.nodes)
            if dup:
                raise ValueError(f"{name}/{inst.name}: node {sorted(dup)[0]} is already used by another instance")
            seen.update(inst.nodes)
        super().__init__(name, [n for i in insts for n in i.nodes])
        self._insts: dict[str, _Instance] = {i.name: i for i in insts}
        self._params = params
        self._slow: dict[str, float] = {}
        self._hist: list[_Snap] = []
        self._times: list[float] = []
        self._tot = {"tokens": 0.0, "lost": 0.0, "slo_s": 0.0, "tpot_tok": 0.0, "tpot_w": 0.0}
        self._published: dict[tuple[str, str], float] = {}
        self._node_bw: dict[str, tuple[float, float]] = {}  # node -> (intra, inter) factor; dropped on change

    # ---- wiring -----------------------------------------------------------------------------------
    def attach(self, sim: Simulation) -> None:
        super().attach(sim)
        self.p: InferenceParams = self._params or sim.params.inference
        self.roof = Roofline(self.p, sim.params.fabric.npu_ub_gbytes_s, sim.topology.params.dies_per_npu)
        self._pods = {ids.pod_of(n) for n in self.nodes}
        for inst in self._insts.values():
            self._check_nodes(inst.name, inst.nodes)
        cap = self.capacity_per_npu()
        self._nominal = cap
        pre_req = sum(cap["prefill_tokens_per_s_per_npu"] * self._npus(i) for i in self._role("prefill"))
        dec_req = sum(cap["decode_tokens_per_s_per_npu"] * self._npus(i) for i in self._role("decode"))
        self.capacity_req_s = min(pre_req / self.p.prompt_tokens, dec_req / self.p.output_tokens)
        self.demand_req_s = self.p.load_factor * self.capacity_req_s
        for inst in self._insts.values():
            if not self._hardware_ok(inst):
                self._hang(inst, "device out of service at start")  # the reason goes to the trace only
        self._update()

    def _check_nodes(self, inst: str, nodes: list[str]) -> None:
        topo = self.sim.topology if self.sim else None
        if topo is None:
            return
        for n in nodes:
            if topo.kind.get(n) != "node":
                raise ValueError(f"{self.name}/{inst}: {n!r} is not a node of this topology")
        if len({ids.pod_of(n) for n in nodes}) > 1:
            raise ValueError(f"{self.name}/{inst}: an EP instance must stay inside one pod's UB domain")
        if not self.roof.fits(len(nodes) * topo.params.npus_per_node):
            raise ValueError(f"{self.name}/{inst}: weights do not fit in HBM on {len(nodes)} node(s)")

    # ---- lookups ------------------------------------------------------------------------------------
    def _inst(self, instance: str) -> _Instance:
        key = instance.removeprefix(f"{self.name}/")
        if key not in self._insts:
            raise KeyError(f"{self.name}: no instance {instance!r} (known: {', '.join(self._insts)})")
        return self._insts[key]

    def instance_of(self, component: str) -> str | None:
        """The (qualified) instance holding ``component`` (a node, NPU, die, port, or link of a node)."""
        if component.removeprefix(f"{self.name}/") in self._insts:
            return self._qual(self._inst(component))
        node = ids.node_of(component)
        for inst in self._insts.values():
            if node in inst.nodes:
                return self._qual(inst)
        return None

    def instances(self) -> dict[str, dict[str, Any]]:
        """Each instance: role, nodes, life-cycle state, whether it is up (running, not stalled), tokens/s."""
        snap = self._hist[-1] if self._hist else None
        return {self._qual(i): {"role": i.role, "nodes": list(i.nodes), "state": i.state, "reason": i.reason,
                                "up": bool(snap and snap.inst_up.get(i.name)),
                                "tokens_per_s": snap.inst_tok_s.get(i.name, 0.0) if snap else 0.0}
                for i in self._insts.values()}

    def _set_state(self, inst: _Instance, state: State, reason: str = "") -> None:
        inst.state = state
        inst.reason = reason
        inst.blocked_since = None
        assert self.sim is not None
        self.sim.trace.record(self.sim.now, "instance", self._qual(inst), state=state, reason=reason)

    def _watch(self, inst: _Instance, gen: int, since: float | None) -> Generator[simpy.Event, Any, None]:
        """Hang/stall watchdog: still blocked after ``hang_timeout_s`` => the instance is down."""
        assert self.sim is not None
        yield self.sim.env.timeout(self.p.hang_timeout_s)
        if inst.gen != gen:
            return
        if (since is None and inst.state == "hung") or (
                since is not None and inst.state == "running" and inst.blocked_since == since
                and self._collective(inst) <= 0):  # a path already back waits for its re-execution instead
            self._set_state(inst, "down", "collective timeout")
            self._event(inst, "instance_down")
            self._update()

    def _reexecute(self, inst: _Instance, gen: int, since: float) -> Generator[simpy.Event, Any, None]:
        """HCCL operator retry of the stalled collective: re-executions at ``since + hold + k * interval``
        (:func:`reexecution_offsets_s`); the first that finds the path alive resumes the instance, and when none
        did the error surfaces (:meth:`_retries_exhausted`)."""
        assert self.sim is not None
        env, last = self.sim.env, 0.0
        for offset in reexecution_offsets_s(self.p):
            yield env.timeout(offset - last)
            last = offset
            if inst.gen != gen or inst.state != "running" or inst.blocked_since != since:
                return  # a hang, a timeout, a restart or a new stall took over
            if self._collective(inst) > 0:
                inst.blocked_since = None
                self._event(inst, "instance_resumed", after="retry", stalled_s=round(env.now - since, 6))
                self._update()
                return
        self._retries_exhausted(inst)

    def _retries_exhausted(self, inst: _Instance) -> None:
        """Every re-execution found the path dead: the collective's error surfaces in the instance's ranks and its
        processes exit (down until a restart). A peer's rank reports the socket failure towards the node whose path
        is dead, as the training job does (EI0006, CANN HCCL error-code reference)."""
        assert self.sim is not None
        sim, npn = self.sim, self.sim.topology.params.npus_per_node
        fab = sim.fabric
        culprit = next((n for n in inst.nodes if fab.inter_node_factor(n) <= 0 or fab.intra_node_factor(n) <= 0),
                       inst.nodes[0])
        reporter = next((n for n in inst.nodes if n != culprit), culprit)
        rank, remote = inst.nodes.index(reporter) * npn, inst.nodes.index(culprit) * npn
        dev = sim.topology.npus_of(reporter)[0]
        reason = "RuntimeError: " + fmt.hccl_message(
            "EI0006", reason=f"This node (server {fmt.host_ip(reporter)}, device ID {fmt.device_index(dev)}) "
            f"detects that srcRank ({rank}) fails to connect to dstRank ({remote})")
        inst.gen += 1
        self._set_state(inst, "down", "HCCL re-executions exhausted")
        self._event(inst, "instance_crash", node=reporter, device=fmt.device_index(dev), reason=reason)
        self._update()

    # ---- plant and fault inputs ----------------------------------------------------------------------
    def on_plant_change(self, component: str, old: str, new: str) -> None:
        if self.sim is None:
            return
        node = ids.node_of(component)
        if node is None:  # an L2 chip or a pod/cluster fabric: every instance may be affected
            if ids.pod_of(component) not in self._pods and not component.startswith("cluster"):
                return
            self._node_bw.clear()
        else:
            owner = next((i for i in self._insts.values() if node in i.nodes), None)
            if owner is None:
                return
            self._node_bw.pop(node, None)
            if (self.sim.topology.kind.get(component) in _DEVICE_KINDS and new not in UP and old in UP
                    and owner.state == "running"):
                self._hang(owner, f"{component} {new}", node)  # trace only: the event carries no plant state
        self._update()

    def _hang(self, inst: _Instance, reason: str, node: str | None = None) -> None:
        self._set_state(inst, "hung", reason)
        inst.gen += 1
        self._event(inst, "instance_hang")  # a hang is silent: no reason a framework could print
        assert self.sim is not None
        self.sim.env.process(self._watch(inst, inst.gen, None))
        if node is not None:
            self.sim.env.process(self._peer_report(inst, inst.gen, node))

    def _peer_report(self, inst: _Instance, gen: int, node: str) -> Generator[simpy.Event, Any, None]:
        """The instance's other nodes report their notify-wait timeout naming the hung node: the same plog lines a
        training job's peers print, for every hang cause."""
        assert self.sim is not None
        sim = self.sim
        yield sim.env.timeout(sim.params.faults.peer_timeout_report_s)
        if inst.gen != gen or inst.state != "hung":
            return
        report_peer_waits(sim, [n for n in inst.nodes if n != node], node)

    def fail(self, component: str, mode: Literal["crash", "hang"], reason: str) -> str | None:
        """A fault hits ``component``: its instance goes down (crash) or stalls (hang). Returns the instance."""
        q = self.instance_of(component)
        if q is None or self.sim is None:
            return None
        inst = self._inst(q)
        where = self._crash_detail(component, reason)
        if mode == "crash":
            if inst.state != "down":
                inst.gen += 1
                self._set_state(inst, "down", reason)
                self._event(inst, "instance_crash", **where)
        elif mode == "hang":
            if inst.state == "running":
                self._hang(inst, reason, ids.node_of(component))
            elif inst.state == "restarting":
                inst.gen += 1
                self._set_state(inst, "down", reason)
                self._event(inst, "instance_crash", **where)
        else:
            raise ValueError(f"fail mode must be 'crash' or 'hang', got {mode!r}")
        self._update()
        return q

    def _crash_detail(self, component: str, reason: str) -> dict[str, Any]:
        """What a scheduler knows of an exited rank: its node, its device index (when one device), and the text the
        framework printed; never the plant component id or its health."""
        detail: dict[str, Any] = {"node": ids.node_of(component)}
        if ids.npu_of(component) is not None:  # the rank's logical device (A3: a die's id, session 37)
            detail["device"] = fmt.device_index(component)
        if reason:
            detail["reason"] = reason
        return detail

    def set_slowdown(self, npu: str, factor: float) -> None:
        """A fail-slow NPU: its instance's compute and HBM time is multiplied by ``factor`` (1.0 clears)."""
        if self.instance_of(npu) is None:
            return
        if factor <= 1.0:
            self._slow.pop(npu, None)
        else:
            self._slow[npu] = factor
        self._update()

    # ---- control actions ----------------------------------------------------------------------------
    def _weights_load_s(self, inst: _Instance, source: str) -> float:
        """Each node loads the weights its NPUs hold, in parallel: the cold-start time x that share of 671 GB."""
        assert self.sim is not None
        per_node = self.roof.weights_per_npu_bytes(self._npus(inst)) * self.sim.topology.params.npus_per_node
        share = min(1.0, per_node / (self.p.total_params_b * self.p.bytes_per_param * 1e9))
        name = "ems_cold_start_s" if source == "ems" else "obs_cold_start_s"
        return self.sim.durations.draw(f"inference.{name}", getattr(self.p, name), share)

    def _relaunch_s(self) -> float:
        """One draw of the process relaunch stage (its own seeded stream)."""
        assert self.sim is not None
        return self.sim.durations.draw("inference.process_relaunch_s", self.p.process_relaunch_s)

    def _relaunch(self, inst: _Instance, stages: list[tuple[str, float]], action: str
                  ) -> Generator[simpy.Event, Any, dict[str, Any]]:
        assert self.sim is not None
        env = self.sim.env
        inst.gen += 1
        gen, start = inst.gen, env.now
        self._set_state(inst, "restarting", action)
        self._event(inst, "instance_restarting", action=action, nodes=list(inst.nodes))
        self._update()
        out: dict[str, Any] = {"instance": self._qual(inst), "action": action, "nodes": list(inst.nodes)}
        for stage, secs in stages:
            yield env.timeout(secs)
            out[f"{stage}_s"] = secs
            if inst.gen != gen:
                return {**out, "ok": False, "reason": "interrupted by a new fault or action",
                        "duration_s": env.now - start}
            if not self._hardware_ok(inst):
                inst.gen += 1
                self._set_state(inst, "down", f"{action}: device unusable")
                self._event(inst, "instance_restart_failed", action=action)
                self._update()
                return {**out, "ok": False, "reason": "device unusable", "duration_s": env.now - start}
        reinit_comm(self.sim, inst.nodes)
        self._set_state(inst, "running", action)
        self._event(inst, "instance_up", action=action, duration_s=env.now - start)
        self._update()
        return {**out, "ok": True, "duration_s": env.now - start}

    def _place(self, inst: _Instance, nodes: list[str]) -> None:
        others = {n for i in self._insts.values() if i is not inst for n in i.nodes}
        assert self.sim is not None
        others |= {n for w in self.sim.workloads.values() if w is not self for n in w.nodes}
        clash = others.intersection(nodes)
        if clash:
            raise ValueError(f"{self._qual(inst)}: node {sorted(clash)[0]} is in use")
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"{self._qual(inst)}: duplicate nodes")
        self._check_nodes(inst.name, nodes)
        for n in set(inst.nodes) - set(nodes):
            self._node_bw.pop(n, None)  # changes there are no longer heard
        inst.nodes = list(nodes)
        self.nodes = [n for i in self._insts.values() for n in i.nodes]
        self._pods = {ids.pod_of(n) for n in self.nodes}
        self.sim.trace.record(self.sim.now, "placement", self._qual(inst), nodes=list(nodes))

    def restart_instance(self, instance: str, replace: dict[str, str] | None = None,
                         weights_from: Literal["ems", "obs"] = "ems") -> simpy.Process:
        """Relaunch the instance's processes (optionally on replacement nodes) and reload its weights."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        if weights_from not in ("ems", "obs"):
            raise ValueError(f"weights_from must be 'ems' or 'obs', got {weights_from!r}")
        inst = self._inst(instance)
        if replace:
            missing = set(replace) - set(inst.nodes)
            if missing:
                raise ValueError(f"{self._qual(inst)}: {sorted(missing)[0]} is not one of its nodes")
            self._place(inst, [replace.get(n, n) for n in inst.nodes])
        stages = [("relaunch", self._relaunch_s()), ("weights", self._weights_load_s(inst, weights_from))]
        return self.sim.env.process(self._relaunch(inst, stages, f"restart_instance({weights_from})"))

    def recover_in_place(self, instance: str) -> simpy.Process:
        """Process-level online recovery: same nodes, weights stay in HBM; seconds, not minutes."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        inst = self._inst(instance)
        took = online_recovery_stages_s(self.sim, self.sim.params.training, self._npus(inst), rollback=False)
        return self.sim.env.process(self._relaunch(inst, [("recovery", took)], "recover_in_place"))

    def scale_instance(self, instance: str, nodes: list[str]) -> simpy.Process:
        """Move the instance onto ``nodes`` (a new EP degree): relaunch and reload the re-sharded weights."""
        if self.sim is None:
            raise RuntimeError(f"{self.name} is not attached to a simulation")
        inst = self._inst(instance)
        if not nodes:
            raise ValueError(f"{self._qual(inst)}: an instance needs at least one node")
        self._place(inst, list(nodes))
        stages = [("relaunch", self._relaunch_s()), ("weights", self._weights_load_s(inst, "ems"))]
        return self.sim.env.process(self._relaunch(inst, stages, "scale_instance"))
