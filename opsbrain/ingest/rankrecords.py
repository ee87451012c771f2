"""The records the multi-rank reader (:mod:`opsbrain.ingest.ranks`) builds from CANN process logs and the patterns
of the plog texts it keys on: a process's identity and errors, with the line each was read from, and the job's rank
table. The module docstring of :mod:`opsbrain.ingest.ranks` describes the texts and their sources."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from opsbrain.lazyre import lazy_compile

RANK_TABLE_FILE = lazy_compile(r"(?:^|/)(?:rank_?table[^/]*|hccl[^/]*)\.json$", re.I)
"""An HCCL rank table (``hccl.json``, ``rank_table.json``, ``ranktable_8p.json``): its server ids and device addresses
name the server of a worker whose processes print none (:meth:`RankCollector._servers`)."""
RANK_TABLE_LINES = 200_000
"""Lines of one rank table kept (a rank table of 10,000 devices pretty-printed is ~70,000 lines)."""

RE_PLOG_LINE = lazy_compile(r"^\[(\w+)\s*\]\s*(\w+)\((\d+),[^)]*\):"
                          r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3})\s?(.*)$")
RE_PLOG_FILE = lazy_compile(r"^(?!(?:.*/)?(?:dev-os-\d+|slog)/)(?:.*/)?(?:plog|(?:process_log/(?:.+/)?|"
                          r"(?:debug|run|security|ascend/log)/)device-\d+/device|device-(?P<dev>\d+)/device"
                          r"(?!-(?P=dev)_))-(?P<pid>\d+)_\d+\.log$")
"""A process's plog, or its CANN device log (``process_log/debug/device-<N>/device-<pid>_<stamp>.log``; CANN's own
``$HOME/ascend/log/debug/device-<N>/``; ``<ASCEND_PROCESS_LOG_PATH>/device-<N>/``, session 42:
:data:`opsbrain.ingest.workers.PATH_DEVICE_LOG`; group ``pid``): the pid in the name is the host process's own. The
pid printed in the lines may not be: a device log's lines come from the device's AI CPU scheduler
(``HCCL(3496,aicpu_scheduler)``). A file below ``dev-os-<N>`` or ``slog`` is none (:data:`DEVICE_OS_DIR`)."""
DEVICE_PROCESSES = frozenset({"aicpu_scheduler", "hccp_service.bin"})
"""Processes of a device's own OS whose pid and name a CANN device log's line heads print, not the host process's
(the one its file name gives): the AI CPU scheduler (``HCCL(5375,aicpu_scheduler)``, ascend-fd's
``st_aicpu_notify_testcase``, Ascend/mind-cluster @22bb3d98 component/ascend-faultdiag/test/) and the HCCP service
(``run/device-0/device-2849330_*.log:[INFO] HCCP(2988,hccp_service.bin):...``: host process 2849330, pid 2988 printed;
hicann/hccl docs/zh/user_guide/fault_diagnosis/link_timeout_EI0006.md). In pasted text such a line is the device's,
of no job process."""


def device_side(line: str) -> bool:
    """Whether a line's head prints a device-side process (:data:`DEVICE_PROCESSES`)."""
    m = RE_PLOG_LINE.match(line) if line.startswith("[") else None
    return m is not None and line[m.end(3) + 1:line.find(")", m.end(3))] in DEVICE_PROCESSES


