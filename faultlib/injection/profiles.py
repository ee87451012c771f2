"""Random fault profiles: interruption rates by root-cause category, background faults, burst and lemon options.

A profile is typed data with sources. Its interruption part is a root-cause table (count per category over an
observed population of accelerators and days, facts.md §4); each category's rate per accelerator-year is
``count * scale / (accelerators * days / 365)`` and maps to fault kinds of the catalogue with weights and a
stated reason. Categories with no fault kind of their own map to the closest kind and keep their category on the
drawn :class:`FaultSpec`, so counts per category are preserved. The background part holds non-interrupting
faults (degradation, self-healing flaps, error storms, stragglers) with rates per component-year; they never
count toward the interruption table.

``draw_timeline`` costs time proportional to the faults drawn (plus one pass over the topology's candidates
of each targeted kind when a topology is given).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from faultlib.faults.catalog import CATALOG
from faultlib.injection.selectors import TargetIndex
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.params import P, ParamGroup
from faultlib.topology import Topology, TopologyParams

SRC_LLAMA3 = "Llama 3 405B pretraining, 16,384 H100 over 54 days, unexpected interruptions by root cause (facts.md §4)"
SRC_BURSTS = "public 400-server, 348-day fault trace (facts.md §4)"
SECONDS_PER_DAY = 86400.0
DAYS_PER_YEAR = 365.0


class InjectionParams(ParamGroup):
    """Shape of random fault arrivals (burstiness, lemon nodes)."""

    burst_cv: float = P(1.8, "ratio", "coefficient of variation of inter-fault times, " + SRC_BURSTS, ge=1.0)
    burst_window_s: float = P(60.0, "s", "window of 'within 1 min of the previous fault', " + SRC_BURSTS, gt=0)
    burst_fraction: float = P(0.14, "fraction", "share of faults within 1 min of the previous one, " + SRC_BURSTS,
                              ge=0.0, lt=1.0)
    burst_gap_mean_s: float = P(
        15.0, "s", "assumed: follow-on faults of a burst (one power/switch event hitting several parts) come "
        "seconds apart; short against burst_window_s so ~98% of burst gaps fall inside it", gt=0)
    lemon_node_fraction: float = P(0.10, "fraction", "share of nodes that are lemons, " + SRC_BURSTS,
                                   gt=0.0, le=1.0)
    lemon_fault_share: float = P(0.40, "fraction", "share of node-attributed faults the lemon nodes carry, "
                                 + SRC_BURSTS, gt=0.0, lt=1.0)


@dataclass(frozen=True, slots=True)
class KindShare:
    """A fault kind a category maps to; effective weight = ``weight`` x (count of ``per`` components, if set)."""

    kind: str
    weight: float
    per: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Category:
    """One root-cause category: its count in the source table and the kinds it is acted out as."""

    name: str
    count: int
    kinds: tuple[KindShare, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Background:
    """A non-interrupting fault kind with a rate per component-year of topology kind ``per``."""

    kind: str
    rate_per_component_year: float
    per: str
    source: str
    duration_s: float | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    description: str
    source: str
    accelerators: int
    days: float
    categories: tuple[Category, ...]
    background: tuple[Background, ...]
    scale: float = 1.0
    scale_reason: str = "rates as observed in the source table"

    @property
    def accelerator_years(self) -> float:
        return self.accelerators * self.days / DAYS_PER_YEAR

    def rate(self, category: str) -> float:
        """Interruptions per accelerator-year of ``category``."""
        c = self.category(category)
        return c.count * self.scale / self.accelerator_years

    def total_rate(self) -> float:
        return sum(c.count for c in self.categories) * self.scale / self.accelerator_years

    def category(self, name: str) -> Category:
        for c in self.categories:
            if c.name == name:
                return c
        raise KeyError(f"profile {self.name}: no category {name!r}")

    def table(self) -> dict[str, int]:
        return {c.name: c.count for c in self.categories}


def _k(kind: str, weight: float = 1.0, per: str | None = None, reason: str = "") -> KindShare:
    return KindShare(kind, weight, per, reason)


_NODE_LOSS = "the host goes down; the closest modelled effect is a node crash (all ports down, devices lost)"

LLAMA3_CATEGORIES: tuple[Category, ...] = (
    Category("faulty GPU", 148, (
        _k("aicore_hang", 0.75, reason="most accelerator faults are compute-engine errors that stop its cores"),
        _k("npu_off_bus", 0.25, reason="a minority take the whole chip off the bus (Xid 79-like)")),
        "faulty GPU incl. NVLink: the NPU's compute dies or the chip drops; assumed 3:1 split (no public split)"),
    Category("GPU HBM3 memory", 72, (
        _k("hbm_uce", 0.92, reason="row remapping mitigates ~92% of H100 uncorrectable errors [S] (facts.md §4): "
           "the process dies, the row is isolated, the chip stays"),
        _k("hbm_row_exhaustion", 0.08, reason="the remaining ~8% are not mitigated: isolated rows run out, "
           "the chip must be replaced")),
        "HBM faults: uncorrectable ECC errors"),
    Category("software bug", 54, (_k("collective_timeout_sw"),),
             "a rank stuck in software; the collective times out on healthy hardware"),
    Category("network switch/cable", 35, (
        _k("link_down", 0.5, "ub_optical", "module death or fibre cut; half of link faults (no public split)"),
        _k("link_flap", 0.5, "ub_optical", "flapping link (dirty or marginal optics); the other half"),
        _k("l1_switch_failure", 1.0, "l1", "an L1 switch chip fails as often as one link"),
        _k("l2_switch_failure", 1.0, "l2", "an L2 switch chip fails as often as one link")),
        "switch or cable faults, split by relative component counts (links, L1 chips, L2 chips)"),
    Category("host maintenance", 32, (
        _k("node_crash", 0.5, reason="unplanned host outage: panic or power-off"),
        _k("node_hang", 0.5, reason="unplanned host outage: the host stops responding")),
        "host faults needing maintenance; assumed even split between crash and hang"),
    Category("GPU SRAM", 19, (_k("aicore_hang", reason="an on-chip SRAM error stops the die's cores"),),
             "no SRAM fault kind in the catalogue; closest effect: the die's AI cores hang"),
    Category("GPU system processor", 17, (_k("npu_off_bus"),),
             "the chip's management processor fails: heartbeat lost, device gone"),
    Category("NIC", 7, (_k("roce_port_down"),), "scale-out NIC = the die's RoCE port"),
    Category("NCCL watchdog timeouts", 7, (_k("collective_timeout_sw"),),
             "collective-library watchdog timeouts: HCCL timeout with healthy hardware"),
    Category("silent data corruption", 6, (_k("silent_data_corruption"),), "wrong results, no hardware error"),
    Category("GPU thermal interface + sensor", 6, (_k("hbm_overtemp"),),
             "thermal interface/sensor faults end in a fatal over-temperature stop"),
    Category("SSD", 3, (_k("node_crash"),), "local disk failure takes the host down; " + _NODE_LOSS),
    Category("power supply", 3, (_k("node_crash"),), "PSU failure powers the node off; " + _NODE_LOSS),
    Category("server chassis", 2, (_k("node_crash"),), _NODE_LOSS),
    Category("IO expansion board", 2, (_k("qingtian_failure"),),
             "the node's IO card = the Qingtian card (VPC and storage path)"),
    Category("dependency", 2, (_k("collective_timeout_sw"),),
             "an outside service the job depends on stalls a rank; no fault kind of its own, closest effect: "
             "a collective timeout with healthy hardware"),
    Category("CPU", 2, (_k("node_crash"),), "host CPU failure; " + _NODE_LOSS),
    Category("system memory", 2, (_k("node_crash"),), "host DRAM failure; " + _NODE_LOSS),
)

LINK_FAIL_PER_LINK_YEAR = 0.00057 * 12  # HPN: 0.057% of links fail per month

BACKGROUND: tuple[Background, ...] = (
    Background("optical_degradation", LINK_FAIL_PER_LINK_YEAR, "ub_optical",
               "HPN (SIGCOMM'24): 0.057% of links fail per month (facts.md §4) = 0.00684 per link-year; "
               "taken as the rate of optical modules that age toward failure"),
    Background("dirty_connector", 10 * LINK_FAIL_PER_LINK_YEAR, "ub_optical",
               "assumed 10x the link-failure rate: HPN reports 5k-60k link flaps per day fleet-wide, far more "
               "than failures, and Huawei Cloud saw 37% of new links flap, mostly from dirty end-faces "
               "(facts.md §2, §4)"),
    Background("hbm_ce_storm", 0.09, "hbm",
               "assumed ~3x the Llama 3 HBM interruption rate (0.0297 per accelerator-year): most CE storms do "
               "not escalate; same order as the H100 uncorrectable-error MTBE of 88,800 h [S] (0.099/yr)"),
    Background("npu_fail_slow", 0.05, "npu",
               "assumed (no public per-device rate): compute fail-slows are a small share of fail-slow cases "
               "(Alibaba ATC'25 [S]: < 2%, ~10 min each)", duration_s=600.0),
)

PROFILES: MappingProxyType[str, Profile] = MappingProxyType({
    "llama3": Profile(
        "llama3", "Llama 3 405B interruption mix and rate, with background faults", SRC_LLAMA3,
        accelerators=16384, days=54, categories=LLAMA3_CATEGORIES, background=BACKGROUND),
    "meta_rsc1": Profile(
        "meta_rsc1", "Llama 3 category mix at Meta RSC-1's failure rate", SRC_LLAMA3,
        accelerators=16384, days=54, categories=LLAMA3_CATEGORIES, background=BACKGROUND,
        scale=6.50 / 1000 / 8 * DAYS_PER_YEAR / (419 / (16384 * 54 / DAYS_PER_YEAR)),
        scale_reason="Meta RSC-1: 6.50 failures per 1,000 node-days (HPCA'25, facts.md §4) at 8 accelerators "
                     "per node = 0.297 per accelerator-year"),
})


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise FaultPlanError("profile", f"unknown profile {name!r} (known: {', '.join(sorted(PROFILES))})") from None


# ---- component densities ------------------------------------------------------------------------------
def components_per_accelerator(kind: str, topology: Topology | None = None) -> float:
    """How many components (or links) of topology kind ``kind`` there are per NPU."""
    if topology is not None:
        npus = len(topology.by_kind.get("npu", []))
        if kind in topology.by_kind:
            return len(topology.by_kind[kind]) / npus
        return sum(1 for lk in topology.links.values() if lk.kind == kind) / npus
    p = TopologyParams()
    per_node = {"node": 1, "npu": p.npus_per_node, "hbm": p.npus_per_node,
                "die": p.npus_per_node * p.dies_per_npu, "roce": p.npus_per_node * p.dies_per_npu,
                "cpu": p.cpus_per_node, "l1": p.l1_per_node, "qingtian": 1,
                "ub_optical": p.l1_per_node * p.l2_per_plane,
                "l2": p.l2_planes * p.l2_per_plane / p.nodes_per_pod}
    if kind not in per_node:
        raise KeyError(f"no default density for topology kind {kind!r}")
    return per_node[kind] / p.npus_per_node


def kind_weights(category: Category, topology: Topology | None = None) -> tuple[list[str], np.ndarray]:
    """The category's fault kinds and their normalised effective weights."""
    kinds = [s.kind for s in category.kinds]
    w = np.array([s.weight * (components_per_accelerator(s.per, topology) if s.per else 1.0)
                  for s in category.kinds], dtype=float)
    return kinds, w / w.sum()


