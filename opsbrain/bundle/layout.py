"""The log-bundle layout (facts.md §7, and the directory walk of Huawei's ascend-fd, described in the project notes):
where each kind of file lives, and how a reader recognises it by name.

One directory per worker (node), named by its host (``pod0-node35/``; a real collection may say ``worker-3/``)::

    <worker>/messages[*]                                host syslog (no year in its time stamps); Debian /
                                                        Ubuntu hosts' rsyslog files syslog[.N], kern.log[.N] alike
    <worker>/dmesg                                      ``dmesg -T`` kernel lines
    <worker>/sysmonitor.log, [crash/<ip>-<time>/]vmcore-dmesg.txt   (read when present; the twin writes a panic to
                                                        the latter, as kdump does)
    <worker>/rank-<r>.log                               training console of rank r (names with rank- / worker-)
    <worker>/process_log/{run,debug}/plog/plog-<pid>_<stamp>.log    CANN process log, first line the HCCL init
    <worker>/process_log/rank_<N>/.../plog-<pid>_<stamp>.log        (any plog below process_log is read)
    <worker>/process_log/.../device-<N>/device-<pid>_<stamp>.log    CANN device-side log of a process
    <worker>/ascend/log/{run,debug}/{plog,device-<N>}/...           the same, CANN's own log directory copied as it
                                                        is ($HOME/ascend/log, ASCEND_PROCESS_LOG_PATH's default)
    <worker>/device_log/slog/dev-os-<N>/{run,debug}/{device-os,event}/*.log   device OS log of device N
    <worker>/device_log/slog/dev-os-<N>/[{run,debug}/]device-<M>/device-<M>_<stamp>.log   device log of device M
    <worker>/device_log/slog/host/host_kernel.log       the driver's host-side kernel log
    <worker>/device_log/hisi_logs/device-<N>/history.log          device exception history of device N
    <worker>/device_log/hisi_logs/device-<N>/<stamp>/{log,bbox,kbox,mntn,...}/*   black-box dumps of device N
    <worker>/environment_check/[<worker name>/]npu_info_{before,after}.txt   hccn_tool / npu-smi output
    <worker>/environment_check/[<worker name>/]npu_*_details.csv, npu_smi_*_details.csv, host_metrics_*.json
                                                        performance tables (recognised, not read as log lines)
    <worker>/dl_log/devicePlugin/devicePlugin[*].log    MindCluster device plugin (fault codes, levels)
    <worker>/dl_log/noded/noded[*].log                  MindCluster node agent (heartbeats)
    <worker>/dl_log/npu-exporter/npu-exporter[*].log, dl_log/volcano-{scheduler,controller}/*.log,
    <worker>/dl_log/ascend-docker-runtime/*.log         other MindCluster components
    <worker>/other/<source>.log                         any other log family of the twin (read as plain lines)
    lcne_log/<switch host>/log.log                      UB switch chip log (L1 chips: ``pod0-node26-l1sw0``;
                                                        L2 chips: ``pod0-l2plane0-sw00``; real: log_1_<stamp>.log)
    lcne_log/<switch host>/diag_display_info[_<n>].txt  the switch's ``display`` answers (read when present)
    cluster/dl_log/clusterd/clusterd.log                cluster-level job events (crash, hang, restart, ...)
    cluster/jobs/<job or instance>/rank_table.json      HCCL rank table: where the job's ranks run
    bundle.json                                         manifest (written by the twin; never needed to read)

CANN's own collection (``asys collect``: ``asys_output_<stamp>/dfx/...``) is read as this layout, file by file
(:mod:`opsbrain.ingest.asys`).

The twin writes this layout, so that ascend-fd reads its bundles as it reads a real job's (it looks for ``dl_log/``
and ``lcne_log/``). Bundles of the layout's first version (``mindx-dl/`` for ``dl_log/``, ``switch/`` for
``lcne_log/``) are still read. Host-level directories are found below wrappers such as ``var/log`` or msnpureport's
export directory (:func:`opsbrain.ingest.workers.is_wrapper`, the multi-rank analysis' own test, so that both name a
worker alike).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import PurePosixPath
from typing import Any

from opsbrain.ingest import asys
from opsbrain.ingest.hostnames import SWITCH_INFO, SWITCH_LOG
from opsbrain.ingest.npuinfo import NPU_INFO as NPU_INFO_NAME
from opsbrain.ingest.streams import not_a_log
from opsbrain.ingest.workers import (
    NAMED_SERVICE_DIRS,
    PATH_DEVICE_LOG,
    POD_DUMP,
    SERVICE_DIRS,
    TWIN_CLUSTER_DIR,
    container_log_head,
    elastic_head,
    is_wrapper,
    node_tree_head,
)
from opsbrain.ingest.workers import VMCORE as VMCORE_NAME

BUNDLE_FORMAT = "opsbrain-bundle/1"
MANIFEST = "bundle.json"
SWITCH_DIR = "lcne_log"
OLD_SWITCH_DIR = "switch"
DL_DIR = "dl_log"
CLUSTER_DIR = TWIN_CLUSTER_DIR


def _param(default: Any, unit: str, source: str, **bounds: float) -> Any:
    """A field of :class:`BundleParams`: default, unit and source (or reason), and its bounds (ge, gt, le)."""
    return field(default=default, metadata={"unit": unit, "source": source, **bounds})


@dataclass(frozen=True)
class BundleParams:
    """Export window and the reader's safety limits.

    A frozen dataclass with each field's unit, source and bounds in its metadata, checked on construction as a
    :class:`faultlib.params.ParamGroup` checks them: not a pydantic model, because reading a bundle would then import
    pydantic (0.3 s of CPU, a sixth of ``diagnose --bundle``'s 2 s goal) for five numbers."""

    window_margin_s: float = _param(600.0, "s", "reason: issue 9 - lines from 10 min before the onset to 10 min "
                                    "after the recovery, enough for the follow-on and recovery lines of every built-in "
                                    "fault", ge=0)
    max_depth: int = _param(10, "levels", "ascend-fd walks a bundle up to 10 directory levels (facts.md §7)", ge=1)
    max_file_bytes: int = _param(512 << 20, "bytes", "ascend-fd reads a host OS log up to 512 MB (Ascend/mind-cluster "
                                 "@22bb3d98, ascend_fd/utils/tool.py MAX_SIZE, checked in host_os_parser.py): a busy "
                                 "node's messages passes 64 MiB; a bigger file is a disk image by mistake, refused "
                                 "(one file costs ~2.5x its bytes while read: benchmarks/bench_bundle_memory.py)",
                                 ge=1)
    max_files: int = _param(20_000, "files", "reason: a 48-node bundle holds ~2,000 files; 10x headroom, then stop "
                            "walking", ge=1)
    max_train_logs: int = _param(20, "files", "ascend-fd reads at most 20 training console logs (facts.md §7); per "
                                 "worker", ge=1)
    max_total_bytes: int = _param(1 << 30, "bytes", "reason: text read from one bundle in all (its files, "
                                  "decompressed): a 48-node collection of a day's logs is a few hundred MiB; a "
                                  "decompression bomb (gzip expands up to ~1,000:1) stops here, the files past it "
                                  "listed as not read", ge=1)
    max_archive_bytes: int = _param(4 << 30, "bytes", "reason: an archive's uncompressed stream walked, members not "
                                    "read (core dumps, binaries) included; past it the rest of the archive is not "
                                    "read and the answer says so", ge=1)
    max_members: int = _param(100_000, "entries", "reason: an archive's entries looked at (files, folders, links): "
                              "max_files' files and their folders with room to spare; a tar of millions of empty "
                              "members stops here", ge=1)
    hold_text_bytes: int = _param(16 << 20, "bytes", "reason: text kept as Python line lists while a bundle is read "
                                  "(~1.6x its bytes in memory); past it each file's lines are kept zlib-compressed "
                                  "(~7:1 on logs) and unpacked one file at a time, so a 1 GiB bundle holds ~150 MiB "
                                  "of packed text, not ~1.6 GiB of lines; below it, no packing cost: the "
                                  "100,000-line bundle of issue 14 (~13 MB) stays held", ge=0)
    follow_links: bool = _param(False, "flag", "reason: a bundle's symbolic links are not followed (an archive's "
                                "never are): a link may point anywhere on the reading host; the operator opts in for "
                                "a tree of their own (diagnose --follow-links), each directory walked once")
    binary_share: float = _param(0.3, "share", "reason: text logs hold almost no control bytes; a file whose first "
                                 "4 KiB is more than 30% control or NUL bytes is binary (a core dump, an archive)",
                                 gt=0, le=1)

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(v, bool):
                    raise ValueError(f"bundle.{f.name}: {v!r} is not true or false")
                continue
            kind = float if f.type in ("float", float) else int
            if isinstance(v, bool) or not isinstance(v, (int, float)) or (kind is int and not isinstance(v, int)):
                raise ValueError(f"bundle.{f.name}: {v!r} is not a{'n integer' if kind is int else ' number'}")
            m = f.metadata
            if ("ge" in m and v < m["ge"]) or ("gt" in m and v <= m["gt"]) or ("le" in m and v > m["le"]):
                bounds = ", ".join(f"{k} {m[k]}" for k in ("ge", "gt", "le") if k in m)
                raise ValueError(f"bundle.{f.name}: {v!r} is out of range ({bounds})")


# file kinds
MESSAGES, DMESG, VMCORE, SYSMON, TRAIN, PLOG = "messages", "dmesg", "vmcore_dmesg", "sysmonitor", "train", "plog"
DEVICE_OS, HISTORY, NPU_INFO, DEVICE_PLUGIN, NODED = "device_os", "history", "npu_info", "device_plugin", "noded"
SWITCH, CLUSTERD, RANK_TABLE, OTHER, MANIFEST_KIND = "switch", "clusterd", "rank_table", "other", "manifest"
CANN_DEVICE, HOST_KERNEL, HISI_DUMP, MINDCLUSTER, VOLCANO = "cann_device", "host_kernel", "hisi_dump", "mindcluster", \
    "volcano"
HOST_SLOG = "host_slog"
"""The host's slog of CANN's log daemon, ``/var/log/npu/slog/host-0/host-0_<stamp>.log`` (older drivers and CANN: the
host side's application logs, AscendCL's among them, written by slogd; session 35): lines of the CANN log format,
many processes', read as a plog's (source ``plog``), no pid of its own."""
ENV_TABLE = "env_table"
"""Files recognised and not read as log lines: environment_check's performance tables (csv, json), and asys's
summaries and dumps (the reason in the kind's ``tag``)."""

HOST_LOG_KINDS = frozenset({MESSAGES, DMESG, SYSMON, VMCORE})
"""A host's own system logs: the directory holding one is a host (:meth:`opsbrain.bundle.walk._Scan.walk`)."""
SOURCE_OF_KIND = {MESSAGES: "syslog", DMESG: "syslog", VMCORE: "syslog", SYSMON: "syslog", TRAIN: "train",
                  PLOG: "plog", DEVICE_OS: "device_os", HISTORY: "device_os", NPU_INFO: "hccn",
                  DEVICE_PLUGIN: "device_plugin", NODED: "device_plugin", SWITCH: "switch", CLUSTERD: "job",
                  CANN_DEVICE: "plog", HOST_SLOG: "plog", HOST_KERNEL: "syslog", HISI_DUMP: "device_os",
                  MINDCLUSTER: "device_plugin", VOLCANO: "job"}
"""The log family (LogLine.source) whose lines a file kind holds."""

_DL = r"(?:dl_log|mindx-dl)"
_PLOG = re.compile(r"(?:^|/)plog-(\d+)_(\d+)\.log$")
_PLOG_NO_PID = re.compile(r"(?:^|/)plog/plog_\d{17}\.log$")
"""A plog named by its stamp alone, ``$HOME/ascend/log/plog/plog_<stamp>.log`` (the host log path in Ascend's ModelZoo
training scripts, Ascend/ModelZoo-TensorFlow@a2c3332a6 ``.../SPADE_ID0944_for_TensorFlow/test/train_performance_1p.sh``;
one in msaicerr's 2020 test input, hicann/oam-tools@ea0ce91e): CANN lines of a pid its name does not give, read as
:data:`HOST_SLOG` (session 50, before an unknown file)."""
_CANN_DEVICE = re.compile(r"^(?!(?:.*/)?(?:dev-os-\d+|slog)/)(?:.*/)?"
                          r"(?:process_log/(?:.+/)?|(?:debug|run|security|ascend/log)/device-\d+/)device-(\d+)_(\d+)\.log$")
"""A host process's CANN device log; not below ``dev-os-<N>`` (msnpureport's export of the device's own slog, also
``slog/dev-os-<N>/debug/device-<N>/device-<N>_<stamp>.log``: a device-OS file, :data:`_DEVICE_SIDE`), nor below
``slog/`` (the driver's own ``/var/log/npu/slog/debug/device-<N>/device-<N>_<stamp>.log``: device N's log, CANN log
reference logreference_0003)."""
_DEVICE_SIDE: tuple[tuple[str, re.Pattern[str]], ...] = (
    # kind, name pattern: group 1 the device, group 2 (dumps) the dump directory named by its time
    # (security, device-app-<pid>: the device side's security logs and the app logs it keeps when they cannot be sent
    # to the host; CANN log reference, Ascend RC, logreference_0003: session 41, before unknown files)
    (DEVICE_OS, re.compile(r"(?:^|/)slog/dev-os-(\d+)/(?:debug|run|security)/(?:device-os|event|device-app-\d+)/"
                           r"[^/]+\.log$")),
    # the host's own /var/log/npu/slog/{debug,run}/{device-os,event}/ (CANN log reference, logreference_0003/0004):
    # the device each line names (``device_id=4``)
    (DEVICE_OS, re.compile(r"(?:^|/)slog/(?:debug|run|security)/(?:device-os|event|device-app-\d+)/[^/]+\.log$")),
    (DEVICE_OS, re.compile(r"(?:^|/)device-(\d+)/device-\1_\d+\.log$")),  # slog/dev-os-3/device-0/device-0_<stamp>
    # CANN 20.x's /var/log/npu/slog/device-os-<id>/device-os-<id>_<stamp>.log: the Ctrl CPU's log of device OS <id>
    # (Huawei support EDOC1100164819, "Log Processing Mechanism"; session 50, before an unknown file)
    (DEVICE_OS, re.compile(r"(?:^|/)device-os-(\d+)/device-os-\1_\d+\.log$")),
    # a device OS log out of its directory, its device unknown (ascend-fd's kg_parse test input holds one so)
    (DEVICE_OS, re.compile(r"(?:^|/)device-os_\d+\.log$")),
    (HOST_KERNEL, re.compile(r"(?:^|/)slog/host/[^/]+\.log$")),
    (HOST_SLOG, re.compile(r"(?:^|/)slog/host-0/host-0_\d+\.log$")),  # (the host's slog: HOST_SLOG)
    (HISTORY, re.compile(r"(?:^|/)hisi_logs/device-(\d+)/history\.log$")),
    (HISI_DUMP, re.compile(r"(?:^|/)hisi_logs/device-(\d+)/(\d{14}-\d{6,9})/(?:.+/)?[^/]+\.(?:log|txt)$")),
)
"""Device-side files (device_log/): the device OS and device logs, the driver's host log, history and dumps."""
_DEVICE_SYSLOG = re.compile(r"(?:^|/)message/(?:(?:dev-os-(\d+)|device-(\d+))/)?(?:[^/]+/)*[^/]+$")
"""msnpureport's ``message/`` folder: the device side's syslog (its driver and kernel log; CANN log reference,
"msnpureport工具使用": slog, syslog, black box and stackcore go to ``slog``, ``message``, ``hisi_logs`` and
``stackcore`` under the export's time-stamped directory), read as syslog of device N when a ``dev-os-N`` /
``device-N`` folder names it, of the worker above ``message`` otherwise."""
_NPU_INFO = NPU_INFO_NAME  # (opsbrain.ingest.npuinfo: the rule --logs DIR reads these files by too)
_ENV_TABLE = re.compile(r"(?:^|/)environment_check/(?:[^/]+/)?"
                        r"(?:npu_(?:smi_)?\d+_details\.csv|host_metrics_\d+\.json)$")
_PLUGIN = re.compile(r"(?:^|/)" + _DL + r"/devicePlugin/devicePlugin[^/]*\.log$")
_NODED = re.compile(r"(?:^|/)" + _DL + r"/noded/noded[^/]*\.log$")
_MINDCLUSTER = re.compile(r"(?:^|/)" + _DL + r"/(npu-exporter|[^/]*docker-runtime[^/]*)/[^/]+\.log$")
"""MindCluster components other than the device plugin and NodeD (hwlog lines)."""
_VOLCANO = re.compile(r"(?:^|/)" + _DL + r"/(volcano-(?:scheduler|controller))/[^/]+\.log$")
_CLUSTERD = re.compile(r"(?:^|/)" + _DL + r"/clusterd/clusterd[^/]*\.log$")
_RANK_TABLE = re.compile(r"(?:^|/)(?:jobs/(.+)/)?(?:rank_table|hccl)\.json$")
_SWITCH = SWITCH_LOG  # (opsbrain.ingest.hostnames: --logs DIR places a chip's lines by it too)
_SWITCH_INFO = SWITCH_INFO  # (opsbrain.ingest.hostnames: --logs DIR places the file's lines by it too)
_DEBIAN_SYSLOG = re.compile(r"(?:syslog|kern\.log)(?:\.\d+)?$")
"""rsyslog's files on Debian and Ubuntu (``/var/log/syslog``, ``/var/log/kern.log`` and their rotations ``syslog.1``,
``kern.log.2.gz``: the distribution's /etc/rsyslog.d/50-default.conf and logrotate's numbering), where Red Hat-like
systems (openEuler, CentOS, Kylin) write ``/var/log/messages``: the same line format, read as :data:`MESSAGES`."""
_VMCORE = VMCORE_NAME  # (opsbrain.ingest.workers: --logs DIR places the file by it too)
_OTHER = re.compile(r"(?:^|/)other/([A-Za-z0-9_.-]+)\.log$")
_POD_LOG = re.compile(r"(?:^|/)pods/[^/]+/[^/]+/\d+\.log(?:\.\d{8}-\d{6})?$")
_DOCKER_LOG = re.compile(r"(?:^|/)containers/([0-9a-f]{64})/\1-json\.log(?:\.\d+)?$")
"""A node's container logs: kubelet's ``/var/log/pods/<ns>_<pod>_<uid>/<container>/<restarts>.log`` (CRI lines,
``<RFC 3339> stderr F <line>``; rotated as ``0.log.20250301-100000``) and Docker's json-file
``/var/lib/docker/containers/<id>/<id>-json.log[.N]``: each a container's console, read as plain lines of source
``pod`` / ``docker`` (their heads and records taken off as in pasted text), its worker the directory above them
(:func:`opsbrain.ingest.workers.container_log_head`). ``/var/log/containers/*.log`` are links to the former and are
not read twice."""
SERVICE_LOGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:^|/)(?:vllm|mindie-motor)-[a-z0-9_-][^/]*\.log$"), "vllm"),
    (re.compile(r"(?:^|/)mindie-(?!cert|motor-)[^/]*\.log$"), "mindie"),
    (re.compile(r"(?:^|/)ttp_log[^/]*\.log(?:\.\d+)?$"), "mindio"),
    (re.compile(r"(?:^|/)amct[^/]*\.log$"), "amct"),
)
"""Serving and tooling logs a job leaves, named as ascend-fd's parse finds them (Ascend/mind-cluster @22bb3d98,
component/ascend-faultdiag/src/ascend_fd/pkg/parse/parser_saver.py and utils/regular_table.py): MindIE's
``mindie-*.log`` (not its ``mindie-cert`` module), vLLM / MindIE-Motor's ``vllm-*.log`` and ``mindie-motor-*.log``,
MindIO TTP's ``ttp_log.log[.N]`` and AMCT's ``amct*.log``; its kg_parse test puts them in ``mindie/log/debug/``,
``pymotor_vllm/``, ``ttp_log/`` and ``amct_log/``. Read as :data:`OTHER` lines of that source."""
_TRAIN_NAME = re.compile(r"(rank-|worker-).*\.(txt|log)$")
_DMESG_NAME = re.compile(r"dmesg(?:\.txt|\.log)?(?:\.\d+)?")
"""A saved kernel ring buffer, and its rotations: Debian's boot script saves it to ``/var/log/dmesg`` after turning the
last boot's copy over with ``savelog -c 5`` (``dmesg.0``, then ``dmesg.1.gz`` ... ``dmesg.4.gz``, savelog compressing
all but ``.0``: sysvinit's ``debian/src/initscripts/etc/init.d/bootlogs``, e.g. github.com/MX-Linux/
sysvinit-init-diversity; debianutils savelog(8)). Session 42: before, the rotations were skipped as unknown files."""


