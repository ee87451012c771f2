"""CANN's own fault-information collection (``asys collect`` / ``asys launch``) read as the layout the readers know.

asys writes one host's collection to ``{output}/asys_output_<timestamp>/`` (CANN troubleshooting guide, "asys tool
usage", collection output; its source: cann/oam-tools ``src/asys``, the collectors of CANN, host and device logs)::

    asys_output_<stamp>/software_info.txt, hardware_info.txt, status_info.txt   summaries (recognised, not read)
    asys_output_<stamp>/health_result.txt          each device's health and its fault codes and texts (read as lines)
    asys_output_<stamp>/dfx/log/host/cann/{debug,run,security}/...   CANN's process logs (plog/, device-<N>/) as CANN
                                                   wrote them: here ``process_log/{debug,run}/...``
    asys_output_<stamp>/dfx/log/host/message/<messages or syslog>    the host's syslog, its own name kept
    asys_output_<stamp>/dfx/log/host/driver/<file>                   the driver's host log (msnpureport's slog/host/)
    asys_output_<stamp>/dfx/log/host/screen.txt    the task's console (``asys launch``); user_cmd, install/ not read
    asys_output_<stamp>/dfx/log/device/dev-os-<N>/{system,firmware,application}/<level>/<dir>/...
                                                   msnpureport's slog/dev-os-<N>/<level>/<dir>/... (level debug, run or
                                                   security) sorted by who wrote it (device-os and event: system;
                                                   device-<M>: firmware; device-app-*: application); here
                                                   ``device_log/slog/dev-os-<N>/...``
    asys_output_<stamp>/dfx/bbox/...               msnpureport's hisi_logs/ (black box): here ``device_log/hisi_logs/``
    asys_output_<stamp>/dfx/{stackcore,data-dump,graph,ops,atrace}/   dumps and compiled operators (not read)

:func:`place` maps a bundle-relative path below such a directory to the same file's path in the readers' layout
below the collection's folder, which stands for its host: ``asys collect --output=DIR`` run on every host onto shared
storage leaves one folder per host side by side. :func:`host_dirs` names each such folder by the directory above it
where that holds no other collection (``node1/asys_output_<stamp>`` is ``node1``, with ``node1``'s other files).
The collection is found by its directory name (``asys_output_`` and digits: the tool's naming), or, where that
folder is the root given or an archive's top folder taken off, by ``dfx/`` followed by one of the tool's own
sub-directories."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from opsbrain.lazyre import lazy_compile

OUTPUT_DIR = lazy_compile(r"asys_output_\d{8,}")
_STAMP = lazy_compile(r"(?:^|/)asys_output_(\d{14})(\d{3})?(?:/|$)")
"""The collection's folder: ``asys_output_`` and the run's time stamp (``asys_output_20260626031235573``)."""
DFX_DIRS = frozenset({"log", "bbox", "stackcore", "data-dump", "graph", "ops", "atrace"})
"""What asys writes below ``dfx/``."""
NOT_READ_DFX = frozenset({"stackcore", "data-dump", "graph", "ops", "atrace"})
SUMMARIES = frozenset({"software_info.txt", "hardware_info.txt", "status_info.txt"})
HEALTH = "health_result.txt"
_DEVICE_ROLES = frozenset({"system", "firmware", "application"})

LOG, CONSOLE, HEALTH_ROLE, NOT_READ = "log", "console", "health", "not read"


@dataclass(frozen=True, slots=True)
class Placed:
    """A file of an asys collection: its host's directory (``/``-joined, ``""`` = the root given): the collection's
    own folder where it is named as asys names it (:func:`host_dirs` names it), else the directories above its
    ``dfx/``; what it is (:data:`LOG`: read as ``path``; :data:`CONSOLE`; :data:`HEALTH_ROLE`; :data:`NOT_READ`)
    and, for a log, its path in the readers' layout (the same head in front)."""

    head: str
    role: str
    path: str | None = None
    what: str = ""


def _start(dirs: list[str]) -> tuple[int, int] | None:
    """(index of the first directory above the collection's contents, index of its ``dfx`` or -1) in ``dirs``."""
    for i in range(len(dirs) - 1, -1, -1):
        if OUTPUT_DIR.fullmatch(dirs[i]):
            return i, (i + 1 if i + 1 < len(dirs) and dirs[i + 1] == "dfx" else -1)
    for i in range(len(dirs) - 1):
        if dirs[i] == "dfx" and dirs[i + 1] in DFX_DIRS:
            return i, i
    return None