# ---- bursty arrivals ----------------------------------------------------------------------------------
def burst_mixture(mean_gap_s: float, prm: InjectionParams) -> tuple[np.ndarray, np.ndarray]:
    """Branch probabilities and means (s) of a 3-phase hyper-exponential inter-arrival law.

    Branch 0 is the burst (mean ``burst_gap_mean_s``); branches 1-2 are a balanced-means H2 carrying the rest.
    The burst probability is solved so that ``burst_fraction`` of gaps fall within ``burst_window_s``; the H2's
    spread so that the overall mean is ``mean_gap_s`` (the long-run rate is unchanged) and the coefficient of
    variation is ``burst_cv``. If the plain process already has that many short gaps the burst branch is 0.
    """
    m, m1, w = mean_gap_s, prm.burst_gap_mean_s, prm.burst_window_s
    ex2 = (prm.burst_cv ** 2 + 1.0) * m * m

    def rest(p1: float) -> tuple[float, float, float, float]:
        ey = (m - p1 * m1) / (1.0 - p1)
        ey2 = (ex2 - 2.0 * p1 * m1 * m1) / (1.0 - p1)
        c2 = max(1.0, ey2 / (ey * ey) - 1.0)
        pa = 0.5 * (1.0 + math.sqrt((c2 - 1.0) / (c2 + 1.0)))
        return pa, ey / (2.0 * pa), 1.0 - pa, ey / (2.0 * (1.0 - pa))

    def frac(p1: float) -> float:
        pa, ma, pb, mb = rest(p1)
        f_rest = pa * -math.expm1(-w / ma) + pb * -math.expm1(-w / mb)
        return p1 * -math.expm1(-w / m1) + (1.0 - p1) * f_rest

    hi = min(prm.burst_fraction / -math.expm1(-w / m1), 0.999, m / m1 * 0.999)
    if m1 >= m or frac(0.0) >= prm.burst_fraction:
        p1 = 0.0
    else:
        lo = 0.0
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if frac(mid) < prm.burst_fraction else (lo, mid)
        p1 = 0.5 * (lo + hi)
    pa, ma, pb, mb = rest(p1)
    return np.array([p1, (1 - p1) * pa, (1 - p1) * pb]), np.array([m1, ma, mb])


