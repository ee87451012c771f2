"""Where a signal points and how the detector orders and groups what it sees (split out of
:mod:`opsbrain.detection.detector` in session 43): the nodes and L2 chips a signal names, the order of signals with
one stamp, a host's clock, a link's down reported by both ends, and the dark nodes a root does not explain."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

from opsbrain.detection.explain import is_job_report
from opsbrain.detection.incident import Incident
from opsbrain.ingest import DOWN, Signal
from opsbrain.ingest.where import node_of


def _tie_order(sig: Signal) -> int:
    """Among signals with the same time stamp: those naming a link first (they anchor both its node and its L2
    chip), then those anchored to a node, then the rest, and a job's own reports (its events, a rank's collective
    failure) last: they are the hardware's consequences, so they join the incident the hardware of that moment
    opened or joined. One event's reports group the same way whatever order their paths delivered them in."""
    if is_job_report(sig, {}):
        return 3
    comp = sig.component or ""
    if "~" in comp:
        return 0
    return 1 if "/node" in comp or "/node" in (sig.host or "") else 2


def anchors(sig: Signal, placement: dict[str, list[str]] | None = None) -> tuple[set[str], set[str]]:
    """(nodes, L2 chips) a signal points at; a job event points at the nodes the job (or instance) runs on."""
    if placement and sig.component in placement:
        return set(placement[sig.component]), set()
    nodes, l2 = _anchors_of(sig.component, sig.host, sig.peer)
    return set(nodes), set(l2)


@lru_cache(maxsize=65_536)
def _anchors_of(*comps: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """The nodes and L2 chips named by components (a signal's component, host and peer): a pure function of the
    names, memoised (the detector asks it ~4 million times in a year-long replay, of a few thousand names)."""
    nodes: set[str] = set()
    l2: set[str] = set()
    for comp in filter(None, comps):
        for part in comp.split("~"):
            segs = part.split("/")
            if len(segs) >= 2 and segs[1].startswith("node"):
                nodes.add("/".join(segs[:2]))
            elif len(segs) >= 3 and segs[1].startswith("l2plane"):
                l2.add("/".join(segs[:3]))
    return frozenset(nodes), frozenset(l2)


def _node_order(node: str) -> tuple[int, tuple[int, ...], str]:
    """Nodes in numeric order (``pod0/node2`` before ``pod0/node11``), free host names after, by name."""
    nums = tuple(int(x) for x in re.findall(r"\d+", node))
    return (0, nums, "") if node.startswith("pod") and nums else (1, (), node)


def _clock_host(written_by: str) -> str:
    """The host whose clock stamped a line: a node's logs (its L1 chips', devices') share the node's clock; an L2
    switch chip keeps its own."""
    return node_of(written_by) or written_by


def _same_event(sig: Signal, inc: Incident) -> bool:
    """A link-down reported by one end (``sw:down`` from the L1 side, ``port:down`` from the L2 side) is the same
    kind of event as the other end's report of that link: with one end's line lost, the link going down again
    must still join the incident that holds its first down."""
    return sig.kind in DOWN and bool(inc.kinds & set(DOWN))


def _seen_down(inc: Incident, sig: Signal) -> bool:
    """Whether ``sig`` is a link going down again: the incident already holds a down of that link more than a
    second earlier (the other end's report of the same down comes within the second)."""
    return sig.kind in DOWN and any(s.kind in DOWN and s.component == sig.component and sig.t - s.t > 1.0
                                    for s in inc.signals)


def unexplained_nodes(root: str | None, dark: Iterable[str]) -> list[str]:
    """The nodes other than ``root`` whose dark links a failure of ``root`` does not explain, in node order: a node
    dark on two or more of its L1 chips (a whole node failed too), or a node whose dark links share no L2 chip with
    a third node's (a link or L1 chip of its own failed). Dark links of several nodes on one L2 chip are that chip's
    event (one link per node) and stay with the incident."""
    chips: dict[str, set[str]] = defaultdict(set)  # node -> its L1 chips with a dark link
    ends: dict[str, set[str]] = defaultdict(set)  # node -> the L2 ends of its dark links
    on_l2: dict[str, set[str]] = defaultdict(set)  # L2 end -> the nodes (not the root) with a dark link there
    for ln in dark:
        node = node_of(ln)
        if node is None or node == root:
            continue
        l1, _, l2 = ln.partition("~")
        chips[node].add(l1)
        ends[node].add(l2)
        on_l2[l2].add(node)
    return sorted((n for n in chips if len(chips[n]) >= 2 or all(on_l2[e] == {n} for e in ends[n])),
                  key=_node_order)