def place(rel: str) -> Placed | None:
    """Where the file at ``rel`` (``/``-separated, relative to the root given) sits in an asys collection, or None
    when it is in none (or is no file asys writes)."""
    parts = rel.split("/")
    found = _start(parts[:-1])
    if found is None:
        return None
    top, dfx = found
    named = OUTPUT_DIR.fullmatch(parts[top]) is not None
    lead = parts[:top + 1] if named else parts[:top]  # the collection's folder stands for its host (host_dirs)
    head = "/".join(lead)
    if dfx < 0:  # a file of the collection's own folder (no dfx/ between)
        if len(parts) != top + 2:
            return None
        name = parts[-1]
        if name == HEALTH:
            return Placed(head, HEALTH_ROLE, what="asys device health")
        if name in SUMMARIES:
            return Placed(head, NOT_READ, what=f"asys summary ({name})")
        return None
    inner = parts[dfx + 1:]
    if len(inner) < 2:
        return None
    if inner[0] in NOT_READ_DFX:
        return Placed(head, NOT_READ, what=f"asys dfx/{inner[0]} (dumps, traces, compiled operators)")
    if inner[0] == "bbox":
        return Placed(head, LOG, "/".join([*lead, "device_log", "hisi_logs", *inner[1:]]))
    if inner[:2] == ["log", "host"] and len(inner) >= 4:
        where, rest = inner[2], inner[3:]
        if where == "cann":
            return Placed(head, LOG, "/".join([*lead, "process_log", *rest]))
        if where == "message" and len(rest) == 1:
            return Placed(head, LOG, "/".join([*lead, *rest]))
        if where == "driver":
            return Placed(head, LOG, "/".join([*lead, "device_log", "slog", "host", *rest]))
        if where == "install":
            return Placed(head, NOT_READ, what="asys install log (package history)")
        return None
    if inner[:2] == ["log", "host"] and len(inner) == 3:
        if inner[2] == "screen.txt":
            return Placed(head, CONSOLE, what="asys launch console")
        if inner[2] == "user_cmd":
            return Placed(head, NOT_READ, what="asys launch command line")
        return None
    if inner[:2] == ["log", "device"] and len(inner) >= 5:
        dev_os, role, rest = inner[2], inner[3], inner[4:]
        if role in _DEVICE_ROLES:
            return Placed(head, LOG, "/".join([*lead, "device_log", "slog", dev_os, *rest]))
        if role == "slogd":
            return Placed(head, NOT_READ, what="asys slogd (the log daemon's own log)")
    return None


def collected_at(rel: str) -> datetime | None:
    """When the collection holding ``rel`` was made, by its folder's name (``asys_output_20260626031235573``:
    year to millisecond, local time as the tool's clock read it), or None."""
    m = _STAMP.search(rel)
    if m is None:
        return None
    try:
        return datetime.strptime(m.group(1), "%Y%m%d%H%M%S").replace(microsecond=int(m.group(2) or 0) * 1000)
    except ValueError:
        return None


def canonical(rel: str) -> str:
    """``rel`` in the readers' layout when it is a log of an asys collection, else ``rel`` itself."""
    p = place(rel)
    return p.path if p is not None and p.path is not None else rel


def host_dirs(workers: Iterable[str]) -> dict[str, str]:
    """Worker directory -> the directory that names its host: an asys collection's folder
    (``node1/asys_output_<stamp>``) the directory above it (``node1``; ``""``, the root given, at the top) where
    that holds no other collection among ``workers``; collections side by side keep their own folders (one host
    each); a host's folders in MindCluster's job log tree (:data:`JOB_LOG_HOST`) the first of them; a server's
    device-log folder on shared storage (:data:`DEVICE_STORE`) its job folder's; any other directory itself."""
    workers = set(workers)
    parent = {w: w.rpartition("/")[0] for w in workers if OUTPUT_DIR.fullmatch(w.rpartition("/")[2])}
    shared = Counter(parent.values())
    out = {w: parent[w] if w in parent and shared[parent[w]] == 1 else w for w in workers}
    first: dict[tuple[str, str], str] = {}  # one host's folders in several jobs' log folders: the first's (session 35)
    for w in sorted(workers):
        if m := JOB_LOG_HOST.search(w):
            out[w] = first.setdefault((w[:m.start()], m[1]), w)
    for w in workers:  # <store>/device_log/<server>: the one other worker folder <store>/.../<server>, if one
        if m := DEVICE_STORE.search(w):
            pre = w[:m.start()]
            same = {out[v] for v in workers if v != w and v.rpartition("/")[2] == m[1]
                    and (not pre or v.startswith(pre + "/")) and not DEVICE_STORE.search(v)}
            out[w] = same.pop() if len(same) == 1 else out[w]
    return out


