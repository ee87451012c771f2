"""Who each process of a collective job is, and what it waited for: typed records from CANN process logs (plog).

When a collective fails every rank logs errors. Telling the root from the ranks that only waited needs, per
process, its identity (communicator identifier, rank, rank count, logical/physical device, server and device
address) and its errors with the remote each one names. This module reads both from plog lines in their real
format (``[LEVEL] MODULE(pid,proc):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.cc:line][tid]text``), keyed as Huawei's
ascend-fd keys them (its root-cluster parser, read and described in our own words in the project notes): a process
is ``(worker, pid)`` with the pid taken from the file name (``plog-<pid>_<stamp>.log``; the pid printed inside the
lines is not the process's own in real bundles), and a device's address comes from ``deviceIp[...]`` or from the
worker's ``hccn_tool -i N -ip -g`` output in ``npu_info_*.txt``.

Error kinds (the texts HCCL prints; the CANN HCCL troubleshooting guide names them EI0006 / EI0002 / ...):

- ``socket``: link set-up failures: the ``LINK_ERROR_INFO`` table rows ``| dest_ip(rank) | src_ip(rank) | Role |
  Status |`` whose status is ``no connect`` / ``time out`` (the remote is the dest_ip column), "the connection
  failure between this device and target device", "Wait links establish completed failed", "wait socket establish
  timeout" (no remote on these lines), "connected p2p timeout ... remote physic id:N", "channel connect timeout";
- ``transport``: ``Transport init error`` with ``remoteIpAddr[<server ip>/<device>]``;
- ``notify``: ``TaskExceptionHandler`` ``taskType[Notify Wait]`` (EI0002) with ``remote rank:[N]`` and ``group:[...]``
  (and the remote's host where the base line gives it: ``remote[<server ip>]``),
  or EI0002's own message ``... from remote rank [N]``;
  the AI CPU's ``base information is ... type:NOTIFY WAIT, ... remoteRank:N`` in a process's CANN device log, its
  communicator on the ``opData information is ... group:...`` line after it;
- ``cqe``: RDMA completion errors ``cqe err status[12] ... ip:[IP]`` / ``cqe error status[12] ... remoteIP:[IP]``;
- ``rootinfo``: root-info exchange timeouts (``topo exchange server|agent get socket timeout``);
- ``cluster``: HCCL's exception-spreading line ``Cluster Exception Location[IP/ID]:[ip/dev]``;
- ``ffts`` (``FFTS+ run failed``) and ``normal`` (``recv fail``, ``get rasocket timeout``, "Wait timeout for sockets
  recv"): a failure without a remote.

Not read (said, not silent): resumable-training resets (``attr init success`` more than once), A5 (EID) addressing,
the device's own slog exported by msnpureport (:data:`DEVICE_OS_DIR`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import chain, islice

from opsbrain.ingest.hostnames import SCAN_LINES, SYSLOG_HOST, host_syslog
from opsbrain.ingest.rankconsole import RE_STAMP, ConsoleReading, stamp_epoch
from opsbrain.ingest.rankerrors import ConnectedList
from opsbrain.ingest.rankfeed import RankFeeding, second_base
from opsbrain.ingest.rankhosts import fill_servers, rank_table_listing, shown_names
from opsbrain.ingest.rankjobs import part_runs, read_attempt
from opsbrain.ingest.rankrecords import (  # noqa: F401 (re-exported: the records and patterns kept their old home)
    _IDENTITY_WORDS,
    _IP,
    DEVICE_OS_DIR,
    DEVICE_PROCESSES,
    NO_RANK,
    NORMAL_TEXTS,
    RANK_TABLE_FILE,
    RANK_TABLE_LINES,
    RE_AICPU_NOTIFY,
    RE_AICPU_OPDATA,
    RE_CLUSTER,
    RE_CQE,
    RE_CQE_IP,
    RE_EI0002_REMOTE,
    RE_EXC_TYPE,
    RE_GROUP,
    RE_INDEX,
    RE_LINK_ROW,
    RE_OOM_KILL,
    RE_P2P_REMOTE,
    RE_PLOG_FILE,
    RE_PLOG_LINE,
    RE_REMOTE_RANK,
    RE_TAG,
    RE_THREAD,
    RE_TIMEOUT_ENV,
    RE_TLS,
    RE_TRANSPORT_REMOTE,
    ROOTINFO_AGENT,
    ROOTINFO_ROOT,
    SOCKET_TEXTS,
    TASK_EXCEPTION,
    LineRef,
    RankError,
    RankProcess,
    RankTable,
    _bracket,
    _int,
    _ip,
    _thread_key,
    bracket_address,
    device_side,
)
from opsbrain.ingest.streams import log_name
from opsbrain.ingest.where import MAX_DEVICE
from opsbrain.ingest.workers import (
    RANK_DIR,
    below_worker,
    env_folds,
    env_worker,
    host_root,
    natural_key,
)
from opsbrain.lazyre import lazy_compile

RE_PID = lazy_compile(r"\[PID:\s*(\d+)\]|\(PID:\s*(\d+),")
"""The pid a runtime or error-manager line prints (``EZ9999: [PID: 4242] ...``, torch_npu's ``(PID:4242, Device:0``)."""


def line_pid(line: str) -> str | None:
    """The job process's pid a line's head prints (a plog's ``[ERROR] HCCL(4101,python3):...``, :data:`RE_PID`'s),
    else None; None too for a line of a device-side process (:data:`DEVICE_PROCESSES`: a pasted device log's
    ``HCCL(3496,aicpu_scheduler)`` is the device's AI CPU scheduler, not a process of the job; review43b). The
    collector keys a pasted text's HCCL lines by the pid they print, the device's too (a file named
    ``plog-<pid>_*.log`` or ``device-<pid>_*.log`` is keyed by its name)."""
    if line.startswith("[") and (m := RE_PLOG_LINE.match(line)):
        return None if device_side(line) else m.group(3)
    return m.group(1) or m.group(2) if "PID" in line and (m := RE_PID.search(line)) else None


RE_CHIP_ID = lazy_compile(r"\bchipId\**\s*[:=]\s*(\d{1,10})(?!\d)")
"""The runtime's physical chip id in its error message (``The error from device(chipId:7, dieId:0)``)."""


class RankCollector(RankFeeding, ConsoleReading):
    """Fed line by line (any order of files); keeps per-process identity and errors.

    ``worker`` names the host of a file; by default the directory :func:`host_root` finds (named after its single
    ``environment_check/<name>/`` when it has one; where it has several, each is a worker of its own, so named;
    ``root_name`` for the root given). A file not named
    ``plog-<pid>_*.log`` (pasted text, stdin) gives only its HCCL lines, placed by the pid they print."""

    def __init__(self, root_name: str = "") -> None:
        self.root_name = root_name
        self.root_archive = ""  # the label of the one archive given (``npu-report.tgz:``): its files are the root's
        self.root_path = ""  # the directory given, as a path (its folders may name the job: rankjobs.job_marker)
        self._alias: dict[str, set[str]] = {}
        self.procs: dict[tuple[str, str], RankProcess] = {}
        self.device_ips: dict[str, dict[int, str]] = {}
        self._seen: set[int] = set()
        self._ip_dev: dict[str, int | None] = {}
        self._pending_notify: dict[tuple[str, str], dict[str, object]] = {}
        self._pending_aicpu: dict[tuple[str, str, str | None], tuple[float, LineRef, int]] = {}
        self._pending_connect: dict[tuple[str, str], ConnectedList] = {}
        self._unconnected_named: dict[tuple[str, str], set[int]] = {}
        self._ungrouped: dict[tuple[str, str], list[int]] = {}
        self._resets: dict[tuple[str, str], int] = {}
        self._files: dict[str, tuple[str, bool, re.Match[str] | None, bool, bool, bool]] = {}
        self.syslog_hosts: dict[str, Counter[str]] = {}  # worker directory -> the hosts its syslog's heads name
        self._syslog_read: Counter[str] = Counter()
        self._seconds: dict[tuple[str, ...], float] = {}  # a time stamp's second -> epoch seconds (local time)
        self.other_workers: set[str] = set()  # worker directories of other files, named as the processes' are
        self.rank_dirs: set[str] = set()  # worker directories with a rank's directory right below (job/rank_0/)
        self.killed: list[tuple[str, str, LineRef]] = []  # (worker, pid, the kernel's line) of RE_OOM_KILL
        self._rank_tables: dict[str, list[str]] = {}  # rank table file -> its lines (read in :meth:`_servers`)
        self._chips: dict[tuple[str, str], int] = {}  # (worker, pid) -> the runtime's chip id of its error lines
        self._block_pid: dict[str, str] = {}  # file -> the pid of the line its indented lines continue
        self._block_t: dict[str, float] = {}  # file -> the time that line states (the error manager's head)

    # ---- feeding ---------------------------------------------------------------------------------------------
    def feed(self, line: str, file: str | None, line_no: int, worker: str | None = None,
             origin: str | None = None) -> None:
        """One line of ``file``; ``origin``: the file it was first written to, where ``file`` holds lines of several
        (``grep -r``'s output): its name places the line (worker, pid), ``file`` is where it is cited."""
        self._feed((line,), file, line_no, worker, False, origin)

    def feed_lines(self, lines: Iterable[str], file: str | None, worker: str | None = None,
                   numbers: Iterable[int] | None = None) -> None:
        """``numbers``: the lines' numbers in the file, where they are not 1, 2, ... (a bundle's folded repeats)."""
        self._feed(lines, file, 1, worker, True, numbers=numbers)

    def _feed(self, lines: Iterable[str], file: str | None, line_no: int, worker: str | None, strip: bool,
              origin: str | None = None, numbers: Iterable[int] | None = None) -> None:
        """The lines of one file from ``line_no`` on (``strip``: their line ends taken off first); what the file's
        name (or ``origin``'s) says is read once, and the per-line work is one regex match of the plog lines."""
        name = origin or file or ""
        info = self._files.get(name)
        if info is None:  # what the file's name says, once per file (a plog has thousands of lines), compressed
            plain = log_name(name)  # or not (``plog-903_2025....log.gz`` is the same process's plog)
            info = self._files[name] = (self.worker_of(name), bool(self.NPU_INFO_FILE.search(plain)),
                                        RE_PLOG_FILE.search(plain), bool(DEVICE_OS_DIR.search(plain)),
                                        host_syslog(name), bool(RANK_TABLE_FILE.search(plain)))
            self.note_file(name, info[0])
        if info[3]:
            return  # the device's own slog: its HCCL lines are the AI CPU scheduler's, no host process's
        if info[5]:  # a rank table
            held = self._rank_tables.setdefault(name, [])
            held.extend(ln.rstrip("\r\n") if strip else ln for ln in lines)
            del held[RANK_TABLE_LINES:]
            return
        if info[4] and (left := SCAN_LINES - self._syslog_read[name]) > 0:
            lines = self._syslog(lines, left, info[0], name)
        if worker is None:
            worker = info[0]
        if info[1]:
            for ln in lines:
                self._npu_info(ln.rstrip("\r\n") if strip else ln, worker, name)
            return
        fm = info[2]
        if origin is None:  # (session 43) a process's plog: the loop with the file's constants hoisted; another
            if fm is not None:  # file: a block without any word the loop reads is skipped whole (rankfeed)
                self._feed_plog(lines, file, name, worker, fm.group("pid"), strip, line_no, numbers)
            else:
                self._feed_gated(lines, file, name, worker, strip, line_no, numbers)
            return
        self._feed_each(lines, file, name, worker, fm, strip, origin, line_no, numbers)

    def _feed_each(self, lines: Iterable[str], file: str | None, name: str, worker: str, fm: re.Match[str] | None,
                   strip: bool, origin: str | None, line_no: int, numbers: Iterable[int] | None) -> None:
        """:meth:`_feed`'s loop, a line at a time (``fm``: what the file's name says of its process, if anything)."""
        match, seconds, procs = RE_PLOG_LINE.match, self._seconds, self.procs
        identity_words = _IDENTITY_WORDS.search
        w = worker
        for n, raw in zip(numbers, lines, strict=True) if numbers is not None else enumerate(lines, line_no):
            line = raw.rstrip("\r\n") if strip else raw
            if fm is None and "dstRank" in line and self._console_detect(line, w, name, file, n, origin):
                continue
            if fm is None and ("PID" in line or "chipId" in line or name in self._block_pid):
                self._chip_line(line, w or "", name)
            if fm is None and line[:8] in ("[ERROR] ", "EI0002: ") and self._console(line, w, name, file, n, origin):
                continue
            if fm is None and "ill" in line and "process " in line and (k := RE_OOM_KILL.search(line)):
                self.killed.append((w or "", k.group(1), LineRef(file, n, line[:400])))
                continue
            if not line.startswith("[") or "(" not in line[:40]:
                continue
            m = match(line)
            if m is None:
                continue
            g = m.groups()
            level, module, line_pid = g[0].upper(), g[1], g[2]
            if fm is None and module != "HCCL":
                continue
            pid = fm.group("pid") if fm else line_pid
            second = g[3:9]
            base = seconds.get(second)
            if base is None and (base := second_base(seconds, second)) is None:
                continue
            t = base + int(g[9]) / 1e3 + int(g[10]) / 1e6
            body = g[11]
            key = (w, pid)
            proc = procs.get(key)
            if proc is None:
                proc = procs[key] = RankProcess(w, pid)
            if name and name not in proc.files:
                proc.files.append(name)
            if origin:
                proc.cited.add((file, n))
            proc.first_t = t if proc.first_t is None else min(proc.first_t, t)
            proc.last_t = t if proc.last_t is None else max(proc.last_t, t)
            if level != "ERROR" and not identity_words(body):
                continue  # neither an error nor a line _identity reads (most INFO lines of a plog): nothing more
            self._read_further(proc, key, line, level, module, body, t, LineRef(file, n, line[:400]))

    def _chip_line(self, line: str, w: str, name: str) -> None:
        """The physical chip id the runtime's error message gives (``device(chipId:7, dieId:0)``) for the process
        whose pid that line prints (``[PID: 4242]``, ``(PID:4242, ...``) or the line its indented block continues
        (the error manager's ``TraceBack`` lines under ``[PID: 920] ...``); a line that is not indented ends a
        block. Kept apart from the device the program names (torch_npu's ``Device:0``, a logical index under
        ASCEND_RT_VISIBLE_DEVICES), so that the answer can say which is which."""
        pid = m.group(1) or m.group(2) if "PID" in line and (m := RE_PID.search(line)) else None
        if line[:1] not in (" ", "\t"):
            if pid:
                self._block_pid[name] = pid
                if (st := RE_STAMP.search(line)) is not None and (bt := stamp_epoch(st)) is not None:
                    self._block_t[name] = bt
                else:
                    self._block_t.pop(name, None)
            else:
                self._block_pid.pop(name, None)
        if "chipId" in line and (c := RE_CHIP_ID.search(line)) and int(c.group(1)) <= MAX_DEVICE and (
                pid := pid or self._block_pid.get(name)):
            self._chips.setdefault((w, pid), int(c.group(1)))

    # ---- identity ---------------------------------------------------------------------------------------------
    def _identity(self, p: RankProcess, body: str, ref: LineRef) -> None:
        if "HcclGetRootInfo success" in body and (ident := _bracket(body, "identifier")):
            p.root_of.add(ident)
            return
        if m := RE_TIMEOUT_ENV.search(body):
            p.timeouts.setdefault(m.group(1), int(m.group(2)))
            return
        if m := RE_TLS.search(body):
            p.tls = p.tls or m.group(1)
        common = ("rankNum[" in body and "rank[" in body) or ("totalRanks[" in body and "serverId[" in body)
        entry = "Entry-HcclCommInitRootInfo" in body
        if not (common or entry):
            return
        ident = _bracket(body, "identifier")
        if common and ident is None and "HcclCommInitRootInfo" in body:
            ident = None  # ascend-fd: such a line has no communicator to place the rank in
        elif ident is None:
            ident = "identifier-NA"
        rank = _int(_bracket(body, "rank"))
        total = _int(_bracket(body, "rankNum") or _bracket(body, "ranks") or _bracket(body, "totalRanks"))
        if ident is not None and rank is not None and ident not in p.ranks:
            p.ranks[ident] = (rank, total)
        logic = _int(_bracket(body, "device") or _bracket(body, "logicDevId") or _bracket(body, "deviceLogicId"))
        phy = _int(_bracket(body, "phydevId") or _bracket(body, "devPhyId"))
        p.logic_id = p.logic_id if p.logic_id is not None else logic
        p.phy_id = p.phy_id if p.phy_id is not None else phy
        p.device_ip = p.device_ip or _ip(_bracket(body, "deviceIp"))
        p.server = p.server or _ip(_bracket(body, "server")) or _ip(_bracket(body, "serverId"))
        if entry and ident is not None and (root := _ip(_bracket(body, "host ip"))):
            # ``rootinfo: host ip[...]`` is the root rank's host (hicann/hccl fault_diagnosis/debug_thinking.md:
            # "rootinfo: the root node's information"; cluster_info_nego.md: the root, usually rank 0, makes it from
            # its host NIC's address and every rank is given it): the same on every rank, never this process's own
            # server (:meth:`RankCollector._servers`)
            p.root_host.setdefault(ident, root)
        p.identity = p.identity or ref

    # ---- npu_info -----------------------------------------------------------------------------------------------
    NPU_INFO_FILE = lazy_compile(r"(?:^|/)npu_info_[^/]*\.txt$")
    HCCN_IP_CMD = lazy_compile(r"hccn_tool\s+-i\s+(\d{1,10})\s+-ip\s+-g")
    IPADDR = lazy_compile(r"^\s*ipaddr\s*:\s*(\d{1,3}(?:\.\d{1,3}){3})")
    """``hccn_tool -i N -ip -g`` prints ``ipaddr:<device address>`` on a following line."""

    def _npu_info(self, line: str, worker: str, file: str) -> None:
        if m := self.HCCN_IP_CMD.search(line):
            self._ip_dev[file] = int(m.group(1))
            return
        dev = self._ip_dev.get(file)
        if dev is not None and (m := self.IPADDR.match(line)):
            self.device_ips.setdefault(worker, {}).setdefault(dev, m.group(1))
            self._ip_dev[file] = None

    # ---- server addresses -------------------------------------------------------------------------------------
    def _servers(self) -> None:
        """Each worker's processes' server address where the input shows it (:func:`.rankhosts.fill_servers`)."""
        fill_servers(list(self.procs.values()), self.device_ips, self._rank_tables.values(), self.rank_dirs)

    # ---- result -------------------------------------------------------------------------------------------------
    def note_file(self, file: str, worker: str) -> None:
        """A file of ``worker``'s: whether a rank's directory holds it right below the worker (:attr:`rank_dirs`)."""
        if RANK_DIR.fullmatch(below_worker(file, worker)):
            self.rank_dirs.add(worker)

    def _syslog(self, lines: Iterable[str], left: int, worker: str, name: str) -> Iterable[str]:
        """The host a syslog file's first lines' heads name, counted for its worker (:attr:`syslog_hosts`, which
        :func:`~opsbrain.ingest.hostnames.real_names` names the worker by); the same lines, to be read on."""
        it = iter(lines)
        head = list(islice(it, left))
        self._syslog_read[name] += len(head)
        count = self.syslog_hosts.setdefault(worker, Counter())
        for ln in head:
            if m := SYSLOG_HOST.match(ln):
                count[m.group(1)] += 1
        return chain(head, it)

    def files_read(self) -> list[str]:
        """The names of the files whose lines were fed (their first-written files', for lines that say so)."""
        return list(self._files)

    def worker_of(self, file: str) -> str:
        """The worker directory of ``file`` (:func:`host_root`); an ``environment_check/<name>/`` folder's own
        (:func:`env_worker`), folded back into its directory by :meth:`shown` where that holds no other."""
        worker, sub = host_root(file)
        if worker and worker == self.root_archive:
            worker = ""  # the archive given stands for the directory given (as the bundle reads it; session 35)
        if sub is not None:
            self._alias.setdefault(worker, set()).add(sub)
        return env_worker(worker, sub)

    def _folded_ips(self) -> dict[str, dict[int, str]]:
        """:attr:`device_ips` with each ``environment_check/<name>/`` folder's in its directory where that holds no
        other (:func:`env_folds`)."""
        fold = env_folds(self._alias)
        out: dict[str, dict[int, str]] = {}
        for w, ips in self.device_ips.items():
            into = out.setdefault(fold.get(w, w), {})
            for dev, ip in ips.items():
                into.setdefault(dev, ip)
        return out

    def server_of(self, file: str) -> str | None:
        """The server address the process whose plog ``file`` is prints in its init line, if it does."""
        info = self._files.get(file)
        p = self.procs.get((info[0], info[2].group("pid"))) if info is not None and info[2] is not None else None
        return p.server if p is not None else None

    def shown(self) -> Callable[[str], str]:
        """Worker directory -> the name the table gives it (:func:`.rankhosts.shown_names`)."""
        return shown_names(self._alias, list(self.procs.values()), set(self.device_ips), self.other_workers,
                           self.rank_dirs, self.syslog_hosts, self.root_name)

    def _mark_killed(self) -> None:
        """A process the kernel's OOM killer ended (:data:`RE_OOM_KILL`, its pid the plog's) logs a ``killed`` error
        on that line: the line is cited as the process's own. Its worker's process with that pid, else the one
        process of the job with it (a host's messages file beside a job's logs of another name)."""
        for w, pid, ref in self.killed:
            cand = [p for p in self.procs.values() if p.pid == pid]
            here = [p for p in cand if p.worker == w]
            p = here[0] if len(here) == 1 else (cand[0] if len(cand) == 1 else None)
            if p is None or any(e.kind == "killed" for e in p.errors):
                continue
            t = p.first_t if p.first_t is not None else 0.0  # (the kernel's line gives no time here)
            p.errors.append(RankError("killed", t, ref))
            p.cited.add((ref.file, ref.line))
            if p.first_error is None:
                p.first_error, p.first_error_t = ref, t

    def table(self) -> RankTable:
        """The processes with an identity or an error; device addresses filled from npu_info; when two processes
        claim one device of a worker, the one whose log starts later (the job that ran last) is kept. Where the
        processes are of several jobs (:func:`opsbrain.ingest.rankjobs.part_runs`), ``jobs`` holds one table each,
        every process of each job kept (session 33); where a job ran more than once (a restart), its table holds the
        attempt the verdict is about and ``attempts`` one table each (session 34)."""
        self.device_ips = self._folded_ips()
        self._servers()
        shown = self.shown()
        self._mark_killed()
        seen = []
        for p in self.procs.values():
            if not p.ranks and not p.errors and p.first_error is None:
                continue
            p.chip = self._chips.get((p.worker, p.pid))
            p.root = self.root_path
            if p.device_ip is None and p.device is not None:
                p.device_ip = self.device_ips.get(p.worker, {}).get(p.device)
            p.worker = shown(p.worker) or p.server or ""  # pasted text names no worker: the server address does
            seen.append(p)
        _split_servers(seen)
        ips = {shown(w): ips for w, ips in self.device_ips.items()}
        listed = rank_table_listing(self._rank_tables)
        jobs = part_runs(seen)
        table = _one_table(seen, ips) if len(jobs) > 1 else _job_table(jobs[0], ips)
        table.listed = listed
        if len(jobs) > 1:
            table.jobs = [_job_table(job, ips) for job in jobs]
            for job in table.jobs:
                job.listed = listed
        return table


def _split_servers(seen: list[RankProcess]) -> None:
    """A folder whose processes printed two server addresses for one device holds several hosts' processes (a
    multi-host job's ``process_log/rank_N/`` gathered in one folder): each of its processes that printed its server is
    named by it (session 60, probe60b: the folder's processes were kept one a device, half the job dropped, and the
    root named an absent rank). A restart on one host prints its one address again, or a new one after the first
    process ended (a rescheduled pod): no split (:func:`_together`)."""
    slots: dict[tuple[str, int], list[RankProcess]] = {}
    for p in seen:
        if p.server and p.device is not None:
            slots.setdefault((p.worker, p.device), []).append(p)
    mixed = {worker for (worker, _device), procs in slots.items() if any(
        a.server != b.server and _together(a, b) for a in procs for b in procs)}
    for p in seen:
        if p.worker in mixed and p.server:
            p.worker = p.server


def _together(a: RankProcess, b: RankProcess) -> bool:
    """Whether two processes ran at once (their logs' spans overlap; not known: yes): two on one device at once are
    two hosts'; one after the other, a restart (a pod rescheduled with a new address: review60)."""
    if None in (a.first_t, a.last_t, b.first_t, b.last_t):
        return True
    return max(a.first_t or 0, b.first_t or 0) <= min(a.last_t or 0, b.last_t or 0)


def _job_table(attempts: list[list[RankProcess]], ips: dict[str, dict[int, str]]) -> RankTable:
    """One job's table: the attempt the verdict is about (:func:`.rankjobs.read_attempt`), and with several attempts
    one table each."""
    if len(attempts) == 1:
        return _one_table(attempts[0], ips)
    k = read_attempt(attempts)
    table = _one_table(attempts[k], ips)
    table.attempts, table.attempt = [_one_table(a, ips) for a in attempts], k
    return table


def _one_table(seen: list[RankProcess], ips: dict[str, dict[int, str]]) -> RankTable:
    """The table of ``seen``: one process per device of a worker, the later where two ran on it (said in a note)."""
    notes: list[str] = []
    kept: dict[tuple[str, int | None, str], RankProcess] = {}
    for p in seen:
        slot = (p.worker, p.device, "" if p.device is not None else p.pid)
        old = kept.get(slot)
        if old is not None:
            later = p if (p.first_t or 0) >= (old.first_t or 0) else old
            notes.append(f"{p.worker} device {p.device}: processes {old.pid} and {p.pid} both ran on it; "
                         f"the later one ({later.pid}) is read")
            kept[slot] = later
        else:
            kept[slot] = p
    procs = sorted(kept.values(), key=lambda p: (natural_key(p.worker), p.device if p.device is not None else -1,
                                                 p.pid))
    return RankTable(procs, ips, notes)
