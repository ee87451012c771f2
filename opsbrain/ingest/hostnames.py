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
from collections.abc import Iterable, Mapping

from opsbrain.ingest.asys import OUTPUT_DIR, canonical
from opsbrain.ingest.streams import log_name
from opsbrain.ingest.timestamps import MONTH
from opsbrain.ingest.where import LOCAL_HOST
from opsbrain.lazyre import lazy_compile

SYSLOG_HOST = lazy_compile(r"^" + MONTH + r"\s+\d{1,2} \d\d:\d\d:\d\d (\S+) ")
"""A host syslog line's head (rsyslog's traditional format, English or zh_CN month): its host field."""
SCAN_LINES = 2000
"""Lines of a syslog file whose heads are read for its host (a file names its own host on every line)."""
REPLICA_DIR = lazy_compile(r"(?:[\w.-]*[-_])?worker[-_]?\d+", re.I)
"""A folder named by a job's replica (``worker-0``, ``worker_3``, a pod's ``llama-worker-3``): what a collection
script or an operator numbers the hosts by, not a host's own name."""
_HOST_SYSLOG = lazy_compile(r"(?:^|/)(?:messages(?:[-.]\d[\w.-]*)?|syslog(?:\.\d+)?|kern\.log(?:\.\d+)?)$")


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
    named = [h for h in (hosts or ()) if not LOCAL_HOST.fullmatch(h)]
    return named[0] if len(named) == 1 else None


def real_names(workers: Mapping[str, tuple[str, Counter[str] | None]]) -> dict[str, str]:
    """Worker -> the host name it goes by (:func:`syslog_host`) where its directory only stands for its host
    (:func:`numbers_host`); ``workers``: worker directory -> (the name it is shown by, its syslog's host counts).
    A name two workers would take, or one another worker is shown by, is given to none."""
    found = {w: h for w, (label, hosts) in workers.items() if numbers_host(w, label) and (h := syslog_host(hosts))}
    taken = Counter(found.values())
    shown = {label for w, (label, _) in workers.items()}
    return {w: h for w, h in found.items() if taken[h] == 1 and (h == workers[w][0] or h not in shown)}


_NODE_FILE = lazy_compile(r"(?:^|/)(?:dmesg(?:\.txt|\.log)?(?:\.\d+)?|(?:plog|device)-\d+_\d+\.log|sysmonitor\.log)$")
"""A node's own log by its name (beside a host syslog, :func:`host_syslog`): the kernel ring buffer (Debian's
rotations ``dmesg.0``, ``dmesg.1.gz``: the bundle layout's ``_DMESG_NAME``, session 42), a CANN
process's plog or device log (``plog-<pid>_<stamp>.log``), sysmonitor's."""


def node_file(rel: str) -> bool:
    """Whether a file (its path below the directory given) is one of a node's own logs, by its name or a directory
    of a node's log tree (:data:`~opsbrain.ingest.workers.NODE_LOG_DIRS`, the collections' anchors, CANN's
    ``ascend/log``, the serving programs' and the container logs' directories) or an asys collection's file."""
    from opsbrain.ingest.asys import place
    from opsbrain.ingest.workers import ANCHORS, NODE_LOG_DIRS, SERVICE_DIRS, cann_log_head, container_log_head

    path = canonical(log_name(rel))
    dirs = path.split("/")[:-1]
    return (host_syslog(rel) or _NODE_FILE.search(path) is not None or place(rel) is not None
            or any(d.lower() in NODE_LOG_DIRS or d in ANCHORS or d in SERVICE_DIRS for d in dirs)
            or cann_log_head(dirs) is not None or container_log_head(dirs) is not None)


def dated(name: str) -> bool:
    """Whether a folder's name is only a date and time (:data:`~opsbrain.ingest.workers.EXPORT_STAMP`: msnpureport's
    ``20250301100600``, a script's ``2025-03-01-10-06-00``): a run's name, never a host's."""
    from opsbrain.ingest.workers import EXPORT_STAMP

    return EXPORT_STAMP.fullmatch(name) is not None


def unnamed_root(name: str) -> bool:
    """Whether a directory given (or an archive's top folder), by its own name, names no host: a date and time
    (:func:`dated`, a tool's run) or a folder that only holds logs (:func:`~opsbrain.ingest.workers.log_folder`:
    ``var/``, ``log/``, ``npu/``, ``slog/``; session 36, before named host ``var`` in both modes). Its files are then
    on no named host unless its host syslog names one (:func:`syslog_host`; ``--logs`` and ``--bundle`` alike)."""
    from opsbrain.ingest.workers import log_folder

    return dated(name) or log_folder(name)