DEVICE_OS_DIR = lazy_compile(r"(?:^|/)(?:dev-os-\d+/|slog/(?:.+/)?(?:device-\d+|device-os|event|device-app-\d+)/)")
"""A device's own log, never a host process's: msnpureport's export of a device's slog,
``slog/dev-os-<N>/device-<N>/device-<N>_<stamp>.log``, or with its level directory
``slog/dev-os-<N>/debug/device-<N>/device-<N>_<stamp>.log`` (as ascend-fd's toolkit reads it:
msnpureport_log_config.py), and the device side's slog where the driver keeps it, ``/var/log/npu/slog/{debug,run,
security}/{device-<id>,device-os,event,device-app-<pid>}/`` (CANN log reference, logreference_0003: ``debug/device-id/
device-id_*.log`` the system logs of the device's non-Ctrl CPUs, ``device-os`` its Ctrl CPU's; collected from the
device by the driver or msnpureport; the bundle layout's DEVICE_OS files, :mod:`opsbrain.bundle.layout`). Its number
is the device's, not a pid, and its HCCL lines are the AI CPU scheduler's: no rank record reads it (ascend-fd's
root-cluster parse reads the process logs only: parser_saver.py ProcessLogSaver). Session 43 (diag43b): before,
``slog/debug/device-0/device-0_<stamp>.log`` was read as process 0's log, a host process of the rank analysis
(``node-1 process 0``, a suspect root)."""
_IP = r"\d{1,3}(?:\.\d{1,3}){3}"
_N = r"(\d{1,10})(?!\d)"
"""A number a rank, device or count field holds (UINT32_MAX, :data:`NO_RANK`, has 10 digits). A longer run of
digits is junk, and ``int()`` of one over 4,300 digits raises: a bundle's lines are not cut as ``--logs`` cuts them,
and one garbled plog line ended the whole diagnosis (review41, session 41)."""
STATUS_CELL = r"(?:\s*(?=\w)|\s*(?= [^\S ]*\|))(\w(?:[\w ]*\w)?| )\s*\|"
"""The last cell of a LINK_ERROR_INFO row, as ``\\s*([\\w ]+?)\\s*\\|`` read it (its words without the spaces
around them; a blank cell's last space) but linear: that form split a run of spaces three ways, seconds on one
``| ... |`` line of 500 spaces (session 42)."""
RE_LINK_ROW = lazy_compile(r"\|\s*(" + _IP + r")\(" + _N + r"\)\s*\|\s*(?:\d+\s*\|\s*)?"
                           r"(" + _IP + r")\(" + _N + r"\)\s*\|"
                           r"\s*(?:\d+\s*\|\s*)?(\w+)\s*\|" + STATUS_CELL)
"""A row of HCCL's LINK_ERROR_INFO table: ``| dest_ip(user_rank) | src_ip(user_rank) | MyRole | Status |``, or with
the ports (``| 192.168.100.212(10) | 16666 | 192.168.100.202(2) | 2882681339 | server | time out |``, ascend-fd's
st_transport_timeout_testcase)."""
RE_TRANSPORT_REMOTE = lazy_compile(r"remoteIpAddr\[(" + _IP + r")/" + _N + r"\]")
_ADDR = r"([0-9A-Fa-f:.]{2,45}|[\w.-]{1,64})"
RE_CONNECT_DETECT = lazy_compile(r"This node \(server " + _ADDR + r", device ID " + _N + r"\) detects that srcRank "
                                 r"\(server " + _ADDR + r", device ID " + _N + r"\) fails to connect to dstRank "
                                 r"\(server " + _ADDR + r", device ID " + _N + r"\)")
"""HCCL's connect-timeout detection result (EI0006; ``[detect_connect_anomalies.cc:132] This node (server
192.168.200.100, device ID 1) detects that srcRank (server 192.168.200.100, device ID 1) fails to connect to dstRank
(server 192.168.200.100, device ID 0). Continue to analyze the fault based on the logs of srcRank and dstRank.``,
hicann/hccl@09300b70 docs/zh/user_guide/fault_diagnosis/param_link_stage.md; on a console after the error manager's
``Communication_Error_Get_Socket(EI0006): Getting socket times out. Reason:``, with IPv6 server addresses too,
vllm-ascend issue text seen by tester51f): the link the source rank waited on in vain, the destination's server
address and device. The guide's next step is the destination's own logs (no error there: its process hung or
exited), as for ``Transport init error``'s ``remoteIpAddr``."""

def connect_detect(body: str) -> tuple[str, int] | None:
    """The destination (server address, device) of :data:`RE_CONNECT_DETECT` where the node that prints it is the
    source rank (the one that waited); None otherwise (a node that reports another pair waited on nobody)."""
    if "fails to connect to dstRank" not in body or (m := RE_CONNECT_DETECT.search(body)) is None:
        return None
    node, src = (m.group(1), m.group(2)), (m.group(3), m.group(4))
    return (m.group(5), int(m.group(6))) if node == src else None


