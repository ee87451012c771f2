"""UB fabric bandwidth and routing.

Each node spreads its inter-node UB traffic over its L1-L2 uplinks with routing weights (default: equal
weights, like static ECMP hashing). Moving V bytes then takes ``V * max_i(w_i / c_i)``; a routed uplink of zero
capacity makes that infinite: the collective stalls until traffic is re-routed (or the job times out).
Re-routing (:meth:`Fabric.reroute`) installs weights proportional to the capacity each uplink has now; a
drained uplink (:meth:`Fabric.drain`, link-flap damping) counts as zero capacity there while it stays in service;
it stays drained while any holder's drain request stands (several responses may hold one link).
Intra-node traffic crosses the node's L1 chips the same way.
"""

from __future__ import annotations

from collections.abc import KeysView

from faultlib import ids
from faultlib.params import P, ParamGroup
from faultlib.state import PlantState
from faultlib.topology import Topology

SRC = "arXiv 2506.12708 §3, facts.md §2"


class FabricParams(ParamGroup):
    ub_link_gbytes_s: float = P(28.0, "GB/s", "L2 port bandwidth (48 ports x 28 GB/s per L2 chip), " + SRC, gt=0)
    die_links: int = P(7, "links", "UB links per die (7 x 224 Gb/s), " + SRC, ge=1)
    die_link_gbytes_s: float = P(28.0, "GB/s", "224 Gb/s per die UB link, " + SRC, gt=0)
    rdma_port_gbits_s: float = P(200.0, "Gb/s", "RoCE: 400 Gb/s per NPU = 200 Gb/s per die, " + SRC, gt=0)
    vpc_gbits_s: float = P(400.0, "Gb/s", "Qingtian card, VPC plane per node, " + SRC, gt=0)
    inter_node_overhead: float = P(
        0.03, "fraction", "inter-node vs intra-node bandwidth loss < 3%, " + SRC, ge=0, lt=1)
    route_convergence_s: float = P(3.0, "s", "route convergence wait, MindCluster (facts.md §3)", ge=0)

    @property
    def npu_ub_gbytes_s(self) -> float:
        """Per-NPU unidirectional UB bandwidth (392 GB/s with the defaults)."""
        return self.die_links * self.die_link_gbytes_s * 2


