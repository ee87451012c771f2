"""The training job's step-time model, its state and its time accounting.

Step time = compute (model FLOPs / (NPUs x peak x efficiency), times the slowest rank's slowdown) + exposed
communication (bytes each NPU moves per step over the per-NPU UB bandwidth, scaled by the fabric's intra-node
and collective factors, minus the overlapped share) + the in-memory checkpoint overhead. The job's progress is a
float step position advanced lazily at ``1 / step_time``: nothing ticks per step; state changes, plant changes,
checkpoints and control actions are the only events.

:class:`StepTimeModel` holds the placement (ranks, per-step traffic inside nodes, across nodes over UB and across
pods over RDMA), the physics, the stall cause a placement has now (:meth:`StepTimeModel._assess`) and the
bookkeeping of every state change (time accounted per state, rate history, metrics, job events, console lines).
The state machine on top of it: :mod:`faultlib.workloads.training_stalls`.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from faultlib import ids
from faultlib.health import UP
from faultlib.workloads.base import Workload
from faultlib.workloads.training_params import TrainingParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation

JobState = Literal["new", "running", "checkpointing", "stalled", "down", "restarting", "recovering"]
COMPUTE_KINDS = frozenset({"node", "npu", "die", "hbm"})
"""Component kinds whose loss kills the rank on them."""
EPS = 1e-9
"""Tolerance of a step position on a step boundary."""


@dataclass(frozen=True, slots=True)
class _Books:
    """A training job's bookkeeping right after a state change (the figures :meth:`StepTimeModel._advance` moves
    on from there)."""

    t: float
    state: str
    rate: float
    pos: float
    hw: float
    processed: float
    down_s: float
    stalled_s: float
    redone_s: float
    slow_loss_s: float
    ckpt_s: float
    nominal_s: float


def running_split(dt: float, rate: float, pos: float, hw: float, nominal_s: float) -> tuple[float, float]:
    """Of ``dt`` seconds running at ``rate`` steps/s from step ``pos`` (``hw``: the furthest step reached): the
    seconds spent redoing steps already done once (up to ``hw``), and the useful part's shortfall against the nominal
    step time, in seconds (a redone stretch is lost whole already)."""
    redo_t = min(dt, max(0.0, hw - pos) / rate) if rate > 0 else 0.0
    return redo_t, (dt - redo_t) * max(0.0, 1.0 - rate * nominal_s)


class StepTimeModel(Workload):
    """A synchronous training job's placement, step time and accounting (no state machine: see the subclasses)."""

    def __init__(self, name: str, nodes: list[str], params: TrainingParams | None = None) -> None:
        if not nodes or len(set(nodes)) != len(nodes):
            raise ValueError(f"training job {name!r}: nodes must be a non-empty list without duplicates")
        super().__init__(name, nodes)
        self._given = params
        self.p = params or TrainingParams()
        self.state: JobState = "new"
        self._watched_cache: dict[str, list[tuple[str, str]]] = {}
        self._published: dict[str, float] = {}  # last rank_step_time_s written per NPU
        self.last_restart: dict[str, Any] | None = None  # the checkpoint the last restart loaded (journal detail)
        self.nominal_rates: list[tuple[float, float]] = []  # (since t, fault-free steps/s of the placement then)

    # ---- set-up ----------------------------------------------------------------------------------
    def attach(self, sim: Simulation) -> None:
        """Reset every figure and state of the job and place it on its nodes (the caller then starts it)."""
        super().attach(sim)
        self.p = self._given or sim.params.training
        self._t0 = self._t_last = sim.now
        self._pos = self._hw = self._processed = 0.0
        self._useful_s = self._redone_s = self._running_s = 0.0
        self._stalled_s = self._down_s = self._ckpt_s = self._slow_loss_s = 0.0
        self._rate = 0.0
        self._step_s = 0.0
        self._times: list[float] = []
        self._rates: list[float] = []
        self._books: list[_Books] = []  # the bookkeeping at each state change (:meth:`loss_totals_at`)
        self._book_times: list[float] = []
        self._hangs: dict[str, str] = {}
        self._dead: dict[str, str] = {}  # job device / node out of service now -> its health
        self._lost: dict[str, str] = {}  # devices whose ranks died while the processes ran (until restart)
        self._slow: dict[str, float] = {}
        self._nodes_lost: set[str] = set()  # job nodes whose host memory was lost since the last (re)start
        self._run_base = 0  # step the current processes started from
        self._last_persistent = 0
        self._ckpt_pending = False
        self._gen = {"stall": 0, "resume": 0, "boundary": 0, "write": 0, "op": 0, "ckpt": 0}
        self._resume_pending = False
        self._timer_expired = False
        self._stall_t = 0.0
        self._stall_frac = 0.0
        self._counts = {"crashes": 0, "timeouts": 0, "restarts": 0, "in_place_recoveries": 0,
                        "persistent_ckpts": 0, "stalls": 0, "scale_ins": 0, "scale_outs": 0}
        self._launch_nodes = len(self.nodes)
        self._launch_nominal_s = 0.0  # set by the first placement
        self._degraded_since: float | None = None  # placed on fewer nodes than launched since then
        self._degraded_s = self._degraded_loss_s = 0.0
        self._place(self.nodes)

    def _place(self, nodes: list[str]) -> None:
        """(Re)derive ranks, the per-step traffic and the dead-component set for a placement."""
        topo = self._sim.topology
        self.nodes = list(nodes)
        self._node_set = set(nodes)
        self.ranks = [n for nd in nodes for n in topo.npus_of(nd)]
        self._rank_of = {npu: r for r, npu in enumerate(self.ranks)}
        self._intra_b, self._inter_b = self._traffic()
        self._rdma_b = self._pod_traffic()
        self._inter_b = max(0.0, self._inter_b - self._rdma_b)  # the cross-pod share rides RDMA, not UB
        self._shard_b = self.p.total_params_b * 1e9 * self.p.state_bytes_per_param / len(self.ranks)
        healthy_coll = 1 - self._sim.params.fabric.inter_node_overhead if len(nodes) > 1 else 1.0
        self._nominal_s = self._compute_s() + self._overhead_s(1.0, healthy_coll)
        self.nominal_rates.append((self._sim.now, 1.0 / self._nominal_s))
        if not self._launch_nominal_s:
            self._launch_nominal_s = self._nominal_s
        if len(nodes) >= self._launch_nodes:
            self._degraded_since = None
        elif self._degraded_since is None:  # scaled in: fewer data-parallel replicas from now on
            self._degraded_since = self._sim.now
        self._slow = {k: v for k, v in self._slow.items() if k in self._rank_of}
        self._nodes_lost &= self._node_set
        self._dead = {}
        self._roce_down: set[str] = set()
        self._fabric_changed(None)
        down = {n for c, h in self._sim.state.unhealthy().items() if h not in UP and (n := ids.node_of(c))}
        for nd in (n for n in nodes if n in down):  # only nodes with a part out of service (cost: those)
            for cid, kind in self._watched(nd):
                if not self._sim.state.is_up(cid):
                    if kind == "roce":
                        self._roce_down.add(cid)
                    else:
                        self._dead[cid] = str(self._sim.state.health(cid))

    def _watched(self, node: str) -> list[tuple[str, str]]:
        """The node's components whose health matters to a rank (compute parts, RoCE ports), cached per node."""
        cache = self._watched_cache
        if node not in cache:
            topo = self._sim.topology
            cache[node] = [(c, topo.kind[c]) for c in [node, *topo.descendants(node)]
                           if topo.kind.get(c) in COMPUTE_KINDS or topo.kind.get(c) == "roce"]
        return cache[node]

    @property
    def _sim(self) -> Simulation:
        if self.sim is None:
            raise RuntimeError(f"training job {self.name!r} is not attached to a simulation")
        return self.sim

    # ---- physics ---------------------------------------------------------------------------------
    def _traffic(self) -> tuple[float, float]:
        """Bytes one NPU sends per step: (inside its node, across nodes)."""
        p, g, nn = self.p, self._sim.topology.params.npus_per_node, len(self.nodes)
        n = nn * g
        tp = min(p.tensor_parallel, g)
        pp = min(p.pipeline_parallel, nn)
        dp = n / (tp * pp)
        ep = max(1.0, min(float(p.expert_parallel), dp))
        tok_replica = p.global_batch_seqs * p.seq_len / dp
        tok_rank = tok_replica / tp
        tp_b = (p.layers / pp) * tok_replica * p.hidden * p.act_bytes * p.tp_collectives_per_layer * (tp - 1) / tp
        ep_b = ((p.moe_layers / pp) * tok_rank * p.experts_per_token * p.hidden
                * (p.dispatch_bytes + 3 * p.combine_bytes) * (ep - 1) / ep)
        ranks_per_node = g / tp
        nodes_per_stage = nn / pp
        ep_off = 0.0 if nodes_per_stage <= 1 or ep <= ranks_per_node else 1 - (ranks_per_node - 1) / (ep - 1)
        dense = (p.total_params_b - p.routed_expert_params_b) * 1e9 / (tp * pp)
        expert = p.routed_expert_params_b * 1e9 / (tp * pp * ep)
        edp = dp / ep
        dp_b = (p.grad_reduce_bytes + p.param_gather_bytes) * (dense * (dp - 1) / dp + expert * (edp - 1) / edp)
        pp_b = 2 * tok_rank * p.hidden * p.act_bytes if pp > 1 else 0.0
        dp_across = nodes_per_stage > 1
        intra = tp_b + ep_b * (1 - ep_off) + (0.0 if dp_across else dp_b)
        inter = ep_b * ep_off + (dp_b if dp_across else 0.0) + pp_b
        return intra, inter

    def _pod_traffic(self) -> float:
        """Bytes one NPU sends per step to other pods, over the RDMA plane (0 for a job inside one pod).

        Layout assumed for a job spanning k pods: each pod holds whole pipeline replicas (TP, PP and EP stay on
        the pod's UB plane); only data-parallel groups span pods. Their reduce is hierarchical (inside the pod
        over UB, then between pods over RDMA on the pod-reduced shard): a DP group of m replicas, m/k per pod,
        sends shard x (k-1)/m per NPU between pods; a group with fewer replicas than pods (m < k: one replica
        per pod) sends shard x (m-1)/m. The rest of the DP bytes stay in ``_traffic``'s UB share. A job with at
        most one node per pipeline stage keeps its DP traffic inside nodes (no RDMA term: simplification).
        """
        k = len({ids.pod_of(n) for n in self.nodes})
        p, g, nn = self.p, self._sim.topology.params.npus_per_node, len(self.nodes)
        tp, pp = min(p.tensor_parallel, g), min(p.pipeline_parallel, nn)
        if k < 2 or nn / pp <= 1:
            return 0.0
        dp = nn * g / (tp * pp)
        ep = max(1.0, min(float(p.expert_parallel), dp))
        dense = (p.total_params_b - p.routed_expert_params_b) * 1e9 / (tp * pp)
        expert = p.routed_expert_params_b * 1e9 / (tp * pp * ep)

        def cross(shard: float, m: float) -> float:
            return shard * (min(k, m) - 1) / max(m, min(k, m)) if m > 1 else 0.0

        return (p.grad_reduce_bytes + p.param_gather_bytes) * (cross(dense, dp) + cross(expert, dp / ep))

    def _rdma_factor(self) -> float:
        """Usable share of the per-NPU RDMA bandwidth: an NPU with some die ports down sends over the rest (bonded
        ports run at reduced bandwidth, facts.md §2); the slowest NPU sets the pace; 0 = an NPU has none left."""
        if not self._rdma_b or not self._roce_down:
            return 1.0
        dies = self._sim.topology.params.dies_per_npu
        down: dict[str | None, int] = {}
        for port in self._roce_down:
            down[ids.npu_of(port)] = down.get(ids.npu_of(port), 0) + 1
        return max(0.0, min((dies - k) / dies for k in down.values()))

    def _compute_s(self) -> float:
        p = self.p
        flops = p.flops_per_param_token * p.active_params_b * 1e9 * p.global_batch_seqs * p.seq_len
        return flops / (len(self.ranks) * p.peak_tflops * 1e12 * p.compute_efficiency)

    def _overhead_s(self, intra_f: float, coll_f: float, rdma_f: float = 1.0) -> float:
        """Exposed communication + in-memory checkpoint time per step at the given fabric factors (> 0)."""
        p = self.p
        bw = self._sim.params.fabric.npu_ub_gbytes_s * 1e9
        comm = (1 - p.intra_overlap) * self._intra_b / (bw * intra_f)
        if self._inter_b:
            comm += (1 - p.inter_overlap) * self._inter_b / (bw * coll_f)
        if self._rdma_b:  # per NPU: one RoCE port per die (fabric.rdma_port_gbits_s each)
            rdma = self._sim.params.fabric.rdma_port_gbits_s / 8 * 1e9 * self._sim.topology.params.dies_per_npu
            comm += (1 - p.inter_overlap) * self._rdma_b / (rdma * rdma_f)
        peer_f = coll_f if len(self.nodes) > 1 else intra_f
        mem = self._shard_b / (bw * peer_f) * (1 - p.mem_ckpt_overlap) / p.mem_ckpt_every_steps
        return comm + mem

    def _factors(self) -> tuple[float, float]:
        """(intra-node factor, collective factor) of the job: ``fabric.collective_factor`` over its nodes, kept
        per node as nodes change (only degraded nodes are held), so a change costs one node, not the job's size."""
        intra = min((f[0] for f in self._degraded.values()), default=1.0)
        if len(self.nodes) == 1:
            return intra, intra
        inter = min((f[1] for f in self._degraded.values()), default=1.0)
        return intra, min(intra, inter * (1 - self._sim.params.fabric.inter_node_overhead))

    def _fabric_changed(self, node: str | None) -> None:
        """Re-read the fabric factors of ``node`` (None: of every job node, after a pod- or cluster-wide change)."""
        if node is None:
            self._degraded: dict[str, tuple[float, float]] = {}
        fab = self._sim.fabric
        for n in self.nodes if node is None else [node]:
            f = (fab.intra_node_factor(n), fab.inter_node_factor(n))
            if f == (1.0, 1.0):
                self._degraded.pop(n, None)
            else:
                self._degraded[n] = f

    def _assess(self) -> tuple[tuple[str, str, int] | None, float, float]:
        """(stall cause (kind, component, blamed rank) or None, step time, per-rank overhead)."""
        for lost in (self._lost, self._dead):
            if lost:
                cid = next(iter(lost))
                return ("dead", cid, self._rank_for(cid)), math.inf, math.inf
        if self._hangs:
            cid = next(iter(self._hangs))
            return ("hang", cid, self._rank_for(cid)), math.inf, math.inf
        intra, coll = self._factors()
        if intra <= 0 or coll <= 0:
            multi = len(self.nodes) > 1
            zero = {n for n, f in self._degraded.items() if f[0] <= 0 or (multi and f[1] <= 0)}
            bad = next((n for n in self.nodes if n in zero), self.nodes[0])
            return ("path", bad, self._rank_for(bad)), math.inf, math.inf
        rdma_f = self._rdma_factor()
        if rdma_f <= 0:
            port = min(self._roce_down)
            return ("path", port, self._rank_for(port)), math.inf, math.inf
        over = self._overhead_s(intra, coll, rdma_f)
        slow = max(self._slow.values(), default=1.0)
        return None, self._compute_s() * slow + over, over

    def _rank_for(self, component: str) -> int:
        npu = ids.npu_of(component)
        if npu in self._rank_of:
            return self._rank_of[npu]
        nd = ids.node_of(component)
        return self.nodes.index(nd) * (len(self.ranks) // len(self.nodes)) if nd in self._node_set else 0

    def _storage_ok(self) -> bool:
        st = self._sim.state
        return all(st.is_up(f"{n}/qingtian") for n in self.nodes)

    # ---- bookkeeping -----------------------------------------------------------------------------
    def _advance(self) -> None:
        """Account the time since the last update in the current state."""
        now = self._sim.now
        dt = now - self._t_last
        if dt <= 0:
            return
        if self.state == "running":
            steps = self._rate * dt
            redo_t, slow_t = running_split(dt, self._rate, self._pos, self._hw, self._nominal_s)
            self._redone_s += redo_t
            self._useful_s += dt - redo_t
            self._running_s += dt
            self._slow_loss_s += slow_t
            if self._degraded_since is not None:  # running scaled in: the launch placement's throughput lost
                self._degraded_s += dt
                self._degraded_loss_s += dt * max(0.0, 1.0 - self._launch_nominal_s / self._nominal_s)
            self._processed += steps
            self._pos += steps
            if abs(self._pos - round(self._pos)) < 1e-7:
                self._pos = float(round(self._pos))
            self._hw = max(self._hw, self._pos)
        elif self.state == "stalled":
            self._stalled_s += dt
        elif self.state == "checkpointing":
            self._ckpt_s += dt
        else:
            self._down_s += dt
        self._t_last = now

    def loss_totals_at(self, t: float) -> dict[str, float]:
        """The accounting's loss totals (``lost_npu_s``, ``redone_steps``, ``downtime_s``, ``stalled_s``,
        ``ckpt_stall_s``) as they stood at ``t`` (<= now): the bookkeeping of the last state change before ``t``,
        advanced as :meth:`_advance` advances it (exact at a state change, which is where a scorer cuts a run).
        Lets a scorer charge a loss to any interval after the run, not only to the moments it took snapshots."""
        i = bisect_right(self._book_times, t) - 1
        if i < 0:
            return {"lost_npu_s": 0.0, "redone_steps": 0.0, "downtime_s": 0.0, "stalled_s": 0.0, "ckpt_stall_s": 0.0}
        b = self._books[i]
        dt = max(0.0, t - b.t)
        down, stalled, redone, slow, ckpt, processed, hw = (b.down_s, b.stalled_s, b.redone_s, b.slow_loss_s,
                                                            b.ckpt_s, b.processed, b.hw)
        if b.state == "running":
            redo_t, slow_t = running_split(dt, b.rate, b.pos, b.hw, b.nominal_s)
            redone, slow = redone + redo_t, slow + slow_t
            processed += b.rate * dt
            hw = max(hw, b.pos + b.rate * dt)
        elif b.state == "stalled":
            stalled += dt
        elif b.state == "checkpointing":
            ckpt += dt
        else:
            down += dt
        # NPU-seconds as :meth:`accounting` counts them (lost seconds x the job's NPUs now), so that the losses of
        # intervals add up to its figure even when a scale-in or -out changed the job's size in between
        return {"lost_npu_s": (down + stalled + redone + slow) * len(self.ranks),
                "redone_steps": max(0.0, processed - hw), "downtime_s": down, "stalled_s": stalled,
                "ckpt_stall_s": ckpt}

    def redo_until(self, t: float) -> float:
        """When the stretch of redone steps under way at ``t`` is over (a restart from a checkpoint runs the steps
        since it again: lost work that follows the job's return); ``t`` when none is, or at the next state change
        that interrupts it."""
        i = bisect_right(self._book_times, t) - 1
        for k in range(max(i, 0), len(self._books)):
            b = self._books[k]
            start = max(t, b.t)
            if b.state != "running" or b.rate <= 0:
                return start
            pos = b.pos + b.rate * (start - b.t)
            if pos >= b.hw - EPS:
                return start
            done = start + (b.hw - pos) / b.rate
            nxt = self._book_times[k + 1] if k + 1 < len(self._books) else self._sim.now
            if done <= nxt:
                return done
        return max(t, self._sim.now) if self._books else t

    def _set(self, state: JobState, rate: float) -> None:
        """Move to ``state`` at ``rate`` steps/s (caller has advanced); record the rate and the metrics."""
        sim = self._sim
        old = self.state
        self.state = state
        self._rate = rate
        if not self._rates or self._rates[-1] != rate:
            if self._times and self._times[-1] == sim.now:
                self._rates[-1] = rate
            else:
                self._times.append(sim.now)
                self._rates.append(rate)
        tel = sim.telemetry
        tel.metric("train_steps_per_s", self.name, rate)
        if state == "running":
            tel.metric("step_time_s", self.name, self._step_s)
        elif state == "stalled":
            frac = self._stall_frac if old == "running" else 0.0
            tel.metric("step_time_s", self.name, frac * self._step_s, slope=1.0)
        elif state != "checkpointing":
            tel.metric("step_time_s", self.name, 0.0)
        books = _Books(sim.now, state, rate, self._pos, self._hw, self._processed, self._down_s, self._stalled_s,
                       self._redone_s, self._slow_loss_s, self._ckpt_s, self._nominal_s)
        if self._books and self._books[-1].t == sim.now:
            self._books[-1] = books
        else:
            self._books.append(books)
            self._book_times.append(sim.now)
        if old != state and state != "checkpointing" and not (old == "checkpointing" and state == "running"):
            # a checkpoint write and its end are no state change of the job's (running before and after); a crash
            # during the write is one: it was dropped, and triggers on job_down / recovery_start never fired
            sim.trace.record(sim.now, "job", self.name, state=state, step=round(self._pos, 6))

    def _event(self, kind: str, **detail: Any) -> None:
        self._sim.telemetry.job_event(self.name, kind, step=int(self._pos + EPS), **detail)

    def _log(self, node: str, level: str, text: str) -> None:
        ts = self._sim.wallclock().strftime("%Y-%m-%d %H:%M:%S")
        self._sim.telemetry.log(node, "train", level, f"[{ts}] {text}")

    def _publish_ranks(self, over: float) -> None:
        """Per-rank step time for every rank (a slowed rank's is longer; the series exist for all ranks)."""
        tel = self._sim.telemetry
        base = self._compute_s()
        last = self._published
        for npu in self.ranks:
            v = base * self._slow.get(npu, 1.0) + over
            if last.get(npu) != v:  # an unchanged constant series needs no new segment
                tel.metric("rank_step_time_s", npu, v)
                last[npu] = v

    def _bump(self, *names: str) -> None:
        for n in names:
            self._gen[n] += 1

    def _after(self, delay: float, fn: Any, *args: Any) -> None:
        """Call ``fn(*args)`` after ``delay`` simulated seconds (one simpy event; stale calls check a generation)."""
        ev = self._sim.env.timeout(max(0.0, delay))
        ev.callbacks.append(lambda _ev: fn(*args))