RE_CQE = lazy_compile(r"cqe err(?:or)? status\[(\d+)\]", re.I)
RE_CQE_IP = lazy_compile(r"(?:remoteIP|\bip):\[(" + _IP + r")\]")
RE_CLUSTER = lazy_compile(r"Cluster Exception Location\[IP/ID\]:\[(" + _IP + r")/" + _N + r"\]")
RE_EXC_TYPE = lazy_compile(r"ExceptionType:\[([^\]]*)\]")
RE_REMOTE_RANK = lazy_compile(r"remote rank:\s*\[(\d{1,10}|local)\]")
RE_EI0002_REMOTE = lazy_compile(r"has not received the Notify record from remote rank\s*\[(\d{1,10})\]")
"""EI0002's own message names the rank waited for (its template, CANN error-code reference: "The Notify register has
not received the Notify record from remote rank [%s]"): a notify wait with a remote where no task-exception block
gave one (the screen's and the plog's EI0002 line; ``[unknown]`` names none)."""
TASK_EXCEPTION = ("TaskExceptionHandler", "Task run failed, base information is")
"""A task exception's head: the older ``[TaskExceptionHandler]`` tag, and the text every version prints (the newer
``[TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], ...``, hicann/hccl
docs/zh/user_guide/fault_diagnosis/task_exec_stage.md)."""

RE_AICPU_NOTIFY = lazy_compile(r"base information is .*?\btype:NOTIFY WAIT,.*?\bremoteRank:" + _N)
"""The AI CPU's HCCL task exception on a notify wait (device log, ``[TaskException]base information is streamId:149,
..., type:NOTIFY WAIT, localRank:1, remoteRank:0, ...``), its communicator on the next line (:data:`RE_AICPU_OPDATA`).
remoteRank 4294967295 (UINT32_MAX) names no rank. Source: the lines of ascend-fd's st_aicpu_notify_testcase
(Ascend/mind-cluster @22bb3d98, component/ascend-faultdiag/test/), which ascend-fd reads the same way
(pkg/parse/root_cluster/rc_parse_job.py: find_remote_rank_id, find_group; result code 109, AI CPU notify wait
timeout)."""
RE_AICPU_OPDATA = lazy_compile(r"opData information is (?:tag:([^,\s]+),\s*)?.*?\bgroup:([^,\s]+)")
RE_THREAD = lazy_compile(r"^\s*\[[^\]\s]+:\d+\]\s*\[(\d+)\]")
"""The thread id a plog line's body gives after its source position (``[aicpu_communicator.cc:3083] [3896]...``): two
AI CPU exceptions on different threads interleave their base and opData lines, each thread's in order."""
NO_RANK = 4294967295
RE_GROUP = lazy_compile(r"group:\[([^\]]+)\]")
RE_TAG = lazy_compile(r"\btag\[([^\]]+)\]")
RE_INDEX = lazy_compile(r"\bindex\[(\d+)\]")
RE_P2P_REMOTE = lazy_compile(r"remote physic id:\s*\[?" + _N)
RE_TIMEOUT_ENV = lazy_compile(r"(HCCL_CONNECT_TIMEOUT|HCCL_EXEC_TIMEOUT) set by \w+ to \[(\d{1,10})\]")
RE_TLS = lazy_compile(r"TLS SWITCH \((\d)\)")
SOCKET_TEXTS = ("the connection failure", "Wait links establish completed failed", "channel connect timeout",
                "wait socket establish timeout")
"""Link set-up failures without a remote on the line (``wait socket establish timeout, role[0] rank[0] timeout[120 s]``:
the HCCL guide's EI0006 symptom, hcclug 'Connection Setup Timeout'); the link table after them names the remote."""
NORMAL_TEXTS = ("Wait timeout for sockets recv", "get rasocket timeout", "recv fail")
ROOTINFO_ROOT = ("topo exchange server get socket timeout", "GetRankBasicInfo from rank[")
ROOTINFO_AGENT = ("topo exchange agent get socket timeout", "receive from fdhandle failed",
                  "receive msg length from fdhandle failed")