DEVICE_STORE = lazy_compile(r"(?:^|/)device_log/([^/]+)$")
"""A server's folder of device logs on shared storage (``<store>/device_log/worker-0``: MindCluster FaultDiag's usage
example, beside the job's ``<store>/<job id>/worker-0/process_log/``): that server's, where one other worker folder of
the store bears its name (:func:`host_dirs`)."""


JOB_LOG_KINDS = ("plogs", "trainlogs", "ttplogs")
"""The folders MindCluster's training-script samples make in a job's log folder ``alllogs/<MINDX_TASK_ID>/`` (its
resumable-training guide, "Using Resumable Training on the CLI": ``mkdir -p .../ttplogs .../trainlogs``), one
sub-folder per host: ``plogs/$XDL_IP`` (ASCEND_PROCESS_LOG_PATH), ``trainlogs/$XDL_IP-$RANK[-<14-digit time>]``
(TRAIN_LOG_PATH; the time: FAQ "Training Logs Are Overwritten After Task Rescheduling"), ``ttplogs/ttplog$XDL_IP-
$RANK`` (TTP_LOG_PATH, the folder MindIO TFT writes ``ttp_log.log[.<pid>]`` to: the same host's, not a host)."""
JOB_LOG_HOST = lazy_compile(
    r"(?:(?:^|/)alllogs/[^/]+/[^/]+|(?:^|/)(?:[^/]+/)?(?:" + "|".join(JOB_LOG_KINDS) + r"))/(?:ttplog)?"
    r"(\d{1,3}(?:\.\d{1,3}){3})(?:-\d+(?:-\d{14})?)?$")
"""A host's folder in MindCluster's job log tree, ``alllogs/<MINDX_TASK_ID>/<kind>/<XDL_IP>`` (:data:`JOB_LOG_KINDS`;
``$XDL_IP`` the node's address): named by that address; one host's folders of several jobs (or kinds) are one host
(:func:`host_dirs`). Given below ``alllogs`` (``--logs alllogs/`` or ``alllogs/<uid>/``), a folder of a known kind
(and the job's folder above it, which the match takes in) reads the same (session 35: before, ``plogs/10.0.0.1`` and
``trainlogs/10.0.0.1-3`` were two hosts there, and ``ttplogs/ttplog10.0.0.1-3`` a host of its own everywhere)."""


JOB_CONSOLE = lazy_compile(r"(?:^|/)trainlogs/\d{1,3}(?:\.\d{1,3}){3}-\d+(?:-\d{14})?(?=(?:\.(?:log|txt))?$)")
"""``TRAIN_LOG_PATH`` as the file it is in MindCluster's samples: they end ``torchrun ... | tee ${TRAIN_LOG_PATH}``
(Ascend/mindxdl-deploy, the resumable-training ``train_start.sh`` samples), so ``trainlogs/$XDL_IP-$RANK`` is the
rank's console itself, a file without an extension (the FAQ's ``-<time>`` form makes it a folder instead)."""


def job_console(rel: str) -> str | None:
    """The worker of a console written straight to ``TRAIN_LOG_PATH`` (:data:`JOB_CONSOLE`): its path without an
    extension, which names its node by :data:`JOB_LOG_HOST` as the folder form does; None for any other file
    (session 36: the bundle skipped such a file as unknown, and ``--logs`` placed it on ``trainlogs``)."""
    return rel[:m.end()] if (m := JOB_CONSOLE.search(rel)) else None


def job_log_host(worker: str) -> str | None:
    """The host a worker directory of MindCluster's job log tree names (:data:`JOB_LOG_HOST`), else None."""
    return m[1] if (m := JOB_LOG_HOST.search(worker)) else None