class Fabric:
    """Effective UB bandwidth per node, from plant state and routing weights."""

    def __init__(self, topology: Topology, params: FabricParams, state: PlantState) -> None:
        self.topology = topology
        self.params = params
        self.state = state
        self._weights: dict[str, dict[str, float]] = {}  # node -> {uplink id: weight}; absent = equal
        self._cache: dict[tuple[str, str], float] = {}  # (inter|intra, node) -> factor
        self._holders: dict[str, set[str]] = {}  # drained uplink -> who asked for the drain (never empty)
        state.subscribe(self._invalidate)

    def _invalidate(self, cid: str, _old: object, _new: object) -> None:
        """Drop the cached factors a plant change can affect: its node's only, or all (L2 chip, pod, cluster).

        Every change of health, lanes or routes is announced to listeners, so a per-node drop keeps a flap on
        one node from costing a recompute of every other node's uplinks (DESIGN principle 3).
        """
        lk = self.topology.links.get(cid)
        node = lk.node if lk is not None else ids.node_of(cid)
        if node is None:
            self._cache.clear()
        else:
            self._cache.pop(("inter", node), None)
            self._cache.pop(("intra", node), None)

    def uplink_capacity(self, link_id: str) -> float:
        """Usable fraction (0..1) of an L1-L2 link's nominal bandwidth."""
        lk = self.topology.links[link_id]
        st = self.state
        unhealthy = st.unhealthy_view
        if not (link_id in unhealthy or lk.a in unhealthy or lk.b in unhealthy or lk.node in unhealthy):
            return 1.0 - st.lanes_down(link_id) / lk.lanes  # the common case: every part healthy
        if not (st.is_up(link_id) and st.is_up(lk.a) and st.is_up(lk.b)):
            return 0.0
        node = lk.node
        if node is not None and not st.is_up(node):
            return 0.0
        return 1.0 - st.lanes_down(link_id) / lk.lanes

    def node_uplinks(self, node: str) -> list[str]:
        planes = self.topology.params.l2_planes
        return [lid for p in range(planes) for lid in self.topology.uplinks[(node, p)]]

    def inter_node_factor(self, node: str) -> float:
        """Effective inter-node UB bandwidth of ``node`` as a fraction of nominal; 0.0 means stalled."""
        key = ("inter", node)
        if key not in self._cache:
            links = self.node_uplinks(node)
            weights = self._weights.get(node) or {lid: 1.0 / len(links) for lid in links}
            worst = 0.0
            for lid, w in weights.items():
                if w <= 0:
                    continue
                cap = self.uplink_capacity(lid)
                if cap <= 0:
                    worst = float("inf")
                    break
                worst = max(worst, w / cap)
            # worst == 0: every weight is 0 (re-routed with no usable uplink left): no path either
            self._cache[key] = 0.0 if worst in (0.0, float("inf")) else (1.0 / worst) / len(links)
        return self._cache[key]

    def intra_node_factor(self, node: str) -> float:
        """Effective intra-node (die to die through the L1 chips) bandwidth fraction; 0.0 means stalled."""
        key = ("intra", node)
        if key not in self._cache:
            l1s = [c for c in self.topology.children.get(node, []) if self.topology.kind[c] == "l1"]
            rerouted = node in self._weights
            up = [sw for sw in l1s if self.state.is_up(sw)]
            if not up or (len(up) < len(l1s) and not rerouted):
                self._cache[key] = 0.0
            else:
                self._cache[key] = len(up) / len(l1s)
        return self._cache[key]

    def collective_factor(self, nodes: list[str]) -> float:
        """Bandwidth fraction of a collective spanning ``nodes``: the slowest node sets the pace."""
        if not nodes:
            return 1.0
        f = min(self.intra_node_factor(n) for n in nodes)
        if len(nodes) > 1:
            f = min(f, min(self.inter_node_factor(n) for n in nodes) * (1 - self.params.inter_node_overhead))
        return f

    def is_rerouted(self, node: str) -> bool:
        return node in self._weights

    def reroute(self, node: str) -> float:
        """Install capacity-proportional weights on ``node``'s uplinks; returns the new inter-node factor."""
        links = self.node_uplinks(node)
        caps = {lid: 0.0 if lid in self.drained else self.uplink_capacity(lid) for lid in links}
        total = sum(caps.values())
        self._weights[node] = {lid: (c / total if total else 0.0) for lid, c in caps.items()}
        self.state.touch(node, "reroute", usable=round(total / len(links), 6))
        return self.inter_node_factor(node)

    def drain(self, link: str, holder: str = "") -> float:
        """Route ``link``'s node around the link while it stays in service (its port still reports); returns the
        node's new inter-node factor. ``holder`` names who asked; undone by that holder's :meth:`undrain`."""
        self._holders.setdefault(link, set()).add(holder)
        return self.reroute(self._node_of_link(link))

    def undrain(self, link: str, holder: str = "") -> float:
        """``holder`` lets go of its drain; traffic goes back onto the link (re-routed by the capacity each uplink
        has now) once no holder's drain stands. A maintenance drain held by several requests ends with the last
        (as drain reasons on a network device: the link is out while any reason stands)."""
        held = self._holders.get(link, set())
        held.discard(holder)
        if not held:
            self._holders.pop(link, None)
        return self.reroute(self._node_of_link(link))

    @property
    def drained(self) -> KeysView[str]:
        """Uplinks routed around although in service (flap damping): those some holder's drain holds."""
        return self._holders.keys()

    def drain_holders(self, link: str) -> set[str]:
        """Who holds ``link`` drained now (empty: not drained)."""
        return set(self._holders.get(link, ()))

    def _node_of_link(self, link: str) -> str:
        node = self.topology.links[link].node
        if node is None:
            raise ValueError(f"{link!r} is not a node uplink")
        return node

    def reset_routes(self, node: str) -> None:
        """Back to default equal weights (e.g. after the faulty part was replaced)."""
        if self._weights.pop(node, None) is not None:
            self.state.touch(node, "routes_reset")