RE_UNCONNECTED = lazy_compile(r"(?:connectFailedAgentIdList|Failed to connect agent)\[([\d,\s]*)\]")
"""The ranks that never reached the root during the root-info exchange (EI0015), as HCCL names them: the root's
``[TopoInfoExchangeServer][Setup]Broadcast Rank Basic Infos failed, connectFailedAgentIdList[10,17,...]``
(topoinfo_exchange_server.cc), and each connected agent's ``TopoDetect ERROR occur !!! fault_type[1],
fault_info["Failed to connect agent[1,3,5,7,]"]``, the list the root broadcast (topoinfo_exchange_base.cc
RecvClusterInfoMsg). Sources: CANN HCCL, HongminTan/ACNC2025-HCCL@b971402623acfa7d605f86d79e968e2fd5d6ae42
src/domain/collective_communication/framework/common/src/topo/; hicann/hccl docs/zh/user_guide/fault_diagnosis/
cluster_info_nego.md ("the agent can read the unconnected ranks from 'Failed to connect agent'")."""
RE_CONNECTED_LINE = lazy_compile(r"connected rankinfo\[LINE (\d{1,10})\]:\s*((?:\[\d{16}\][,;]?\s*)+)")
"""The root's list of the agents that did connect, printed when it times out (topoinfo_exchange_server.cc
DisplayConnectedRank: ``total connected num is [15],line num is [2]``, ``need connect rankNum is [16]`` when it
knows the size, then ``connected rankinfo[LINE 0]: [0000000000000000],...;``, eight 16-digit agent ids a line in
ascending order; an agent id is its rank, ranks run 0..rankSize-1: the HCCL guide computes the unconnected ranks from
this list, ascend-fd likewise: pkg/parse/root_cluster/parser.py, pkg/diag/root_cluster/utils.py)."""
RE_CONNECTED_TOTAL = lazy_compile(r"total connected num is \[(\d{1,10})\],\s*line num is \[(\d{1,10})\]")
RE_NEED_CONNECT = lazy_compile(r"need connect rankNum is \[(\d{1,10})\]")
UNCONNECTED_MAX = 128
"""Unconnected ranks kept a process (a 2048-rank job's root named 44)."""
IDENTITY_WORDS = ("HcclGetRootInfo success", " set by ", "TLS SWITCH (", "rankNum[", "totalRanks[",
                  "Entry-HcclCommInitRootInfo")
"""A literal every line :meth:`RankCollector._identity` reads holds (one of its tests needs each): a line with none
of them and no ERROR level only counts for its process's first time."""
_IDENTITY_WORDS = lazy_compile("|".join(re.escape(w) for w in IDENTITY_WORDS))
"""Any of :data:`IDENTITY_WORDS`."""


@dataclass(frozen=True, slots=True)
class LineRef:
    """Where a line was read: file (as given), 1-based line number, the text (cut)."""

    file: str | None
    line: int
    text: str


OOM_VICTIM_TAIL = r"\(.{1,64}?\)(?:, UID \d+)?,? total-vm:"
"""What follows the pid on the OOM killer's victim line, ``(comm) total-vm:`` (a RHEL kernel's ``, UID 0,`` between):
the name within 64 characters, the kernel's ``comm`` being 15 bytes at most (review46: unbounded, a lookahead read
each ``Killed process`` of a 64 K line to its end, 6.7 s). One pattern for the kernel parser's reading
(:data:`opsbrain.ingest.parsers.kernel.OOM_VICTIM`) and the rank collector's below."""
RE_OOM_KILL = lazy_compile(r"\b(?:(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process|"
                           r"Killed process(?= \d+ " + OOM_VICTIM_TAIL + r")) (\d+) \(")
"""The kernel's OOM killer ending a process (mm/oom_kill.c: ``Out of memory: Killed process %d (%s) ...``, ``Kill
process`` before Linux 4.19; ``Memory cgroup out of memory:`` when a container's limit was hit). Linux 4.x named the
victim on a line of its own, ``Killed process %d (%s) total-vm:...`` (session 46: taken where it has the kernel's
``total-vm:`` field, :data:`OOM_VICTIM_TAIL`)."""


@dataclass(frozen=True, slots=True)
class RankError:
    """One failure a process logged, with the remote it names when it names one."""

    kind: str                    # socket | transport | notify | cqe | rootinfo | cluster | ffts | normal | killed
    t: float                     # seconds since the epoch (naive, as logged)
    ref: LineRef
    remote_ip: str | None = None       # a device address (socket, cqe) or a server address (transport, cluster, notify)
    remote_device: int | None = None   # the remote's device index (transport, cluster, p2p)
    remote_rank: int | None = None     # the remote's rank in the communicator (notify, link table)
    local_rank: int | None = None      # this process's own rank in that communicator (link table: src_ip(user_rank))
    group: str | None = None           # the communicator identifier the error names
    tag: str | None = None
    index: int | None = None
    waits_on_self: bool = False        # notify with remote rank "local": the main stream waits on its own sub-stream
    detail: str | None = None          # the cause a cluster-exception line gives


