"""Which worker (host) a file of a collected job belongs to, by its path: the directories real collections put
around a worker's logs (``process_log``, ``environment_check``, ``device_log``, CANN's own ``ascend/log/{debug,run}``)
and the ones that only wrap them. The multi-rank analysis (:mod:`.ranks`) and the bundle reader's layout use these
same tests, so that a worker has one name in a rank chain and in the bundle's report."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import PurePosixPath

from opsbrain.ingest.archive import common_top
from opsbrain.ingest.asys import canonical, job_console, place
from opsbrain.ingest.streams import archive_stem
from opsbrain.lazyre import lazy_compile

WRAPPERS = frozenset({"ascend", "log", "logs", "var", "os", "os_log", "host_log", "console", "train_log", "training",
                      "fault_diag_data", "output", "msrun_log", "npu", "ascend_seclog", "bus_log"})
"""Directory names that only wrap a worker's logs (``<job>/ascend/process_log``, ``worker-3/var/log/messages``): not
the worker's name (compared in lower case). The bundle reader's layout uses the same test (:func:`is_wrapper`).
Session 28: MindFormers' ``output/`` and msrun's ``output/msrun_log/`` (mindformers docs, feature/logging), CANN's
``/var/log/npu/`` (CANN log reference, logreference_0003/0004) and the driver's ``/var/log/ascend_seclog/`` (the
install and upgrade logs): a node's logs below them are the node's. Session 60 (probe59b): ascend-fd's ``bus_log/``
(MindCluster 26.0's ``ascend-fd single-diag --bus_log``, docs/zh/faultdiag/api/single_server_fault_diagnosis.md), a
host's collection folder, not a host of its own; its format is not read otherwise (its lines are read as text)."""
EXPORT_STAMP = lazy_compile(r"\d{14}|\d{8}[-_]\d{6}|\d{4}-\d\d-\d\d[-_T]\d\d[-:]\d\d[-:]\d\d")
"""msnpureport's export directory, named by its run time (``20250619092715/slog/...``, ``.../hisi_logs/...``: the
tool writes "to a sub-directory named by the time stamp", CANN log reference, msnpureport): it wraps a node's device
logs and names no worker. The other forms a collection script dates its folder with (``20250301-100600``,
``2025-03-01-10-06-00``, ``2025-03-01_10:06:00``) too: a name that is only a date and time names no host."""


RANK_DIR = lazy_compile(r"rank[_-]?\d+", re.I)
"""A rank's own directory inside a worker's (``process_log/rank_3/``, MindFormers' ``output/log/rank_0/``): never a
host."""


def is_wrapper(name: str) -> bool:
    """A directory that only wraps a worker's logs (:data:`WRAPPERS`, msnpureport's :data:`EXPORT_STAMP`, a rank's
    :data:`RANK_DIR`)."""
    return name.lower() in WRAPPERS or EXPORT_STAMP.fullmatch(name) is not None or RANK_DIR.fullmatch(name) is not None


NAMED_SERVICE_DIRS = ("mindie", "mindie_cluster_log", "pymotor_vllm", "ttp_log", "amct_log")
SERVICE_DIRS = (*NAMED_SERVICE_DIRS, "mindie-ms")
"""Serving and tooling programs' own log directories (ascend-fd's kg_parse inputs: ``mindie/log/debug/``,
``pymotor_vllm/``, ``ttp_log/``, ``amct_log/``; MindIE MS's ``/var/log/mindie-ms/run/log.txt``, MindIE docs
mindie_log_0025): the directory above one is the worker (``node-a/mindie/log/debug/x.log`` is node-a's). The layout
names the files of :data:`NAMED_SERVICE_DIRS`; mindie-ms's, of no name it knows, are read as consoles."""
ANCHORS = ("process_log", "environment_check", "device_log", "dl_log", "mindx-dl")
"""Directories real collections put a worker's logs under: the directory above one of them is the worker (MindCluster's
component logs too, ``dl_log/`` as ascend-fd collects them and ``mindx-dl/`` as the twin writes them: the bundle
layout's ``_dl``)."""
VMCORE = lazy_compile(r"(?:^|/)(?:crash/([^/]+)/)?vmcore[-_]dmesg\.txt$")
"""kdump's ``vmcore-dmesg.txt``; MindCluster's fault-diagnosis collection layout writes it ``vmcore_dmesg.txt``
(hiascend.com mindx-dl/600 faultdiag fdug mindxdlFDUG019, the directory tree to collect), in ``crash/<ip>-<time>/``
below its worker, as kdump names its dumps: the worker is the directory before ``crash`` (the bundle reader's
``layout.classify`` and :func:`host_root`, so ``--logs DIR``, alike; before session 33 ``--logs`` took the dump's
own folder for a host)."""
NODE_LOG_DIRS = frozenset({"slog", "plog", "hisi_logs", "profiling", "conf", "coredump", "oplog", "device-os",
                           "debug", "run", "bbox", "kbox", "npu", "ascend_seclog", "driver", "dl_log", "mindx-dl",
                           "process_log", "device_log", "environment_check", "message", "stackcore"})
"""Directories of a node's own log tree (``/var/log/npu/{slog,profiling,conf,...}``, CANN's ``{debug,run}/plog``,
MindCluster's component logs): a directory given that is one, or holds them at its top, is one node's logs, and
they name no host (``--logs /var/log/npu`` is not host ``slog``; ``watch`` follows such a tree the same way).
msnpureport's export holds ``message/`` and ``stackcore/`` beside ``slog/`` and ``hisi_logs/`` (CANN log reference,
msnpureport; the bundle's ``layout._DEVICE_SYSLOG``): session 36, before, ``--logs`` named the host of
``node-b/<stamp>/message/messages`` ``node-b/<stamp>/message``."""
CANN_LOG_LEVELS = ("debug", "run", "security")
"""The level folders of CANN's application logs, each with ``plog/`` and ``device-<id>/`` (CANN log reference, "查看日志
(Ascend EP)"; ``security`` since session 41, before its logs made a worker named ``.../ascend/log/security``)."""
_CANN_HOME = ["ascend", "log"]
_DEVICE_DIR = lazy_compile(r"device-\d+")
PATH_DEVICE_LOG = lazy_compile(r"^(?!(?:.*/)?(?:dev-os-\d+|slog)/)(?:(.*)/)?device-(\d+)/device-(?!\2_)(\d+)_\d+\.log$")
"""A host process's CANN device log right below ASCEND_PROCESS_LOG_PATH (group 1 the path, 2 the device, 3 the pid):
CANN 5.0 writes ``$HOME/ascend/log/plog/`` and ``.../device-<id>/``, or the same two folders below the directory
the variable names instead (CANN 5.0.4 log reference, "日志文件获取": the default directory or one the variable
gives, https://www.hiascend.com/document/detail/zh/canncommercial/5046/troublemanagement/logreference/atlaslog_24_0005.html;
a job that sets it per rank leaves ``<host>/rank_<N>/device-<id>/device-<pid>_<stamp>.log``). Not below ``slog`` or
``dev-os-<N>`` and not ``device-<N>/device-<N>_<stamp>.log``: the device's own log, named by its id (msnpureport's
export, ``/var/log/npu/slog/debug/device-<id>/``). Session 42: before, such a file was a job's console and its folder
``<host>/rank_0/device-0`` a worker of its own."""
_DEV_OS = lazy_compile(r"dev-os-\d+")


def cann_log_head(dirs: list[str]) -> list[str] | None:
    """The directories above CANN's own log directory in a file's ``dirs``, or None when it is not in one. CANN writes
    a process's logs to ``$HOME/ascend/log/{debug,run}/plog/plog-<pid>_<stamp>.log`` and
    ``.../{debug,run}/device-<N>/device-<pid>_<stamp>.log`` (``security`` too; CANN 5.0 wrote ``ascend/log/plog/``
    and ``ascend/log/device-<N>/`` without the level folders: session 41) (ASCEND_PROCESS_LOG_PATH's default;
    ascend-fd's collection renames that directory ``process_log``): a copy of it is a worker's logs as
    ``process_log`` is, the home it was copied with (``root/``, ``home/<user>/``) not part of the worker's name."""
    for i in range(len(dirs) - 1, 0, -1):
        if (dirs[i] == "plog" or _DEVICE_DIR.fullmatch(dirs[i])) and (
                dirs[i - 1] in CANN_LOG_LEVELS or dirs[i - 2:i] == _CANN_HOME):
            head = dirs[:i - 1] if dirs[i - 1] in CANN_LOG_LEVELS else dirs[:i]  # CANN 5.0: no level folders
            if head[-2:] == ["ascend", "log"]:  # $HOME/ascend/log copied with its home (tar czf - /root/ascend/log)
                home = without_home(head[:-2])
                return home if len(home) < len(head) - 2 else head
            return head
    return None


def without_home(head: list[str]) -> list[str]:
    """``head`` without the home directory a program's default log path was copied with at its end (``root``,
    ``home/<user>``): CANN's ``~/ascend/log``, MindIE's ``~/mindie/log`` (session 41). ``home/<user>`` first:
    ``/home/root`` is root's home on Yocto-built systems (review41: before, the worker was named ``.../home``)."""
    if len(head) >= 2 and head[-2] == "home":
        return head[:-2]
    if head[-1:] == ["root"]:
        return head[:-1]
    return head


HOME_SERVICE_DIRS = frozenset({"mindie"})
"""Serving programs' log directories whose default is in the user's home: MindIE's ``~/mindie/log`` (MindIE log
reference, "查看日志", mindie_log_0206)."""


_DNS_NAME = r"[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?"
POD_DIR = lazy_compile(_DNS_NAME + "_" + _DNS_NAME + r"_(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{32})")
"""kubelet's directory of one pod's container logs, ``<namespace>_<pod name>_<pod uid>`` below ``/var/log/pods``
(Kubernetes' logging architecture reference; names are DNS-1123, which has no ``_``). The uid is a UUID, or for a
static pod (a manifest the kubelet reads from its own directory) the 32 hex digits of the manifest's MD5 hash
(kubelet pkg/kubelet/config/common.go, ``applyDefaults``)."""
CONTAINER_ID = lazy_compile(r"[0-9a-f]{64}")
"""Docker's container id, the directory of its json-file log under ``/var/lib/docker/containers``."""
_DOCKER_ROOT = ("var", "lib", "docker")


def container_log_head(dirs: list[str]) -> list[str] | None:
    """The directories above a node's container logs in a file's ``dirs`` (kubelet's ``pods/<ns>_<pod>_<uid>/
    <container>/``, Docker's ``[var/lib/docker/]containers/<id>/``), or None when it is not one."""
    for i in range(len(dirs) - 1):
        if dirs[i] == "pods" and POD_DIR.fullmatch(dirs[i + 1]):
            return dirs[:i]
        if dirs[i] == "containers" and CONTAINER_ID.fullmatch(dirs[i + 1]):
            head = dirs[:i]
            return head[:-3] if tuple(head[-3:]) == _DOCKER_ROOT else head
    return None


POD_DUMP = lazy_compile(r"^(.+-(?:worker|master|launcher)-\d+)(?:[_.-]previous)?\.(?:log|txt)$")
"""A ``kubectl logs <pod> > <pod>.log`` dump at a bundle's root (``--previous``: ``<pod>_previous.log``): the pods of
a PyTorchJob / MPIJob / Volcano job are named ``<job>-<replica>-<index>`` (``llama-worker-3``, ``llama-master-0``),
one per node of the job, so each dump is its pod's worker; in a directory, the directory is the worker."""


def real_host_file(file: str | None) -> bool | None:
    """False for a file of a real host's directory (a worker directory not named like the twin's ``pod0-node7``):
    the twin's naming conventions do not read its lines (``parse_line``'s ``twin``); None otherwise (told by the
    line's host)."""
    worker = host_root(file)[0] if file else ""
    base = worker.rsplit("/", 1)[-1]
    return False if base and not re.match(r"pod\d+-node\d+(?=$|[-.])", base) else None


TWIN_CLUSTER_DIR = "cluster"
"""The folder of a twin-written bundle that holds the cluster's own records (jobs, the scheduler): no host's
(:data:`opsbrain.bundle.layout.CLUSTER_DIR`)."""


def twin_export(files: Iterable[str | None]) -> bool:
    """Whether ``files`` (the files signals were read from) are a bundle the twin wrote: at least one in a worker
    directory named as the twin names its nodes (``pod0-node7``), none in another host's directory (its cluster
    folder is no host's). ``diagnose --bundle`` tells the same from the workers its reader named
    (:func:`opsbrain.bundle.reader.real_nodes`); a paste, a file with no worker directory, is not."""
    seen = False
    for f in files:
        root = host_root(f)[0] if f else ""
        if not root or TWIN_CLUSTER_DIR in root.split("/"):
            continue
        if real_host_file(f) is False:
            return False
        seen = True
    return seen


def device_store(parts: list[str] | tuple[str, ...]) -> int | None:
    """The index of a worker's folder right below ``device_log`` (``<store>/device_log/worker-0/<export>/slog/...``:
    MindCluster FaultDiag's shared-storage example, where msnpureport_auto_export.sh exports each server's device
    logs to ``device_log/<server>/``; session 35) among a file's directories ``parts``: a host-like name that is no
    folder of a device log tree (``slog``, ``dev-os-3``, msnpureport's dated export, ...); None where there is none."""
    for i, x in enumerate(parts[:-2]):
        if x == "device_log":
            sub = parts[i + 1]
            if host_like(sub) and not is_wrapper(sub) and sub.lower() not in NODE_LOG_DIRS and not (
                    _DEVICE_DIR.fullmatch(sub) or _DEV_OS.fullmatch(sub)):
                return i + 1
    return None


def host_root(file: str | None) -> tuple[str, str | None]:
    """The worker directory a bundle-relative path belongs to (the directory holding ``process_log`` /
    ``environment_check`` / ``device_log``, CANN's own log directory (:func:`cann_log_head`) or a node's container
    logs (:func:`container_log_head`), else the file's own directory; an asys collection read as its counterpart
    (:func:`opsbrain.ingest.asys.canonical`); wrappers skipped; ``""`` = the root given), and the name an
    ``environment_check/<name>/`` sub-directory gives it."""
    if not file:
        return "", None
    if (placed := place(file)) is not None and placed.path is None:  # asys's console, health file, summaries
        head = placed.head.split("/") if placed.head else []
        while head and is_wrapper(head[-1]):
            head.pop()
        return "/".join(head), None
    if (console := job_console(canonical(file))) is not None:  # trainlogs/<address>-<rank>: its node's console
        return console, None
    parts = _label_parts(PurePosixPath(canonical(file)).parts)[:-1]
    if len(parts) >= 2 and parts[-2] == "crash" and VMCORE.search(file):  # crash/<ip>-<time>/vmcore-dmesg.txt
        parts = parts[:-2]
    # (device_store reads a file's whole path, its name last: as the bundle's layout calls it)
    if (k := device_store([*parts, ""])) is not None and not any(a in parts[:k - 1] for a in ANCHORS):
        return _joined(parts[:k + 1]), None  # <store>/device_log/<server>/...: that server's
    for a in ANCHORS:
        if a in parts:
            i = parts.index(a)
            head = parts[:i]
            while head and is_wrapper(head[-1]):
                head.pop()
            sub = parts[i + 1] if a == "environment_check" and i + 1 < len(parts) else None
            return _joined(head), sub
    for a in SERVICE_DIRS:
        if a in parts:
            head = parts[:max(i for i, x in enumerate(parts) if x == a)]
            if a in HOME_SERVICE_DIRS:
                head = without_home(head)
            while head and is_wrapper(head[-1]):
                head.pop()
            return _joined(head), None
    for found in (cann_log_head(parts), container_log_head(parts)):  # the worker is above ascend/log, var/log/pods
        if found is not None:
            parts = found
            break
    else:
        if parts and PATH_DEVICE_LOG.search(canonical(file)):  # <ASCEND_PROCESS_LOG_PATH>/device-<N>/: the path's
            parts = parts[:-1]
    parts = node_tree_head(elastic_head(parts))  # a node's own log tree below its worker: its folders name no host
    while parts and is_wrapper(parts[-1]):
        parts.pop()
    if not parts and (m := POD_DUMP.match(PurePosixPath(file).name)):
        return m.group(1), None  # a pod's dump at the root: the pod is the worker
    return _joined(parts), None  # no known directory: the file's own directory is its worker


_ATTEMPT = lazy_compile(r"attempt_\d{1,6}")


def elastic_head(parts: list[str]) -> list[str]:
    """A path's directories before torchrun's ``--log-dir`` layout (torch.distributed.elastic's ``DefaultLogsSpecs``:
    ``<log_dir>/<run_id>_<random>/attempt_<restart>/<local_rank>/{stdout,stderr}.log``): ``node-1`` of
    ``node-1/logs/none_ab12cd/attempt_0/1``, the log directory dropped where a folder holds it (session 60, probe59b:
    the local rank's folder ``1`` was named the host)."""
    k = next((i for i in range(len(parts) - 1, 0, -1) if _ATTEMPT.fullmatch(parts[i])), None)
    if k is None or k + 1 < len(parts) - 1 or (k + 1 < len(parts) and not parts[k + 1].isdigit()):
        return parts
    head = parts[:k - 1]  # without <run_id>_<random>
    return head[:-1] if len(head) >= 2 else head


def node_tree_head(parts: list[str]) -> list[str]:
    """A path's directories before the first folder of a node's own log tree (:data:`NODE_LOG_DIRS`, ``dev-os-N``):
    ``var/log`` of ``var/log/npu/report/<stamp>/slog/...`` (the bundle's layout cuts a device log's worker so too)."""
    cut = next((i for i, x in enumerate(parts) if x.lower() in NODE_LOG_DIRS or _DEV_OS.fullmatch(x)), None)
    return parts if cut is None else parts[:cut]


ENV_CHECK = "environment_check"


def env_worker(worker: str, sub: str | None) -> str:
    """The worker of a file :func:`host_root` places in ``worker`` with the sub-directory ``sub`` of its
    ``environment_check/``: that folder, a worker of its own (``out/environment_check/worker-5``; MindCluster's
    collection scripts write one host's check to ``environment_check/worker-<i>/``, so a bundle of several hosts' checks
    holds one folder each); ``worker`` itself for a file in no such folder. Where the directory holds one such folder
    only, the folder is the directory's host (:func:`env_folds` folds it back, and the host is named after it)."""
    if sub is None:
        return worker
    return f"{worker}/{ENV_CHECK}/{sub}" if worker else f"{ENV_CHECK}/{sub}"


def env_folds(subs: dict[str, set[str]]) -> dict[str, str]:
    """:func:`env_worker`'s folder -> its directory, for each directory (of ``subs``: directory -> the names of its
    ``environment_check/<name>/`` folders) that holds one folder only: one host's directory, named after it."""
    return {env_worker(w, next(iter(names))): w for w, names in subs.items() if len(names) == 1}


def _label_parts(parts: tuple[str, ...]) -> list[str]:
    """A path's directories with an archive's label ``<archive>:`` apart from its first member directory (``--logs``
    names a member ``<archive>:<member>``), so that an archive without a top folder (``tar czf worker-1.tgz -C
    worker-1 .``) still shows its ``process_log`` and the others the workers are found by; tar's ``./`` dropped."""
    out: list[str] = []
    for part in parts:
        label, sep, rest = part.partition(":")
        if sep and archive_stem(label) != label:
            out.append(label + sep)
            if rest and rest != ".":
                out.append(rest)
        else:
            out.append(part)
    return out


def _joined(parts: list[str]) -> str:
    """The inverse of :func:`_label_parts`: ``/`` between directories, none after an archive's label."""
    out = ""
    for part in parts:
        out += part if not out or out.endswith(":") else "/" + part
    return out


def shared_head(workers: list[str]) -> int:
    """The length of the directories every worker's path starts with (``collected/`` of ``collected/worker-0`` and
    ``collected/worker-1``; ``job.tar.gz:job/`` inside an archive given to ``--logs``, ``job.tgz:`` of one without a
    top folder): the workers are named from where they differ, as the bundle reader names them. 0 when one worker is
    the root given or the paths differ at once; for one worker, only the archive's label (its directories are all
    that name it: the bundle reader keeps them too, so that one answer names it once)."""
    if not workers or any(not w for w in workers):
        return 0
    split = [_segments(w) for w in workers]
    if len(split) == 1:
        labels = [i for i, part in enumerate(split[0][:-1]) if part.endswith(":")]
        return sum(map(len, split[0][:labels[-1] + 1])) if labels else 0
    n = 0
    while all(len(parts) > n + 1 for parts in split) and len({parts[n] for parts in split}) == 1:
        n += 1
    return sum(map(len, split[0][:n]))


def unarchived(name: str) -> str:
    """A worker's name with each archive label ``<archive>:`` read as the folder the archive stands for
    (``worker-1.tar.gz:worker-1`` -> ``worker-1``, an archive of one host's folder; ``node-3.tgz:var/log`` ->
    ``node-3/var/log``; ``node-3.tgz:`` -> ``node-3``): operators collect a job host by host, one archive each, and
    ``--bundle`` names such workers by their folders."""
    out: list[str] = []
    for part in name.split("/"):
        label, sep, rest = part.partition(":")
        stem = archive_stem(label)
        if not sep or stem == label:
            out.append(part)
        elif rest in ("", stem):
            out.append(stem)
        else:
            out.extend((stem, rest))
    return "/".join(out)


def _segments(worker: str) -> list[str]:
    """A worker's path cut after each ``/`` and after an archive's name and its ``:`` (``--logs`` labels an archive's
    member ``<archive>:<member>``, :func:`opsbrain.ingest.bytelines.read_members`); each piece keeps its separator."""
    out: list[str] = []
    for part in worker.split("/"):
        name, sep, rest = part.partition(":")
        if sep and rest and archive_stem(name) != name:
            out.append(name + sep)
            part = rest
        out.append(part + "/")
    return out


JOB_DIR = lazy_compile(r"[a-z]*[-_]?(?:jobs?|tasks?|collect(?:ed|ion)?|bundles?)", re.I)
"""A folder named as a job's or a collection's (``job/``, ``myjob/``, ``train-job/``, ``collected/``): it holds the
logs of a job, which may span hosts, and names none of them (a name with a digit, ``job-7``, may be a host's)."""


def below_worker(file: str, worker: str) -> str:
    """The first directory of ``file``'s path below its worker directory ``worker`` (``rank_0`` of
    ``job/rank_0/plog-1_2.log``), ``""`` when the file sits in it."""
    path = canonical(file)
    if worker and not path.startswith(worker):
        return ""
    rest = path[len(worker):].lstrip("/:").split("/")
    return rest[0] if len(rest) > 1 else ""


def names_no_host(worker: str, ranks_below: bool) -> bool:
    """Whether a worker directory is a container, not a host: its name (the last directory, without a digit) is a
    job's or a collection's (:data:`JOB_DIR`), or its logs sit in rank directories right below it (``job/rank_0/``,
    ``job/rank_1/``: a job's ranks; ``ascend-a01/rank_0/`` names its host)."""
    name = unarchived(worker).rpartition("/")[2]
    return bool(name) and not any(c.isdigit() for c in name) and (JOB_DIR.fullmatch(name) is not None or ranks_below)


def log_folder(name: str) -> bool:
    """Whether a folder's name says what it holds, not whose: a wrapper (:func:`is_wrapper`: ``var``, ``log``,
    ``npu``, a rank's or a run's folder) or a folder of a node's log tree (:data:`NODE_LOG_DIRS`, ``device-N``,
    ``dev-os-N``: ``slog``, ``/var/log/npu``). The walk skips such folders inside a tree (:func:`host_root`); a
    directory or an archive's top folder given so names no host either (:func:`archive_name`,
    :func:`opsbrain.ingest.hostnames.unnamed_root`)."""
    return (is_wrapper(name) or name.lower() in NODE_LOG_DIRS or _DEVICE_DIR.fullmatch(name) is not None
            or _DEV_OS.fullmatch(name) is not None)


def archive_name(stem: str, top: str) -> str:
    """The name an archive given whole is read under (``--bundle`` and ``--logs`` alike; session 35): its one
    top-level folder ``top`` (``""``: none), as the directory that folder is (``tar czf x.tgz ascend-a01``), a date
    and time among them (msnpureport's ``20250301100600/``, which names no host: :func:`~opsbrain.ingest.hostnames.
    dated`); the archive's ``stem`` where it has none (``tar czf node-3.tgz -C node-3 .``) or only a wrapper or a
    folder of a node's log tree (``var/``, ``log/``, ``slog/``): the folder the operator packed is named by the
    archive then, not by ``var``."""
    if not top or (EXPORT_STAMP.fullmatch(top) is None and log_folder(top)):
        return stem
    return top


def archive_top(members: list[str]) -> str:
    """The one top-level folder of an archive's ``members`` (tar's ``./`` off), ``""`` where there is none."""
    return common_top([m[2:] if m.startswith("./") else m for m in members])[:-1]


def host_like(name: str) -> bool:
    """A directory name a host may go by: with a digit (``worker-0``, ``node1``, ``ascend-a01``, an address)."""
    return any(c.isdigit() for c in name)


def short_names(full: dict[str, str]) -> dict[str, str]:
    """Worker -> its shown name cut to its last directory where that is host-like and no other worker's is the same
    (``myjob/worker-0`` -> ``worker-0``: the folders above a worker's are a job's or a collection's), unless another
    worker's name is a folder above it (``node-a/tools`` below ``node-a`` keeps its path)."""
    last = {w: n.rpartition("/")[2] for w, n in full.items()}
    count = Counter(last.values())
    shown = set(full.values())
    out = {}
    for w, n in full.items():
        heads = {"/".join(n.split("/")[:k]) for k in range(1, n.count("/") + 1)}
        out[w] = last[w] if "/" in n and host_like(last[w]) and count[last[w]] == 1 and not heads & shown else n
    return out


def natural_key(s: str) -> list[tuple[int, int | str]]:
    """Sort key that orders the numbers in a name by value (``worker-2`` before ``worker-10``)."""
    return [(0, int(x)) if x.isdigit() else (1, x) for x in re.split(r"(\d+)", s) if x]


_DEVICE_LOG_DIR = lazy_compile(r"(?:^|/)(?:hisi_logs/device-|slog/dev-os-|slog/device-(?:os-)?|"
                             r"(?:debug|run|security|ascend/log)/device-)(\d+)/")
"""Directories that hold one device's own logs: its black-box dumps and exception history
(``hisi_logs/device-<N>/``), msnpureport's export of its slog (``slog/dev-os-<N>/``), the device side's slog of its
non-Ctrl CPUs (``slog/debug/device-<N>/device-<N>_<stamp>.log``, CANN log reference logreference_0003; without the
level folder, ``slog/device-<N>/``, as HDK 23.0.RC3's export lays it out below ``dev-os-<N>``, MindCluster FaultDiag
guide "Device侧日志", mindxdlFDUG027: session 43), CANN 20.x's host copy of the Ctrl CPU's log
(``/var/log/npu/slog/device-os-<N>/device-os-<N>_<stamp>.log``, Huawei support EDOC1100164819: session 50) and a host
process's CANN device log (``{debug,run,security}/device-<N>/device-<pid>_<stamp>.log``, CANN 5.0's
``ascend/log/device-<N>/``: session 41; the AI CPU's lines of device N)."""


def device_dir(path: str | None) -> int | None:
    """The device whose own log a file is, by the last such directory of its path (:data:`_DEVICE_LOG_DIR`)."""
    if not path:
        return None
    plain = canonical(path.replace("\\", "/"))
    if m := PATH_DEVICE_LOG.search(plain):
        return int(m.group(2))
    found = _DEVICE_LOG_DIR.findall(plain)
    return int(found[-1]) if found else None
