"""The inference service's fluid rate model: per-instance state, the piecewise-constant rate snapshots, how a
snapshot is computed from the plant (collective factors, RoCE ports, slowdowns), publishing and accounting.

:class:`InferenceRates` is the part of :class:`faultlib.workloads.inference.InferenceService` that turns state into
rates; the service adds the life cycle, fault inputs and control actions.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from faultlib import ids
from faultlib.health import UP
from faultlib.workloads.inference_params import InferenceParams
from faultlib.workloads.inference_roofline import Roofline

if TYPE_CHECKING:
    import simpy

    from faultlib.engine import Simulation

State = Literal["running", "hung", "down", "restarting"]
_DEVICE_KINDS = frozenset({"node", "npu", "die", "hbm"})


@dataclass
class _Instance:
    name: str
    role: Literal["prefill", "decode"]
    nodes: list[str]
    state: State = "running"
    gen: int = 0
    reason: str = ""
    blocked_since: float | None = None  # running but making no progress (fabric stall)
    down_s: float = 0.0  # time not available (not running, or stalled)


@dataclass
class _Snap:
    """The service's rates between two changes (piecewise constant)."""

    t: float
    demand_tok_s: float = 0.0
    decode_tok_s: float = 0.0
    decode_cap_tok_s: float = 0.0
    prefill_tok_s: float = 0.0
    tpot_s: float = math.inf
    ttft_s: float = math.inf
    violating: bool = False
    inst_tok_s: dict[str, float] = field(default_factory=dict)
    inst_up: dict[str, bool] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"t": self.t, "decode_tokens_per_s": self.decode_tok_s, "decode_capacity_tokens_per_s":
                self.decode_cap_tok_s, "demand_tokens_per_s": self.demand_tok_s,
                "prefill_tokens_per_s": self.prefill_tok_s, "tpot_ms": self.tpot_s * 1e3,
                "ttft_ms": self.ttft_s * 1e3, "slo_violated": self.violating,
                "instances_up": sorted(k for k, v in self.inst_up.items() if v)}