@dataclass(frozen=True, slots=True)
class FileKind:
    """What a file in a bundle is: its kind, the worker directory it belongs to (relative, ``""`` = the bundle
    root itself), and what its name says (device index, pid, before/after, switch or job name)."""

    kind: str
    worker: str | None = None
    device: int | None = None
    pid: int | None = None
    tag: str | None = None


def _strip_wrappers(parts: list[str]) -> str:
    parts = elastic_head(parts)  # torchrun --log-dir's <run>/attempt_N/<local rank>/ (as --logs: host_root)
    while parts and is_wrapper(parts[-1]):
        parts = parts[:-1]
    return "/".join(parts)


def _worker_before(rel: str, anchor: str | tuple[str, ...]) -> str:
    """The worker directory of ``rel``: what comes before the first anchor directory it has (of ``anchor``, in
    order; the last occurrence of that name), wrappers skipped; the file's own directory when it has none."""
    from opsbrain.ingest.workers import HOME_SERVICE_DIRS, device_store, without_home

    parts = rel.split("/")
    if "device_log" in anchor and (k := device_store(parts)) is not None:
        return _strip_wrappers(parts[:k + 1])  # <store>/device_log/<server>/...: that server's (session 35)
    for name in (anchor,) if isinstance(anchor, str) else anchor:
        if name in parts[:-1]:
            i = max(k for k, p in enumerate(parts[:-1]) if p == name)
            # (~/mindie/log copied with its home: the home is no worker; session 41)
            return _strip_wrappers(without_home(parts[:i]) if name in HOME_SERVICE_DIRS else parts[:i])
    return _strip_wrappers(parts[:-1])


