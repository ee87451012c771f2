"""A healed link_down run's sibling links heal with it (session 44, link44).

Case generation's sibling links stand for a scenario's ``mode: fixed`` selector (several uplinks of one node, one
fault item): the twin gives every target of such an item the item's ``duration``, so all its links come back (a
chaos run of ``link_down`` on two uplinks of node20 with ``duration: 60``: both faults ``heals_after`` 60 s). Before,
a healed run's first link came back and its siblings stayed dark to the end of the run: the incident's moments after
the up read ``last_down_s`` of one link beside a link dark for minutes, a state the scenario twin never shows."""

from __future__ import annotations

import math

from faultlib.injection.spec import FaultSpec
from opsbrain.detection import DetectorParams
from opsbrain.ingest import dark_links, last_downs
from opsbrain.kb import cases as case_lib

W = case_lib.TRAIN_WORLD


def _healed_sibling_seed() -> int:
    return next(s for s in range(200) if case_lib.healed_duration(s, "link_down", W) is not None
                and case_lib.sibling_run(s, "link_down", W.sibling_links))


def test_siblings_of_a_healed_link_down_get_its_duration() -> None:
    from faultlib.topology import Topology

    seed = _healed_sibling_seed()
    topo = Topology.build(pods=W.pods)
    link = sorted(topo.uplinks[next(iter(sorted(topo.uplinks)))])[0]
    first = FaultSpec(at_s=600.0, kind="link_down", target=link, duration_s=74.0)
    sibs = case_lib.sibling_specs(seed, first, topo, W)
    assert sibs and all(s.duration_s == 74.0 for s in sibs)
    # a run that does not heal keeps its siblings dark, as before
    assert all(s.duration_s is None for s in case_lib.sibling_specs(seed, FaultSpec(
        at_s=600.0, kind="link_down", target=link), topo, W))


def test_a_healed_sibling_run_ends_with_every_link_back() -> None:
    """The twin's trace is the oracle: every link of the run comes back. Training-world seed 49 heals its first
    link after 81.6 s; its sibling, 3 s later, opens an incident of its own, which before was last read with that
    link dark (it never came back) and now once it is back, its time down past the definition's 20 s."""
    seed = 49
    assert case_lib.healed_duration(seed, "link_down", W) and case_lib.sibling_run(seed, "link_down", W.sibling_links)
    cases = case_lib.run_case(seed, "link_down", False, W.noise_scale, keep_signals=True)
    last: dict[str, case_lib.Case] = {}
    for c in sorted((c for c in cases if c.injected and c.label == "link_down" and c.view == "live"),
                    key=lambda c: c.at_s):
        last[c.incident] = c
    assert len(last) >= 2  # the first link's incident and its sibling's
    for c in last.values():
        assert not dark_links(c.signals), c.incident
        assert min(last_downs(c.signals).values()) > DetectorParams().link_down_after_s
        assert math.expm1(c.features["last_down_s"]) > DetectorParams().link_down_after_s
