"""What an open incident's diagnosed root can explain: a job's own reports, the parts the root holds or lies in, and
the signal kinds the knowledge base gives its class (the detector's rule for a fault beside an open incident), and
the dark nodes a node's failure does not explain (moved here from detector.py, session 43)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from opsbrain.ingest import Signal
from opsbrain.ingest.where import node_of, reporting_npu
from opsbrain.verdict import Diagnosis


def collective_failure(sig: Signal) -> bool:
    """A rank reporting that a collective failed (an HCCL error, the communication-timeout message, the job's
    crash event naming the rank): a collective spans every node of the job, so the rank that reports it can sit on
    any of them, not where the fault is."""
    return sig.kind.startswith("hccl:") or sig.kind in ("msg:comm_timeout", "job:crash")


def is_job_report(sig: Signal, placement: dict[str, list[str]]) -> bool:
    """A job's own report: a scheduler's job event (naming the job, or the node or device of the rank it is about)
    or a rank's report that a collective failed."""
    return sig.component in placement or sig.kind.startswith("job:") or collective_failure(sig)


def within(part: str, whole: str) -> bool:
    """Whether ``part`` is ``whole`` or lies inside it (``pod0/node3/npu1/hbm`` in ``pod0/node3``), or is one end of
    the link ``whole`` names."""
    return any(part == w or part.startswith(w + "/") for w in whole.split("~"))


def related(a: str, b: str) -> bool:
    """Whether parts ``a`` and ``b`` (a link: either of its ends) overlap: one is inside the other."""
    return any(within(x, y) or within(y, x) for x in a.split("~") for y in b.split("~"))


def beside(sig: Signal, d: Diagnosis | None, placement: dict[str, list[str]],
           another_kind: Callable[[str, str], bool]) -> bool:
    """Whether ``sig`` is evidence of a fault of its own beside an incident diagnosed ``d``: ``another_kind`` (the
    knowledge base's :func:`opsbrain.diagnosis.knowledge.another_fault`) reads its kind as another class's primary
    evidence that ``d``'s class gives no role, and the part it names is neither inside ``d``'s root nor holds it (a
    line naming no part, only the host that printed it, is the root's only when the root holds that host). An HBM's
    uncorrectable error on a node whose link flaps is such a fault. A job's own reports are consequences, never
    another fault; an incident not yet diagnosed, or diagnosed ``unknown``, explains nothing yet."""
    if d is None or d.abstained or d.component is None or is_job_report(sig, placement):
        return False
    if sig.component is not None:
        if related(reporting_npu(sig.component), d.component):  # an A3 die's line speaks for its NPU
            return False
    elif sig.host is None or within(sig.host, d.component):
        return False
    return another_kind(sig.kind, d.fault_class)


def _node_order(node: str) -> tuple[int, tuple[int, ...], str]:
    """Nodes in numeric order (``pod0/node2`` before ``pod0/node11``), free host names after, by name."""
    nums = tuple(int(x) for x in re.findall(r"\d+", node))
    return (0, nums, "") if node.startswith("pod") and nums else (1, (), node)


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