def renewal_times(rng: np.random.Generator, horizon_s: float, mean_gap_s: float,
                  prm: InjectionParams) -> np.ndarray:
    """Arrival times in [0, horizon) of a renewal process with the bursty inter-arrival law, observed from its
    steady state: the first arrival comes after the forward-recurrence time (the equilibrium excess of the law:
    for a mixture of exponentials, branch i with probability p_i m_i / sum p_j m_j, mean m_i), so the expected count
    is horizon / mean_gap_s over any horizon. Starting the clock at an arrival instead (an ordinary renewal
    process) adds the burst branch's short first gaps: +40% faults in 10 days at one pod's rate."""
    probs, means = burst_mixture(mean_gap_s, prm)
    chunks: list[np.ndarray] = []
    excess = probs * means / float(np.sum(probs * means))
    t = float(rng.exponential(means[rng.choice(len(means), p=excess)]))
    if t >= horizon_s:
        return np.empty(0)
    chunks.append(np.array([t]))
    expect = horizon_s / mean_gap_s
    while t < horizon_s:
        n = int(expect + 4 * math.sqrt(expect + 1) * prm.burst_cv) + 16
        gaps = rng.exponential(means[rng.choice(3, size=n, p=probs)])
        arr = t + np.cumsum(gaps)
        chunks.append(arr[arr < horizon_s])
        t = float(arr[-1])
    return np.concatenate(chunks) if chunks else np.empty(0)


