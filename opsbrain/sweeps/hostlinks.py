"""One ``link_light`` finding per host whose end of several down links has no reading (session 35).

A crashed (stopped) host's exporter serves nothing, so every optical link with one end on its board reads no light at
the other end and nothing at its own: before, one Critical per link (112 for a CloudMatrix384 node's uplinks). The
operator's fact is one: the host is down or unread. Links whose ends are both read keep their own findings.
"""

from __future__ import annotations

import numpy as np

from opsbrain.sweeps.finding import Finding
from opsbrain.sweeps.snapshot import Snapshot

MIN_GROUP = 2
"""A host with fewer down links whose unread end is on it keeps the per-link finding (nothing to fold)."""


def unread_host_findings(s: Snapshot, links: np.ndarray, read: np.ndarray, lanes: int
                         ) -> tuple[list[Finding], np.ndarray]:
    """(one Critical per host holding the unread end of ``MIN_GROUP`` or more of ``links``, the links it covers as a
    (links,) mask). ``links``: indexes of down links (no light at the end read) with an unread module; ``read``:
    (modules,) the module has a reading. A module's host is the ingestion layer's node of its id."""
    from opsbrain.ingest.where import node_of

    want = np.zeros(len(s.links), dtype=bool)
    want[links] = True
    hosts: dict[str, set[int]] = {}
    for m in np.flatnonzero(~read & want[s.module_link]):
        if host := node_of(s.modules[m]):
            hosts.setdefault(host, set()).add(int(s.module_link[m]))
    covered = np.zeros(len(s.links), dtype=bool)
    out = []
    for host, idx in sorted(hosts.items()):
        mine = sorted(i for i in idx if not covered[i])
        if len(mine) < MIN_GROUP:
            continue
        covered[mine] = True
        out.append(Finding(
            host, "link_light", "Critical",
            f"{len(mine)} links of {host} down: the host is down or unread (no reading of its end: its exporter does "
            f"not answer); the other end of each reads no light on any lane",
            "check the host (power, OS, npu-exporter) and re-route its traffic (HCCL retries the interrupted "
            "operator); if the host is up, clean or replace the optics of its links",
            data={"links": [s.links[i] for i in mine], "covers": len(mine), "lanes_dark": lanes,
                  "host_unread": True}))
    return out, covered