class InferenceRates:
    """Rates, snapshots and accounting of an inference service (mixed into ``InferenceService``)."""

    name: str
    kind: Literal["training", "inference"]
    sim: Simulation | None
    p: InferenceParams
    roof: Roofline
    demand_req_s: float
    _nominal: dict[str, float]
    _insts: dict[str, _Instance]
    _slow: dict[str, float]
    _hist: list[_Snap]
    _times: list[float]
    _tot: dict[str, float]
    _published: dict[tuple[str, str], float]
    _node_bw: dict[str, tuple[float, float]]
    _prefix: tuple[list[float], list[float]] = ([0.0], [0.0])  # loss sums at each snapshot (loss_totals_at)
    _prefix_key: tuple[int, int | None] | None = None

    def _role(self, role: str) -> list[_Instance]:
        return [i for i in self._insts.values() if i.role == role]

    def _npus(self, inst: _Instance) -> int:
        assert self.sim is not None
        return len(inst.nodes) * self.sim.topology.params.npus_per_node

    def _qual(self, inst: _Instance) -> str:
        return f"{self.name}/{inst.name}"

    def _event(self, inst: _Instance, kind: str, **detail: Any) -> None:
        assert self.sim is not None
        self.sim.telemetry.job_event(self.name, kind, instance=self._qual(inst), role=inst.role, **detail)

    def _watch(self, inst: _Instance, gen: int, since: float | None) -> Generator[simpy.Event, Any, None]:
        raise NotImplementedError  # the service's hang/stall watchdog

    def _reexecute(self, inst: _Instance, gen: int, since: float) -> Generator[simpy.Event, Any, None]:
        raise NotImplementedError  # the service's HCCL operator retry of a stalled collective

    # ---- the model ------------------------------------------------------------------------------------
    def _nominal_factor(self, nodes: list[str]) -> float:
        assert self.sim is not None
        return 1.0 if len(nodes) <= 1 else 1.0 - self.sim.params.fabric.inter_node_overhead

    def capacity_per_npu(self) -> dict[str, float]:
        """Fault-free figures computed by the roofline for the current layout."""
        roof = self.roof
        dec = self._role("decode")[0]
        pre = self._role("prefill")[0]
        nd, fd = self._npus(dec), self._nominal_factor(dec.nodes)
        bmax = roof.decode_max_batch(nd)
        tpot = roof.tpot(bmax, nd, fd)
        b15 = roof.batch_for_tpot(self.p.tpot_tight_ms / 1e3, nd, fd)
        terms = roof.decode_terms(nd, fd)
        return {
            "prefill_tokens_per_s_per_npu": roof.prefill_rate(self._npus(pre), self._nominal_factor(pre.nodes)),
            "decode_tokens_per_s_per_npu": bmax / tpot,
            "decode_batch_per_npu": bmax,
            "tpot_ms": tpot * 1e3,
            "decode_tokens_per_s_per_npu_tight": b15 / (self.p.tpot_tight_ms / 1e3),
            "decode_batch_per_npu_tight": b15,
            "decode_comm_share": terms["comm"] / (terms["compute"] + terms["comm"]),
        }

    def _hardware_ok(self, inst: _Instance) -> bool:
        assert self.sim is not None
        nodes = set(inst.nodes)
        topo = self.sim.topology
        for cid, h in self.sim.state.unhealthy().items():
            if h not in UP and topo.kind.get(cid) in _DEVICE_KINDS and ids.node_of(cid) in nodes:
                return False
        return True

    def _rdma_factor(self, inst: _Instance) -> float:
        """Share of the instance's RoCE ports that are up (KV cache hand-over bandwidth)."""
        assert self.sim is not None
        nodes = set(inst.nodes)
        down = sum(1 for cid, h in self.sim.state.unhealthy().items()
                   if h not in UP and self.sim.topology.kind.get(cid) == "roce" and ids.node_of(cid) in nodes)
        ports = self._npus(inst) * self.sim.topology.params.dies_per_npu
        return 1.0 - down / ports

    def _collective(self, inst: _Instance) -> float:
        """``sim.fabric.collective_factor(inst.nodes)``, from per-node factors cached until that node changes.

        The fabric drops its whole cache on any plant change; recomputing only the changed node keeps a change
        on one of the decode instance's 20 nodes at one node's cost. Same formula as the fabric's (a test checks).
        """
        assert self.sim is not None
        fab = self.sim.fabric
        bw = []
        for n in inst.nodes:
            if n not in self._node_bw:
                self._node_bw[n] = (fab.intra_node_factor(n), fab.inter_node_factor(n))
            bw.append(self._node_bw[n])
        f = min(a for a, _b in bw)
        if len(bw) > 1:
            f = min(f, min(b for _a, b in bw) * (1 - fab.params.inter_node_overhead))
        return f

    def _serving_factor(self, inst: _Instance) -> float:
        """The collective factor the instance computes with: 0 unless running, and 0 while its collective is stalled
        (it waits for the next HCCL re-execution even once the path is back)."""
        return self._collective(inst) if inst.state == "running" and inst.blocked_since is None else 0.0

    def _slowdown(self, inst: _Instance) -> float:
        return max((f for npu, f in self._slow.items() if ids.node_of(npu) in inst.nodes), default=1.0)

    def _compute(self) -> _Snap:
        assert self.sim is not None
        sim, p, roof = self.sim, self.p, self.roof
        snap = _Snap(sim.now)
        lam = self.demand_req_s
        snap.demand_tok_s = lam * p.output_tokens
        # prefill: the router sends to every instance it believes alive, balanced by capacity; a hung or
        # stalled instance keeps its nominal share (lost) until it is declared down
        pre = self._role("prefill")
        routable = [i for i in pre if i.state in ("running", "hung")]
        cap_tok: dict[str, float] = {}
        for i in pre:
            f = self._serving_factor(i)
            cap_tok[i.name] = roof.prefill_rate(self._npus(i), f, self._slowdown(i)) * self._npus(i)
        working = [i for i in routable if cap_tok[i.name] > 0]
        nominal = {i.name: self._nominal["prefill_tokens_per_s_per_npu"] * self._npus(i) for i in pre}
        blind = sum(nominal[i.name] for i in routable if cap_tok[i.name] <= 0)
        total_nom = sum(nominal[i.name] for i in routable)
        lam_work = lam * (1 - blind / total_nom) if total_nom > 0 else 0.0
        cap_req = sum(cap_tok[i.name] for i in working) / p.prompt_tokens
        # decode capacity; the router admits no more than decode can take (back-pressure)
        dec = self._role("decode")
        dcap: dict[str, tuple[float, float]] = {}
        for i in dec:
            f = self._serving_factor(i)
            n = self._npus(i)
            c, _b, _t = roof.decode_operating_point(math.inf, n, f, self._slowdown(i))
            dcap[i.name] = (c * n, f)
        snap.decode_cap_tok_s = sum(c for c, _f in dcap.values())
        admitted = min(lam_work, snap.decode_cap_tok_s / p.output_tokens)
        pre_served = min(admitted, cap_req)
        rho = admitted / cap_req if cap_req > 0 else math.inf
        snap.prefill_tok_s = pre_served * p.prompt_tokens
        for i in pre:
            share = cap_tok[i.name] / (cap_req * p.prompt_tokens) if i in working and cap_req > 0 else 0.0
            snap.inst_tok_s[i.name] = snap.prefill_tok_s * share
        # decode: what prefill hands over, balanced over working decode instances by capacity
        want = pre_served * p.output_tokens
        tpots: list[tuple[float, float]] = []
        for i in dec:
            c, f = dcap[i.name]
            if c <= 0:
                snap.inst_tok_s[i.name] = 0.0
                continue
            n = self._npus(i)
            d = want * c / snap.decode_cap_tok_s
            served, _b, tp = roof.decode_operating_point(d / n, n, f, self._slowdown(i))
            snap.inst_tok_s[i.name] = served * n
            tpots.append((served * n, tp))
        snap.decode_tok_s = sum(s for s, _t in tpots)
        if tpots:
            w = sum(s for s, _t in tpots)
            snap.tpot_s = (sum(s * t for s, t in tpots) / w) if w > 0 else min(t for _s, t in tpots)
        # TTFT = prefill batch time + M/D/1 wait + KV transfer over RDMA
        if working and cap_req > 0 and pre_served > 0:
            ctot = sum(cap_tok[i.name] for i in working)
            batch_s = sum(cap_tok[i.name] / ctot * p.prefill_batch_tokens_per_npu * self._npus(i) / cap_tok[i.name]
                          for i in working)
            wait = (rho * batch_s / (2 * (1 - rho))) if rho < 1 else math.inf
            wait = min(wait, p.max_queue_wait_s)
            rdma = min([self._rdma_factor(i) for i in working]
                       + [self._rdma_factor(i) for i in dec if dcap[i.name][0] > 0] + [1.0])
            kv_s = (p.prompt_tokens * p.kv_bytes_per_token / (sim.params.fabric.rdma_port_gbits_s / 8 * 1e9 * rdma)
                    if rdma > 0 else math.inf)
            snap.ttft_s = batch_s + wait + kv_s
        snap.violating = (snap.decode_tok_s < snap.demand_tok_s * (1 - 1e-9) or snap.tpot_s > p.tpot_slo_ms / 1e3
                          or snap.ttft_s > p.ttft_slo_s)
        for i in [*pre, *dec]:
            if i.state == "running":
                blocked = snap.inst_tok_s.get(i.name, 0.0) <= 0 and (
                    cap_tok.get(i.name, 1.0) <= 0 or dcap.get(i.name, (1.0, 1.0))[0] <= 0)
                if blocked and i.blocked_since is None:  # it resumes only at an HCCL re-execution
                    i.blocked_since = sim.now
                    self._event(i, "instance_stalled")
                    sim.env.process(self._watch(i, i.gen, sim.now))
                    sim.env.process(self._reexecute(i, i.gen, sim.now))
            snap.inst_up[i.name] = i.state == "running" and i.blocked_since is None
        return snap

    # ---- time keeping and publishing ---------------------------------------------------------------
    def _advance(self, t: float) -> dict[str, float]:
        tot = dict(self._tot)
        if not self._hist:
            return tot
        s = self._hist[-1]
        dt = t - s.t
        if dt <= 0:
            return tot
        tot["tokens"] += s.decode_tok_s * dt
        tot["lost"] += max(0.0, s.demand_tok_s - s.decode_tok_s) * dt
        tot["slo_s"] += dt if s.violating else 0.0
        if s.decode_tok_s > 0 and math.isfinite(s.tpot_s):
            tot["tpot_tok"] += s.decode_tok_s * dt * s.tpot_s
            tot["tpot_w"] += s.decode_tok_s * dt
        return tot

    def _update(self) -> None:
        assert self.sim is not None
        now = self.sim.now
        if self._hist:
            last = self._hist[-1]
            for name, inst in self._insts.items():
                if not last.inst_up.get(name, False):
                    inst.down_s += now - last.t
        self._tot = self._advance(now)
        snap = self._compute()
        if self._times and self._times[-1] == now:
            self._hist[-1] = snap
        else:
            self._hist.append(snap)
            self._times.append(now)
        self._publish(snap)

    def _metric(self, metric: str, component: str, value: float) -> None:
        key = (metric, component)
        if self._published.get(key) != value:
            self._published[key] = value
            assert self.sim is not None
            self.sim.telemetry.metric(metric, component, value)

    def _publish(self, s: _Snap) -> None:
        dec_npus = sum(self._npus(i) for i in self._role("decode"))
        self._metric("decode_tokens_per_s", self.name, s.decode_tok_s)
        self._metric("decode_tokens_per_npu", self.name, s.decode_tok_s / dec_npus)
        self._metric("prefill_tokens_per_s", self.name, s.prefill_tok_s)
        self._metric("tpot_ms", self.name, s.tpot_s * 1e3)
        self._metric("ttft_ms", self.name, s.ttft_s * 1e3)
        for inst in self._insts.values():
            self._metric("instance_up", self._qual(inst), 1.0 if s.inst_up.get(inst.name) else 0.0)
            self._metric("instance_tokens_per_s", self._qual(inst), s.inst_tok_s.get(inst.name, 0.0))


    # ---- histories and accounting -----------------------------------------------------------------------
    def _snap_at(self, t: float) -> _Snap | None:
        i = bisect_right(self._times, t) - 1
        return self._hist[i] if i >= 0 else None

    def throughput_at(self, t: float) -> float:
        """Decode tokens/s of the service at ``t``."""
        s = self._snap_at(t)
        return s.decode_tok_s if s else 0.0

    def tpot_at(self, t: float) -> float:
        """Mean seconds per output token at ``t`` (inf when no decode instance serves)."""
        s = self._snap_at(t)
        return s.tpot_s if s else math.inf

    def ttft_at(self, t: float) -> float:
        """Mean time to first token, seconds, at ``t`` (inf when no prefill instance serves)."""
        s = self._snap_at(t)
        return s.ttft_s if s else math.inf

    def loss_totals_at(self, t: float) -> dict[str, float]:
        """The accounting's loss totals (``lost_tokens``, ``slo_violation_s``) as they stood at ``t`` (<= now),
        summed over the rate snapshots as :meth:`_advance` sums them: a scorer charges a loss to any interval after
        the run, not only to the moments it took snapshots."""
        key = (len(self._hist), id(self._hist[-1]) if self._hist else None)
        if self._prefix_key != key:  # running sums at each snapshot's start, built once per read
            lost, slo = [0.0], [0.0]
            for k in range(len(self._hist) - 1):
                s, dt = self._hist[k], self._times[k + 1] - self._times[k]
                lost.append(lost[-1] + max(0.0, s.demand_tok_s - s.decode_tok_s) * dt)
                slo.append(slo[-1] + (dt if s.violating else 0.0))
            self._prefix, self._prefix_key = (lost, slo), key
        i = bisect_right(self._times, t) - 1
        if i < 0:
            return {"lost_tokens": 0.0, "slo_violation_s": 0.0}
        s, dt = self._hist[i], t - self._times[i]
        return {"lost_tokens": self._prefix[0][i] + max(0.0, s.demand_tok_s - s.decode_tok_s) * dt,
                "slo_violation_s": self._prefix[1][i] + (dt if s.violating else 0.0)}

    def rate_history(self) -> list[dict[str, Any]]:
        """Piecewise-constant segments, each valid from its ``t`` to the next one's."""
        return [s.as_dict() for s in self._hist]

    def accounting(self) -> dict[str, Any]:
        now = self.sim.now if self.sim else 0.0
        tot = self._advance(now)
        cap = self._nominal if self.sim else {}
        last = self._hist[-1] if self._hist else None
        down = {self._qual(i): i.down_s + (now - last.t if last and not last.inst_up.get(i.name) else 0.0)
                for i in self._insts.values()}
        return {
            "name": self.name, "kind": self.kind,
            "tokens_served": tot["tokens"], "lost_tokens": tot["lost"], "slo_violation_s": tot["slo_s"],
            "mean_tpot_ms": tot["tpot_tok"] / tot["tpot_w"] * 1e3 if tot["tpot_w"] > 0 else None,
            "decode_tokens_per_s_per_npu_fault_free": cap.get("decode_tokens_per_s_per_npu"),
            "prefill_tokens_per_s_per_npu_fault_free": cap.get("prefill_tokens_per_s_per_npu"),
            "tpot_ms_fault_free": cap.get("tpot_ms"),
            "demand_tokens_per_s": self.demand_req_s * self.p.output_tokens if self.sim else None,
            "instance_down_s": down,
        }
