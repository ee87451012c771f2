"""The name a worker goes by where its directory does not give the host's own: a folder that only numbers a job's
replica (``worker-1``, ``llama-worker-3``), a collection's folder (asys's ``asys_output_<stamp>``) or the root given
(the bundle's own name), whose host syslog names one host (``Mar  1 09:06:00 node-a12 kernel: ...``). The operator
knows the machine by that name (``kubectl cordon node-a12``), not by the folder a collection script made: the
worker is named after it, the folder kept beside it in the bundle's report. The bundle reader
(:func:`opsbrain.bundle.hosts.map_workers`) and the multi-rank analysis (:meth:`opsbrain.ingest.ranks.RankCollector.
shown`, which ``--logs DIR`` names its workers by) use this one rule, so that a worker has one name in both.

A folder that names a host (``node-35``, ``ascend-a01``, an address: anything but a replica's number) keeps its name,
as before; a job's or a collection's container (:data:`opsbrain.ingest.workers.JOB_DIR`) names no host and is not
renamed either (its logs may be several hosts'). Only the host side's syslog counts (``messages``, ``syslog``,
``kern.log`` and their rotations; not the device side's ``message/`` folder of msnpureport), and only where it names
one host other than ``localhost``, which no other worker is named after."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from opsbrain.ingest.asys import OUTPUT_DIR, canonical
from opsbrain.ingest.streams import log_name
from opsbrain.ingest.timestamps import MONTH

SYSLOG_HOST = re.compile(r"^" + MONTH + r"\s+\d{1,2} \d\d:\d\d:\d\d (\S+) ")
"""A host syslog line's head (rsyslog's traditional format, English or zh_CN month): its host field."""
SCAN_LINES = 2000
"""Lines of a syslog file whose heads are read for its host (a file names its own host on every line)."""
REPLICA_DIR = re.compile(r"(?:[\w.-]*[-_])?worker[-_]?\d+", re.I)
"""A folder named by a job's replica (``worker-0``, ``worker_3``, a pod's ``llama-worker-3``): what a collection
script or an operator numbers the hosts by, not a host's own name."""
_HOST_SYSLOG = re.compile(r"(?:^|/)(?:messages(?:[-.]\d[\w.-]*)?|syslog(?:\.\d+)?|kern\.log(?:\.\d+)?)$")
_LOCAL = re.compile(r"localhost(?:\.localdomain)?|\(none\)", re.I)


def host_syslog(path: str) -> bool:
    """Whether ``path`` is a host's own syslog (by its name; a device's, below msnpureport's ``message/``, is not)."""
    p = canonical(log_name(path))
    return _HOST_SYSLOG.search(p) is not None and "message" not in p.split("/")[:-1]


def numbers_host(directory: str, label: str) -> bool:
    """Whether a worker's directory (``""``: the root given) or the name it is shown by only stands for its host:
    the root, a replica's folder (:data:`REPLICA_DIR`) or an asys collection's (``asys_output_<stamp>``)."""
    if not directory:
        return True
    return any(REPLICA_DIR.fullmatch(n) or OUTPUT_DIR.fullmatch(n)
               for n in (directory.rpartition("/")[2].rpartition(":")[2], label.rpartition("/")[2]) if n)


def syslog_host(hosts: Counter[str] | None) -> str | None:
    """The one host a worker's syslog heads name (``localhost`` left out), else None."""
    named = [h for h in (hosts or ()) if not _LOCAL.fullmatch(h)]
    return named[0] if len(named) == 1 else None


def real_names(workers: Mapping[str, tuple[str, Counter[str] | None]]) -> dict[str, str]:
    """Worker -> the host name it goes by (:func:`syslog_host`) where its directory only stands for its host
    (:func:`numbers_host`); ``workers``: worker directory -> (the name it is shown by, its syslog's host counts).
    A name two workers would take, or one another worker is shown by, is given to none."""
    found = {w: h for w, (label, hosts) in workers.items() if numbers_host(w, label) and (h := syslog_host(hosts))}
    taken = Counter(found.values())
    shown = {label for w, (label, _) in workers.items()}
    return {w: h for w, h in found.items() if taken[h] == 1 and (h == workers[w][0] or h not in shown)}