@dataclass
class RankProcess:
    """One process (one device) of a collective job as its plog shows it."""

    worker: str                 # the host as the bundle names it (worker directory, or the server address)
    pid: str
    files: list[str] = field(default_factory=list)
    ranks: dict[str, tuple[int, int | None]] = field(default_factory=dict)  # identifier -> (rank, rank count)
    root_of: set[str] = field(default_factory=set)   # identifiers this process is the root rank of
    logic_id: int | None = None
    phy_id: int | None = None
    server: str | None = None
    device_ip: str | None = None
    root_host: dict[str, str] = field(default_factory=dict)  # identifier -> the root-info host address it printed
    timeouts: dict[str, int] = field(default_factory=dict)
    tls: str | None = None
    first_t: float | None = None
    last_t: float | None = None  # its last plog line's time (the job it ran in: :mod:`opsbrain.ingest.rankjobs`)
    first_error: LineRef | None = None
    first_error_t: float | None = None
    errors: list[RankError] = field(default_factory=list)
    identity: LineRef | None = None
    cited: set[tuple[str | None, int]] = field(default_factory=set)  # (file, line) of its lines in a file holding
    # several files' lines (grep -r's output), where ``files`` names where they were written
    label: str | None = None    # a peer named only by the lines of another (no line of its own): its name
    chip: int | None = None  # the runtime's physical chip id in the process's error lines (``chipId:7``)
    root: str = ""  # the directory given, ``files`` being below it (its folders may name the job: rankjobs.job_marker)

    @property
    def device(self) -> int | None:
        """The device index (physical when known, else logical), as ascend-fd prints it."""
        return self.phy_id if self.phy_id is not None else self.logic_id

    @property
    def name(self) -> str:
        """``<worker> device <N>``; with the chip the runtime names where that is another number (``device 0 (chip
        7)``: the program's device and the physical chip), or the process where no device is known; a peer no line
        of its own shows, by its label."""
        if self.label:
            return self.label
        dev = f"device {self.device}" if self.device is not None else f"process {self.pid}"
        if self.chip is not None and self.chip != self.device:
            dev += f" (chip {self.chip})"
        return f"{self.worker} {dev}" if self.worker else dev


@dataclass
class RankTable:
    """Every process seen, and what could not be read."""

    processes: list[RankProcess]
    device_ips: dict[str, dict[int, str]]  # worker -> device index -> address (npu_info)
    notes: list[str] = field(default_factory=list)
    listed: dict[str, dict[str, Any]] = field(default_factory=dict)  # address -> where a rank table lists it
    jobs: list[RankTable] = field(default_factory=list)  # where the processes are of several jobs: one table each
    # (:mod:`opsbrain.ingest.rankjobs`; earliest first); empty for one job. ``processes`` are all jobs' as before
    attempts: list[RankTable] = field(default_factory=list)  # a job run more than once (a restart on its devices):
    # one table per attempt, earliest first; ``processes`` are then those of attempt ``attempt`` (the verdict's)
    attempt: int = -1

    @property
    def every(self) -> list[RankProcess]:
        """Every process of every job and attempt (``processes`` holds one attempt's, a device's latest)."""
        if self.jobs:
            return [p for job in self.jobs for p in job.every]
        return [p for a in self.attempts for p in a.processes] or self.processes

    @property
    def job_start(self) -> float | None:
        """The time of the processes' first line (epoch seconds, naive as logged), or None without one."""
        return min((p.first_t for p in self.processes if p.first_t is not None), default=None)


def _thread_key(key: tuple[str, str], body: str) -> tuple[str, str, str | None]:
    """A process key with the thread the line names (:data:`RE_THREAD`; None when it names none)."""
    m = RE_THREAD.match(body)
    return (*key, m.group(1) if m else None)


_ADDRESS = lazy_compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def bracket_address(text: str, key: str) -> str | None:
    """An IPv4 address in ``key[...]`` (a notify wait's ``remote[10.0.0.40]``: the host its peer runs on), None when
    the field is absent or holds no address."""
    v = _bracket(text, key)
    return v if v is not None and _ADDRESS.fullmatch(v) else None


def _bracket(text: str, key: str) -> str | None:
    """The text after ``key[`` up to the next ``]`` (ascend-fd's field spelling), None when absent or empty."""
    i = text.find(key + "[")
    if i < 0:
        return None
    j = text.find("]", i + len(key) + 1)
    v = text[i + len(key) + 1: j if j >= 0 else None].strip()
    return v or None


def _int(v: str | None) -> int | None:
    if v is None or len(v) > 11 or not v.lstrip("-").isdigit():  # (int() refuses 4,300 digits: _N)
        return None
    n = int(v)
    return None if n < 0 or n >= 1 << 31 else n


def _ip(v: str | None) -> str | None:
    if not v:
        return None
    v = v.split("%", 1)[0].strip()
    parts = v.split(".")
    if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts) or v == "0.0.0.0":  # noqa: S104
        return None
    return v