# ---- targets ------------------------------------------------------------------------------------------
def lemon_weights(nodes: list[str], rng: np.random.Generator, prm: InjectionParams) -> dict[str, float]:
    """Per-node weights: a random ``lemon_node_fraction`` of nodes carries ``lemon_fault_share`` of the weight."""
    n = len(nodes)
    k = min(n, max(1, round(prm.lemon_node_fraction * n)))
    if k == n:
        return dict.fromkeys(nodes, 1.0 / n)
    lemons = {nodes[int(i)] for i in rng.choice(n, size=k, replace=False)}
    hi, lo = prm.lemon_fault_share / k, (1.0 - prm.lemon_fault_share) / (n - k)
    return {nd: hi if nd in lemons else lo for nd in nodes}


def pick_targets(index: TargetIndex, fault_kind: str, n: int, rng: np.random.Generator,
                 node_weights: dict[str, float] | None) -> list[str]:
    """``n`` random targets of ``fault_kind``: node by weight x candidates in it, then uniform inside the node."""
    cands = [c for k in CATALOG[fault_kind].targets for c in index.candidates(k)]
    if not cands:
        raise FaultPlanError("target", f"the topology has nothing fault kind {fault_kind} can hit")
    if any(c.node is None for c in cands):
        return [cands[int(i)].id for i in rng.integers(len(cands), size=n)]
    grouped: dict[str, list[str]] = {}
    for c in cands:
        grouped.setdefault(c.node or "", []).append(c.id)
    nodes = sorted(grouped, key=lambda s: (len(s), s))
    w = np.array([len(grouped[nd]) * (node_weights.get(nd, 0.0) if node_weights else 1.0) for nd in nodes])
    if w.sum() <= 0:
        w = np.array([float(len(grouped[nd])) for nd in nodes])
    picks = rng.choice(len(nodes), size=n, p=w / w.sum())
    out = []
    for i in picks:
        members = grouped[nodes[int(i)]]
        out.append(members[int(rng.integers(len(members)))])
    return out