def _device_worker(rel: str, anchors: tuple[str, ...]) -> str:
    """The worker of a device-side log (:func:`_worker_before` its ``anchors``): outside a ``device_log/``, the
    directory above the node's own log tree, as ``--logs`` places it (``workers.host_root``; session 35: before,
    msnpureport's export in ``var/log/npu/report/<stamp>/`` was the worker ``var/log/npu/report``)."""
    worker = _worker_before(rel, anchors)
    if "device_log" in rel.split("/")[:-1]:
        return worker
    return _strip_wrappers(node_tree_head(worker.split("/")))


_DEV_ANCHORS = ("device_log", "slog", "hisi_logs")
_CANN_ANCHORS = ("process_log",)
LAYOUT_DIRS = frozenset({*_DEV_ANCHORS, *_CANN_ANCHORS, "environment_check", DL_DIR, "mindx-dl", SWITCH_DIR,
                         OLD_SWITCH_DIR, CLUSTER_DIR, "jobs", "crash", "other", "plog", "run", "debug"})
"""Directories whose name the layout reads (where a file sits says what it is, or whose it is): an archive's one
top-level folder of these names is kept (``tar czf x.tgz process_log/``), not taken off as a wrapper of the bundle."""


def _cann_worker(rel: str) -> str:
    """The worker of a CANN process log: the directory holding ``process_log``, else the one holding CANN's own log
    directory (``<worker>/ascend/log/{debug,run}/plog/``: :func:`opsbrain.ingest.workers.cann_log_head`), else the
    one holding an ``ASCEND_PROCESS_LOG_PATH`` tree (``<worker>/plog/``), by --logs's rule (``workers.host_root``)."""
    from opsbrain.ingest.workers import cann_log_head, host_root

    dirs = rel.split("/")[:-1]
    if "process_log" in dirs:
        return _worker_before(rel, _CANN_ANCHORS)
    if (head := cann_log_head(dirs)) is None:  # ASCEND_PROCESS_LOG_PATH's own tree (``<path>/plog/``, ``<path>/
        return host_root(rel)[0]  # run/plog/``): the directory above it, as --logs places it (session 35)
    while head and head[-1] in CANN_WRAPPERS:
        head = head[:-1]
    return _strip_wrappers(head)