def root_names_host(name: str, files: Iterable[str]) -> bool:
    """Whether the directory given, by its own name ``name``, names the host
    of the files that sit in it (no worker directory of their own): its name is a host's (with a digit:
    :func:`~opsbrain.ingest.workers.host_like`; not a date or a rank's folder), or one of those files is a node's
    own log (:func:`node_file`: the directory is one node's collection). A folder of unrelated pastes (``cases/``,
    ``issues/``) names none: its lines are placed by the hosts they name themselves, or by none (session 32); nor
    does a folder named only by a date and time (msnpureport's export, ``20250301100600/``: :func:`dated`), which
    the tool, not the host, named (session 35), nor one that only holds logs (``var/``, ``npu/``: :func:`unnamed_root`,
    session 36)."""
    from opsbrain.ingest.workers import host_like, host_root

    if not name or unnamed_root(name):
        return False
    if host_like(name):
        return True
    return any(node_file(f) for f in files if not host_root(f)[0])


SWITCH_LOG = lazy_compile(r"(?:^|/)(?:lcne_log|switch)/(?:([^/]+)/)?(?:.+/)?(?:[^/]*log\.log|log_\d+_\d{13,15}\.log)$")
"""A UB switch chip's LCNE log (``lcne_log/<chip>/log.log``, real ``log_<n>_<13-15 digits>.log``; ``switch/`` before
session 30; ascend-fd's LCNE walk takes every ``*log.log`` below ``lcne_log/``): the group is the chip's folder."""
SWITCH_INFO = lazy_compile(r"(?:^|/)(?:lcne_log|switch)/(?:([^/]+)/)?(?:.+/)?diag_display_info(?:_[^/]*)?\.txt$")
"""A switch's ``display`` answers in its LCNE folder: ``diag_display_info.txt``, the "LCNE SuperPoD information" of
ascend-fd's LCNE log layout (Ascend/mind-cluster @22bb3d98, docs/en/faultdiag/user_guide/03_collecting_logs.md;
parser_saver.py ``DIAG_DISPLAY_INFO_KEY``), ``diag_display_info_224.txt`` in MindCluster's own switch_logs sample
(docs/zh/resource/switch_logs/): ``display current-configuration``, ``display interface brief``, ``display interface
transceiver verbose`` (optical lane power, :mod:`opsbrain.ingest.transceivers`), ``display lldp neighbor brief``. The
group is the switch's folder (session 44, optbundle44; here since session 45, as ``--logs DIR`` places the file's
lines by it too)."""


def switch_file(path: str | None) -> bool:
    """Whether ``path`` is a file of a switch's LCNE folder (:data:`SWITCH_LOG`, :data:`SWITCH_INFO`): the switch's
    own lines, no host's directory."""
    return bool(path) and bool(SWITCH_LOG.search(path or "") or SWITCH_INFO.search(path or ""))


def switch_folder(path: str | None) -> str | None:
    """The switch whose LCNE folder holds ``path`` (``lcne_log/<switch>/...``), by the folder's name: the switch as
    the collection names it; None for any other file, or a switch file in no switch's folder."""
    if not path:
        return None
    m = SWITCH_LOG.search(path) or SWITCH_INFO.search(path)
    return m.group(1) if m else None


def chip_host(chip: str, hosts: Iterable[str]) -> tuple[str, str] | None:
    """A switch chip named after a host (``gz-a3-r07-n36-l1sw2``: the L1 chip inside host ``gz-a3-r07-n36``, as an
    Atlas A3 node holds its own): (that host, the chip's own part ``l1sw2``), the longest host name followed by
    ``-`` that starts the chip's; None for a chip named otherwise (an L2 chip keeps its own name). The bundle reader
    (:func:`opsbrain.bundle.hosts.switch_of_host`) and ``--logs DIR`` (:func:`opsbrain.diagnosis.hostplace.
    on_workers`) place a chip's lines by this one rule."""
    best = max((h for h in hosts if len(h) > 1 and chip.startswith(h + "-") and len(chip) > len(h) + 1),
               key=len, default=None)
    return (best, chip[len(best) + 1:]) if best is not None else None