# ---- drawing ------------------------------------------------------------------------------------------
def draw_timeline(profile_name: str, topology: Topology | None, days: float, rng: np.random.Generator,
                  accelerators: int | None = None, bursty: bool = False, lemons: bool = False, *,
                  background: bool = True, params: InjectionParams | None = None,
                  start_s: float = 0.0) -> Timeline:
    """A random timeline of ``days`` days from profile ``profile_name``.

    ``accelerators`` overrides the count the rates are multiplied by (default: the topology's NPUs). Without a
    topology, specs have ``target=None`` (counts and times only, for rate calibration). ``bursty`` draws the
    interruption stream as a renewal process with burst clustering (same long-run rate); ``lemons`` puts a
    share of node-attributed faults on a few nodes (needs a topology). Background faults are Poisson.
    """
    prof = get_profile(profile_name)
    prm = params or InjectionParams()
    if isinstance(days, bool) or not isinstance(days, int | float) or not days > 0:
        raise FaultPlanError("days", f"must be > 0, got {days!r}")
    if accelerators is None:
        if topology is None:
            raise FaultPlanError("accelerators", "give a topology or an accelerator count")
        accelerators = len(topology.by_kind.get("npu", []))
    if isinstance(accelerators, bool) or not isinstance(accelerators, int) or accelerators < 1:
        raise FaultPlanError("accelerators", f"must be an integer >= 1, got {accelerators!r}")
    if lemons and topology is None:
        raise FaultPlanError("lemons", "lemon nodes need a topology to place faults on")
    horizon = days * SECONDS_PER_DAY
    years = days / DAYS_PER_YEAR
    node_weights = lemon_weights(topology.nodes(), rng, prm) if lemons and topology is not None else None

    cats = prof.categories
    mus = np.array([prof.rate(c.name) * accelerators * years for c in cats])
    if bursty:
        times = renewal_times(rng, horizon, horizon / mus.sum(), prm)
        cat_idx = rng.choice(len(cats), size=len(times), p=mus / mus.sum())
    else:
        counts = rng.poisson(mus)
        cat_idx = np.repeat(np.arange(len(cats)), counts)
        times = rng.uniform(0.0, horizon, size=int(counts.sum()))
    rows: list[tuple[float, str, str, str, float | None]] = []  # at, kind, category, origin, duration
    for ci, cat in enumerate(cats):
        where = np.flatnonzero(cat_idx == ci)
        if not len(where):
            continue
        kinds, w = kind_weights(cat, topology)
        picks = rng.choice(len(kinds), size=len(where), p=w)
        rows.extend((float(times[j]), kinds[int(k)], cat.name, f"{prof.name}:{cat.name}", None)
                    for j, k in zip(where, picks, strict=True))
    if background:
        for bg in prof.background:
            mu = bg.rate_per_component_year * components_per_accelerator(bg.per, topology) * accelerators * years
            n = int(rng.poisson(mu))
            rows.extend((float(t), bg.kind, "none", f"{prof.name}:background", bg.duration_s)
                        for t in rng.uniform(0.0, horizon, size=n))

    targets: list[str | None] = [None] * len(rows)
    if topology is not None:
        index = TargetIndex(topology)
        by_kind: dict[str, list[int]] = {}
        for i, r in enumerate(rows):
            by_kind.setdefault(r[1], []).append(i)
        for kind in sorted(by_kind):
            slots = by_kind[kind]
            for i, t in zip(slots, pick_targets(index, kind, len(slots), rng, node_weights), strict=True):
                targets[i] = t
    return Timeline(
        FaultSpec(at_s=start_s + at, kind=kind, target=targets[i], duration_s=dur, source="random",
                  category=cat, origin=origin)
        for i, (at, kind, cat, origin, dur) in enumerate(rows))