CANN_WRAPPERS = frozenset({"ascend", "log"})
"""What CANN's default log path puts above its level directories (``$HOME/ascend/log/``)."""


def _dl(rel: str) -> str:
    return _worker_before(rel, ("dl_log", "mindx-dl"))


def classify(rel: str) -> FileKind | None:
    """The kind of the file at ``rel`` (a ``/``-separated path relative to the bundle root), or None (unknown). A file
    of CANN's ``asys`` collection is classified as its counterpart in this layout (:mod:`opsbrain.ingest.asys`)."""
    if (placed := asys.place(rel)) is not None:
        head = _strip_wrappers(placed.head.split("/")) if placed.head else ""
        if placed.path is not None:
            return _classify(placed.path)
        if placed.role == asys.CONSOLE:
            return FileKind(TRAIN, head)
        if placed.role == asys.HEALTH_ROLE:
            return FileKind(OTHER, head, tag="asys")
        if placed.path is None and placed.what.startswith("asys dfx/"):
            return None  # dumps and compiled operators (up to gigabytes): left unread, as unknown files are
        return FileKind(ENV_TABLE, head, tag=placed.what)
    return _classify(rel)


def _classify(rel: str) -> FileKind | None:
    p = PurePosixPath(rel)
    name = p.name
    if rel == MANIFEST:
        return FileKind(MANIFEST_KIND)
    if m := _PLOG.search(rel):
        return FileKind(PLOG, _cann_worker(rel), pid=int(m.group(1)))
    if _PLOG_NO_PID.search(rel):
        return FileKind(HOST_SLOG, _cann_worker(rel))
    if m := _CANN_DEVICE.search(rel):
        return FileKind(CANN_DEVICE, _cann_worker(rel), pid=int(m.group(1)))
    if m := PATH_DEVICE_LOG.search(rel):  # <ASCEND_PROCESS_LOG_PATH>/device-<N>/ (CANN 5.0; session 42)
        return FileKind(CANN_DEVICE, _cann_worker(rel), pid=int(m.group(3)))
    for kind, rx in _DEVICE_SIDE:
        if m := rx.search(rel):
            dev = int(m.group(1)) if rx.groups else None
            anchors = _DEV_ANCHORS + ((f"device-{dev}",) if dev is not None else ())
            return FileKind(kind, _device_worker(rel, anchors), device=dev, tag=m.group(2) if rx.groups > 1 else None)
    if m := _NPU_INFO.search(rel):
        return FileKind(NPU_INFO, _worker_before(rel, "environment_check"), tag=m.group(1))
    if _ENV_TABLE.search(rel):
        return FileKind(ENV_TABLE, _worker_before(rel, "environment_check"))
    if _CLUSTERD.search(rel):
        return FileKind(CLUSTERD)
    if _PLUGIN.search(rel):
        return FileKind(DEVICE_PLUGIN, _dl(rel))
    if _NODED.search(rel):
        return FileKind(NODED, _dl(rel))
    if m := _MINDCLUSTER.search(rel):
        return FileKind(MINDCLUSTER, _dl(rel), tag=m.group(1))
    if m := _VOLCANO.search(rel):
        return FileKind(VOLCANO, _dl(rel), tag=m.group(1))
    if m := _RANK_TABLE.search(rel):
        return FileKind(RANK_TABLE, tag=m.group(1) or (p.parent.name or "job"))
    if (m := _SWITCH.search(rel)) or (m := _SWITCH_INFO.search(rel)):
        return FileKind(SWITCH, tag=m.group(1))
    if m := _VMCORE.search(rel):
        worker = _worker_before(rel, "crash") if m.group(1) else (
            _strip_wrappers(list(p.parent.parts)) if str(p.parent) != "." else "")
        return FileKind(VMCORE, worker, tag=m.group(1))
    if m := _OTHER.search(rel):
        return FileKind(OTHER, _worker_before(rel, "other"), tag=m.group(1))
    if (pod := _POD_LOG.search(rel)) or _DOCKER_LOG.search(rel):
        head = container_log_head(rel.split("/")[:-1])
        if head is not None:
            return FileKind(OTHER, _strip_wrappers(head), tag="pod" if pod else "docker")
    for rx, source in SERVICE_LOGS:
        if rx.search(rel):
            return FileKind(OTHER, _worker_before(rel, SERVICE_DIRS), tag=source)
    if m := _DEVICE_SYSLOG.search(rel):
        npu = m.group(1) or m.group(2)
        return FileKind(MESSAGES, _device_worker(rel, ("message",)), device=int(npu) if npu else None)
    host_dir = _strip_wrappers(list(p.parent.parts)) if str(p.parent) != "." else ""
    if (name.startswith("messages") or _DEBIAN_SYSLOG.match(name)) and not name.endswith((".gz", ".xz", ".bz2",
                                                                                          ".zip")):
        return FileKind(MESSAGES, host_dir)
    if _DMESG_NAME.fullmatch(name):
        return FileKind(DMESG, host_dir)
    if name == "sysmonitor.log":
        return FileKind(SYSMON, host_dir)
    if (console := asys.job_console(rel)) is not None:  # MindCluster's TRAIN_LOG_PATH, a tee'd console (session 36)
        return FileKind(TRAIN, console)
    if _TRAIN_NAME.search(name) and not f"/{rel}".endswith(f"/log/containers/{name}"):  # kubelet's links to pods/ files
        if not host_dir and (m := POD_DUMP.match(name)):
            return FileKind(TRAIN, m.group(1))
        return FileKind(TRAIN, host_dir)
    if _CONSOLE_NAME.search(name) and not set(p.parent.parts) & _CONSOLE_BLOCKERS and not _RUNTIME_DIRS.search(rel) \
            and not not_a_log(name):  # README.txt, run.sh: skipped as --logs DIR skips them (session 41)
        return FileKind(TRAIN, _worker_before(rel, SERVICE_DIRS), tag=UNNAMED_CONSOLE)
    return None


