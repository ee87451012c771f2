"""Invariants of the CloudMatrix384 topology (facts.md §2), checked on the enumerated model."""

from __future__ import annotations

from collections import Counter

from faultlib import ids
from faultlib.topology import Topology


def _ends(topo: Topology, cid: str, kind: str) -> list[str]:
    """The far ends of ``cid``'s links of ``kind``."""
    out = []
    for lid in topo.links_of.get(cid, []):
        lk = topo.links[lid]
        if lk.kind == kind:
            out.append(lk.b if lk.a == cid else lk.a)
    return out


def test_l1_chip_i_uplinks_to_all_16_chips_of_plane_i_only(topo1: Topology) -> None:
    p = topo1.params
    l1s = topo1.by_kind["l1"]
    assert len(l1s) == 336
    for sw in l1s:
        plane = ids.index(sw, "l1sw")
        ups = _ends(topo1, sw, "ub_optical")
        assert sorted(ups) == sorted(ids.l2(0, plane, k) for k in range(p.l2_per_plane)), sw
        assert len(ups) == len(set(ups)) == 16


def test_each_l2_chip_has_one_optical_link_per_node(topo1: Topology) -> None:
    l2s = topo1.by_kind["l2"]
    assert len(l2s) == 112
    for sw in l2s:
        kinds = {topo1.links[lid].kind for lid in topo1.links_of[sw]}
        assert kinds == {"ub_optical"}, sw
        downs = _ends(topo1, sw, "ub_optical")
        assert len(downs) == 48
        assert len({ids.node_of(d) for d in downs}) == 48
        plane = ids.index(sw, "l2plane")
        assert all(ids.index(d, "l1sw") == plane for d in downs), sw


def test_each_die_has_one_electrical_link_to_each_l1_of_its_node(topo1: Topology) -> None:
    dies = topo1.by_kind["die"]
    assert len(dies) == 768
    for die in dies:
        ends = _ends(topo1, die, "ub_electrical")
        assert len(ends) == 7
        node = ids.node_of(die)
        assert sorted(ends) == sorted(ids.l1(0, ids.index(node, "node"), i) for i in range(7)), die
    # and so every L1 chip has 16 downlinks, matching its 16 uplinks (non-blocking)
    for sw in topo1.by_kind["l1"]:
        assert len(_ends(topo1, sw, "ub_electrical")) == 16


def test_ids_parse_with_the_ids_helpers(topo1: Topology) -> None:
    for cid, kind in topo1.kind.items():
        if kind in {"npu", "die", "hbm", "cpu", "l1", "roce", "qingtian"}:
            node = ids.node_of(cid)
            assert node is not None and topo1.kind[node] == "node", cid
            assert topo1.exists(node)
        if kind in {"die", "hbm", "roce"}:
            assert ids.npu_of(cid) == topo1.parent[cid], cid
        if kind != "cluster" and not cid.startswith("cluster/"):
            assert ids.pod_of(cid) == "pod0", cid
    for lid, lk in topo1.links.items():
        a, b = ids.link_ends(lid)
        assert (a, b) == (lk.a, lk.b)
        assert topo1.exists(a) and topo1.exists(b)
    n = ids.node(0, 12)
    assert ids.index(ids.die(0, 12, 3, 1), "npu") == 3 and ids.index(n, "node") == 12
    assert ids.l2(0, 4, 7) == "pod0/l2plane4/sw07" and topo1.kind["pod0/l2plane4/sw07"] == "l2"


def test_racks_12_compute_racks_of_4_nodes_and_4_comm_racks(topo1: Topology) -> None:
    node_racks = Counter(topo1.rack_of[n] for n in topo1.nodes())
    assert len(node_racks) == 12 and set(node_racks.values()) == {4}
    l2_racks = Counter(topo1.rack_of[s] for s in topo1.by_kind["l2"])
    assert len(l2_racks) == 4
    assert not set(node_racks) & set(l2_racks)
    assert len(topo1.by_kind["rack"]) == 16


def test_two_pods_are_disjoint_and_joined_over_rdma() -> None:
    topo = Topology.build(pods=2)
    assert topo.counts()["npus"] == 768
    for lk in topo.links.values():
        if lk.kind in {"ub_optical", "ub_electrical"}:
            assert ids.pod_of(lk.a) == ids.pod_of(lk.b), lk.id  # UB never crosses a pod
    joins = [lk for lk in topo.links.values() if lk.b == "cluster/rdma"]
    assert sorted(lk.a for lk in joins) == ["pod0/rdma", "pod1/rdma"]
