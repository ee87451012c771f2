"""The superpod's physical topology: components, their containment, and every link.

One pod follows CloudMatrix384 (facts.md §2): 48 nodes x (8 NPUs of 2 dies with HBM, 4 CPUs, 7 L1 UB switch
chips, 1 Qingtian card); 7 L2 sub-planes x 16 chips; L1 chip *i* of each node has one optical uplink to each
chip of plane *i*; each die has one electrical UB link to each of its node's L1 chips; one RoCE port per die on
the RDMA plane; the VPC plane through the Qingtian card. Pods join over the RDMA plane.

Components and links are enumerated into plain dicts (cheap at 27 pods); a networkx graph is built on demand.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from pydantic import model_validator

from faultlib import ids
from faultlib.params import P, ParamGroup

if TYPE_CHECKING:
    import networkx as nx

SRC_PAPER = "arXiv 2506.12708 (Serving LLMs on Huawei CloudMatrix384) §3, facts.md §2"


class TopologyParams(ParamGroup):
    """Shape of one superpod and of the cluster."""

    nodes_per_pod: int = P(48, "nodes", SRC_PAPER, ge=1)
    npus_per_node: int = P(8, "NPUs", SRC_PAPER, ge=1)
    dies_per_npu: int = P(2, "dies", "Ascend 910C has two dies, " + SRC_PAPER + "; session 37: on Atlas A3 each "
                          "die is its own logical device, id npu * 2 + die (npu-smi info -m Chip Logic ID; CANN "
                          "Device:/device_id, dev-os-<n>, hisi_logs/device-<n>, device plugin LogicID): MindCluster "
                          "counts DieNPUNumber = 2 devices per A3 NPU and takes a device's NPU as id / 2 "
                          "(Ascend/mind-cluster @22bb3d98 ascend-for-volcano internal/npu/ascend910/ascend910a3/"
                          "type.go, base.go), its device plugin asks for die 0 and die 1 of a card (ascend-device-"
                          "plugin pkg/device/ascend910.go deviceA3Id0/1); the printed ids use the A3 package's 2 "
                          "(faultlib.ids.A3_DIES_PER_NPU) whatever this is set to", ge=1)
    cpus_per_node: int = P(4, "CPUs", "Kunpeng CPUs per node, " + SRC_PAPER, ge=1)
    l1_per_node: int = P(7, "switch chips", "on-board L1 UB switch chips, " + SRC_PAPER, ge=1)
    l2_planes: int = P(7, "planes", "L2 sub-planes, one per L1 chip index, " + SRC_PAPER, ge=1)
    l2_per_plane: int = P(16, "switch chips", SRC_PAPER, ge=1)
    l2_ports: int = P(48, "ports", "ports per L2 chip, one per node, " + SRC_PAPER, ge=1)
    nodes_per_compute_rack: int = P(4, "nodes", "12 compute racks x 4 nodes, " + SRC_PAPER, ge=1)
    comm_racks: int = P(4, "racks", "racks holding the L2 switches, " + SRC_PAPER, ge=1)
    lanes_per_optical_link: int = P(
        4, "lanes", "assumed: a 224 Gb/s port as 4 x 56 Gb/s PAM4 lanes (common 200G/400G module form)", ge=1)
    modules_per_optical_link: int = P(
        2, "modules", "one pluggable module at each end of an L1-L2 fibre (reason: point-to-point optics)",
        ge=1, le=2)
    max_pods: int = P(
        64, "pods", "reason: bounds memory of the enumerated model (64 pods = 24,576 NPUs); 27 pods = 10,368 NPUs "
        "is the 10k-card cluster of the issues", ge=1)

    @model_validator(mode="after")
    def _consistent(self) -> TopologyParams:
        if self.l2_planes != self.l1_per_node:
            raise ValueError("l2_planes must equal l1_per_node (L1 chip i uplinks only to plane i)")
        if self.l2_ports < self.nodes_per_pod:
            raise ValueError("l2_ports must be >= nodes_per_pod (one L2 port per node)")
        if self.nodes_per_pod % self.nodes_per_compute_rack:
            raise ValueError("nodes_per_pod must be a multiple of nodes_per_compute_rack")
        return self


@dataclass(frozen=True, slots=True)
class Link:
    """A physical link between two port owners."""

    id: str
    a: str
    b: str
    kind: str  # ub_optical | ub_electrical | rdma | vpc
    lanes: int
    node: str | None = None
    plane: int | None = None
    modules: tuple[str, ...] = ()


@dataclass
class Topology:
    """Every component (id -> kind), its parent, and every link of a cluster of ``pods`` superpods."""

    params: TopologyParams
    pods: int
    kind: dict[str, str] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    links: dict[str, Link] = field(default_factory=dict)
    links_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    rack_of: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, params: TopologyParams | None = None, pods: int = 1) -> Topology:
        params = params or TopologyParams()
        if not 1 <= pods <= params.max_pods:
            raise ValueError(f"pods must be between 1 and {params.max_pods}, got {pods}")
        topo = cls(params=params, pods=pods)
        topo.add("cluster", "cluster", None)
        topo.add("cluster/rdma", "rdma_fabric", "cluster")
        for p in range(pods):
            topo._build_pod(p)
        return topo

    def add(self, cid: str, kind: str, parent: str | None) -> None:
        self.kind[cid] = kind
        if parent is not None:
            self.parent[cid] = parent

    def add_link(self, a: str, b: str, kind: str, lanes: int, node: str | None = None,
                 plane: int | None = None, modules: tuple[str, ...] = ()) -> Link:
        lk = Link(ids.link(a, b), a, b, kind, lanes, node, plane, modules)
        self.links[lk.id] = lk
        self.links_of[a].append(lk.id)
        self.links_of[b].append(lk.id)
        for m in modules:
            self.add(m, "optical_module", lk.id)
        return lk

    def _build_pod(self, p: int) -> None:
        prm = self.params
        pod = ids.pod(p)
        self.add(pod, "pod", "cluster")
        self.add(f"{pod}/rdma", "rdma_fabric", pod)
        self.add(f"{pod}/vpc", "vpc_fabric", pod)
        self.add_link(f"{pod}/rdma", "cluster/rdma", "rdma", lanes=1)
        n_compute_racks = prm.nodes_per_pod // prm.nodes_per_compute_rack
        for r in range(n_compute_racks + prm.comm_racks):
            self.add(ids.rack(p, r), "rack", pod)
        for plane in range(prm.l2_planes):
            for k in range(prm.l2_per_plane):
                sw = ids.l2(p, plane, k)
                self.add(sw, "l2", pod)
                flat = plane * prm.l2_per_plane + k
                per_rack = -(-prm.l2_planes * prm.l2_per_plane // prm.comm_racks)
                self.rack_of[sw] = ids.rack(p, n_compute_racks + flat // per_rack)
        for n in range(prm.nodes_per_pod):
            self._build_node(p, n)

    def _build_node(self, p: int, n: int) -> None:
        prm = self.params
        nd = ids.node(p, n)
        self.add(nd, "node", ids.pod(p))
        self.rack_of[nd] = ids.rack(p, n // prm.nodes_per_compute_rack)
        for c in range(prm.cpus_per_node):
            self.add(ids.cpu(p, n, c), "cpu", nd)
        qt = ids.qingtian(p, n)
        self.add(qt, "qingtian", nd)
        self.add_link(qt, f"pod{p}/vpc", "vpc", lanes=1, node=nd)
        l1s = [ids.l1(p, n, i) for i in range(prm.l1_per_node)]
        for i, sw in enumerate(l1s):
            self.add(sw, "l1", nd)
            for k in range(prm.l2_per_plane):
                up = ids.l2(p, i, k)
                mods = (ids.module(sw, k), ids.module(up, n))[: prm.modules_per_optical_link]
                self.add_link(sw, up, "ub_optical", prm.lanes_per_optical_link, node=nd, plane=i, modules=mods)
        for k in range(prm.npus_per_node):
            npu = ids.npu(p, n, k)
            self.add(npu, "npu", nd)
            self.add(ids.hbm(p, n, k), "hbm", npu)
            for d in range(prm.dies_per_npu):
                dd = ids.die(p, n, k, d)
                self.add(dd, "die", npu)
                port = ids.roce(p, n, k, d)
                self.add(port, "roce", npu)
                self.add_link(port, f"pod{p}/rdma", "rdma", lanes=1, node=nd)
                for i, sw in enumerate(l1s):
                    self.add_link(dd, sw, "ub_electrical", lanes=1, node=nd, plane=i)

    # ---- queries -------------------------------------------------------------------------------
    @cached_property
    def by_kind(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for cid, k in self.kind.items():
            out[k].append(cid)
        return dict(out)

    @cached_property
    def children(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for c, par in self.parent.items():
            out[par].append(c)
        return dict(out)

    @cached_property
    def uplinks(self) -> dict[tuple[str, int], list[str]]:
        """(node id, plane) -> the node's L1-L2 optical link ids on that plane, in L2-chip order."""
        out: dict[tuple[str, int], list[str]] = defaultdict(list)
        for lk in self.links.values():
            if lk.kind == "ub_optical" and lk.node is not None and lk.plane is not None:
                out[(lk.node, lk.plane)].append(lk.id)
        return dict(out)

    def nodes(self, pod: int | None = None) -> list[str]:
        allnodes = self.by_kind.get("node", [])
        return allnodes if pod is None else [x for x in allnodes if x.startswith(f"pod{pod}/")]

    def npus_of(self, node: str) -> list[str]:
        """The NPUs of ``node`` (a fresh list; derived once per node: restarts of a 2,000-rank job ask often)."""
        cache = self.__dict__.setdefault("_npus_cache", {})
        if node not in cache:
            cache[node] = [c for c in self.children.get(node, []) if self.kind[c] == "npu"]
        return list(cache[node])

    def descendants(self, cid: str) -> list[str]:
        """Every part below ``cid`` (a fresh list; walked once per part, as :attr:`children` is derived once: health
        checks ask for an NPU's parts ~1.3 million times in a year's replay)."""
        cache = self.__dict__.setdefault("_descendants_cache", {})
        if (got := cache.get(cid)) is None:
            out, stack = [], [cid]
            while stack:
                for c in self.children.get(stack.pop(), []):
                    out.append(c)
                    stack.append(c)
            got = cache[cid] = tuple(out)
        return list(got)

    def parts_of(self, cid: str, kinds: frozenset[str]) -> tuple[str, ...]:
        """The parts below ``cid`` of one of ``kinds``, in :meth:`descendants`' order (derived once per part and kinds:
        whether a node is in service asks it of each NPU)."""
        cache = self.__dict__.setdefault("_parts_cache", {})
        if (got := cache.get((cid, kinds))) is None:
            got = cache[(cid, kinds)] = tuple(d for d in self.descendants(cid) if self.kind.get(d) in kinds)
        return got

    def exists(self, cid: str) -> bool:
        return cid in self.kind or cid in self.links

    def counts(self) -> dict[str, int]:
        bk = self.by_kind
        kinds = {lk.kind for lk in self.links.values()}
        per_kind = {k: sum(1 for lk in self.links.values() if lk.kind == k) for k in kinds}
        return {
            "pods": len(bk.get("pod", [])),
            "nodes": len(bk.get("node", [])),
            "npus": len(bk.get("npu", [])),
            "dies": len(bk.get("die", [])),
            "hbm_stacks": len(bk.get("hbm", [])),
            "cpus": len(bk.get("cpu", [])),
            "l1_switches": len(bk.get("l1", [])),
            "l2_switches": len(bk.get("l2", [])),
            "qingtian_cards": len(bk.get("qingtian", [])),
            "l1_l2_links": per_kind.get("ub_optical", 0),
            "die_l1_links": per_kind.get("ub_electrical", 0),
            "optical_modules": len(bk.get("optical_module", [])),
            "optical_lanes": per_kind.get("ub_optical", 0) * self.params.lanes_per_optical_link,
            "roce_ports": len(bk.get("roce", [])),
            "racks": len(bk.get("rack", [])),
        }

    def graph(self) -> nx.Graph:
        """A networkx graph: components as nodes (attr ``kind``), containment and link edges (attr ``kind``).
        networkx is imported here, on demand: a run never needs the graph."""
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from((c, {"kind": k}) for c, k in self.kind.items() if k != "optical_module")
        g.add_edges_from((c, par, {"kind": "contains"}) for c, par in self.parent.items()
                         if self.kind[c] != "optical_module")
        g.add_edges_from((lk.a, lk.b, {"kind": lk.kind, "id": lk.id, "lanes": lk.lanes})
                         for lk in self.links.values())
        return g