UNNAMED_CONSOLE = "unnamed"
"""The tag of a text log whose name the layout does not know, outside its directories (``train_node1.log``,
``nohup.out``, a pod's dump): read as a job's console, and listed as read so."""
_CONSOLE_BLOCKERS = frozenset({*_DEV_ANCHORS, *_CANN_ANCHORS, "environment_check", DL_DIR, "mindx-dl", SWITCH_DIR,
                               OLD_SWITCH_DIR, "plog", "jobs", *NAMED_SERVICE_DIRS})
"""Directories whose files the layout names one by one: a file of another name there is no console. ``run`` /
``debug`` are not among them (MindIE MS's ``/var/log/mindie-ms/run/log.txt``), nor ``cluster`` (a ``kubectl get
events`` dump saved beside the cluster's logs)."""
_RUNTIME_DIRS = re.compile(r"(?:^|/)(?:log/pods|log/containers|docker/containers)/")
"""Where the container runtimes keep their logs: what is not a container's log there (kubelet's links, a directory
not named ``<ns>_<pod>_<uid>``) is not a console either."""
_CONSOLE_NAME = re.compile(r"\.(?:log|txt|out|err|stdout|stderr)(?:\.\d+)?$")
"""A text log's ending: ``.log``, ``.txt``, ``nohup.out`` / ``job.err`` and the ``.stdout`` / ``.stderr`` of launchers
that save each rank's streams apart (probe59b: a vLLM-Ascend job's ``rank1.stdout`` files were skipped by ``--bundle``
as unknown, which then read nothing and found no fault, while ``--logs DIR`` read them: npu_oom)."""



# ---- paths the writer uses (the inverse of classify) -----------------------------------------------------------
def stamp17(dt: object) -> str:
    """``YYYYmmddHHMMSSfff`` (17 digits), the creation stamp in plog and device-os file names."""
    from datetime import datetime

    assert isinstance(dt, datetime)
    return f"{dt:%Y%m%d%H%M%S}{dt.microsecond // 1000:03d}"


def plog_path(worker: str, pid: int, stamp: str) -> str:
    return f"{worker}/process_log/run/plog/plog-{pid}_{stamp}.log"


def device_os_path(worker: str, device: int, stamp: str) -> str:
    return f"{worker}/device_log/slog/dev-os-{device}/run/device-os/device-os_{stamp}.log"


def history_path(worker: str, device: int) -> str:
    return f"{worker}/device_log/hisi_logs/device-{device}/history.log"


def npu_info_path(worker: str, when: str) -> str:
    return f"{worker}/environment_check/npu_info_{when}.txt"


def plugin_path(worker: str) -> str:
    return f"{worker}/{DL_DIR}/devicePlugin/devicePlugin.log"


def noded_path(worker: str) -> str:
    return f"{worker}/{DL_DIR}/noded/noded.log"


def switch_path(host: str) -> str:
    return f"{SWITCH_DIR}/{host}/log.log"


def clusterd_path() -> str:
    return f"{CLUSTER_DIR}/{DL_DIR}/clusterd/clusterd.log"


def rank_table_path(name: str) -> str:
    return f"{CLUSTER_DIR}/jobs/{name}/rank_table.json"


def other_path(worker: str, source: str) -> str:
    return f"{worker}/other/{re.sub(r'[^A-Za-z0-9_.-]', '_', source)}.log"
