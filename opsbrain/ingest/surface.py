"""What a collection or a paste adds around a program's own log line, taken off before any parser reads it.

- ANSI colour / cursor codes (a terminal capture, ``kubectl logs`` of a coloured program): ``\\x1b[31mERROR\\x1b[0m``;
- the CRI container log format (containerd / CRI-O files under /var/log/pods, Kubernetes' CRI logging spec):
  ``2024-05-01T10:11:12.123456789Z stdout F <line>``;
- ``kubectl logs --prefix``: ``[pod/<pod>/<container>] <line>``;
- a collector's own head before a line whose format starts at column 0 (plog ``[ERROR] HCCL(...)``, a table row
  ``| 0 | ...``, an indented continuation): a time stamp (ISO, bracketed plog, syslog without host field) and/or a
  fan-out tool's ``host: `` (pdsh, ``ansible -m shell``; the host has a digit and a dot or dash);
- vLLM's logger head (``ERROR 08-13 15:31:21 [multiproc_executor.py:945] ``), whose level stays the line's unless
  the line states its own (:func:`logged_level`). Lines whose head a parser reads itself (syslog with its host and
  program before the kernel's own text, ``2024-05-01 10:11:12 ERROR ...``) keep it;
- what a paste adds (:mod:`opsbrain.kb.perturb` names where each was seen): a UTF-8 byte-order mark, Markdown quote
  markers (``> ``, ``> > ``), a process's prefix (vLLM / Ray ``(Worker_DP0_TP7 pid=2112) ``, PyTorch's
  ``[rank3]: ``), ``docker compose logs``' ``name-1  | `` column, a syslog or journal head (``Dec  2 10:00:00 host
  prog[pid]: ``) or an indent before a layout read at a line's start (:data:`_BODY`: a bracketed level, a table
  row, a torch / klog / vLLM head, a process or rank prefix), Ray's ``[repeated 6x across cluster]`` suffix, and
  full-width colons (``：``, read as ``: ``);
- ``grep``'s file name before a line it found in several files (``grep -r``, ``grep -H``; with ``-n`` its line
  number: ``worker-0/process_log/run/plog/plog-903_2025.log:12:[ERROR] HCCL ...``), where the name is a log file's
  (:data:`_GREP_FILE`); :func:`grep_file` gives it back from the prefix, so the multi-rank analysis reads the line as
  that file's (its worker directory, the pid its plog name carries).

Each test is one character or prefix comparison on a line without them, so the hot path costs next to nothing. The
prefix taken off is returned: its time stamp stands in for a line that has none of its own. :func:`may_carry` tells
of a whole file at once whether any of its lines can carry one (a bundle's files mostly carry none: one scan each,
instead of a call a line)."""

from __future__ import annotations

import re
from typing import Any

from opsbrain.ingest.records import labelled_line, record_line
from opsbrain.lazyre import lazy_compile

_ANSI = lazy_compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CRI = lazy_compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) (?:stdout|stderr) [FP] ?")
_RFC3339_HEAD = lazy_compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}(?:Z|[+-]\d\d:\d\d) (?=\S)"
                             r"(?![A-Za-z0-9][\w.-]{0,62} kernel: )")
"""``kubectl logs --timestamps``' head (Go's RFC3339Nano: ``2024-05-01T10:11:12.000000137Z ``) before any text: a stamp
with a ``T``, a fraction and a zone, then one space, is the collection's (a program's own stamp is written with a
space, ``2024-05-01 10:11:12,345``, or is followed by a bracketed level, which :data:`_HEAD` takes off). Not the
stamp of rsyslog's RFC 3339 file format before the kernel's line, whose head stays as a syslog head's does
(``2025-01-01T10:00:00.123456+08:00 gz-c12 kernel: [ 1.2] EDAC ...``: its host is read from it)."""
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
ISO_STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)"
"""An RFC 3339 stamp as a journal (``journalctl -o short-iso``) or rsyslog's RFC 3339 file format writes it before its
host: the one spelling :data:`_PROG_HEAD`, :mod:`opsbrain.ingest.wrappers` and :mod:`opsbrain.ingest.where` read."""
NOT_A_LEVEL = r"(?!(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|TRACE)\s)"
"""Before a journal head's host: a level word there is an application's own head (``<stamp> ERROR trainer: ``)."""
_VLLM = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.-]+:\d+\]"
"""vLLM's logger head (``%(levelname)s %(asctime)s [%(filename)s:%(lineno)d]``, date ``%m-%d %H:%M:%S``; older
releases without the opening bracket)."""
_HEAD_STAMP = (r"\[\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d(?:\.\d{1,6})*\]"
               r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?"
               r"|" + _MONTH + r" [ \d]\d \d\d:\d\d:\d\d")
_HEAD_HOST = r"[A-Za-z0-9][\w.-]{0,62}: "
_HOST_LOOK = r"(?=[\w.-]{0,62}[.-][\w.-]{0,62}\d|[\w.-]{0,62}\d[\w.-]{0,62}[.-])"
"""The host of :data:`_HEAD_HOST` has a digit and a dot or dash. Its runs are bounded by the host's own 63 characters
(a longer run is no host: what they find beyond it changes no match); unbounded, a long run without the digit or the
dot cost quadratic time (review47: 0.10 s a 4,096-character line, 30 s at 64 KB)."""
_NOT_MODULE = r"(?![\w.-]{0,62}_[\w-]{0,62}\.|[\w.-]{0,62}\.[A-Z][a-z0-9]{1,62}[A-Z]\w{0,62}: )"
"""A Python exception's dotted name before its message is no host: an underscore in a label before a dot (no DNS
name has one: RFC 1123), ``onnxruntime.capi.onnxruntime_pybind11_state.Fail: ``, or a CamelCase last label,
``urllib3.exceptions.MaxRetryError: `` (session 47, tester47b: onnxruntime's error line named the first as the
root host). Bounded as :data:`_HOST_LOOK` is (review47: unbounded, 0.10 s a line of ``a1-`` and 4,000 ``_``)."""
_HEAD = lazy_compile(r"(?:(?:" + _HEAD_STAMP + r") )?"
                   "(?:" + _HOST_LOOK + _NOT_MODULE + _HEAD_HOST + r")?(?=[\[|\s])")
"""The host of ``host: `` has a digit and a dot or dash (``worker-3``, ``10.0.0.5``, ``gpu12.dc1``): a code such as
``EI0002: `` or a bare ``node1: `` is not taken for one."""
_KUBECTL = lazy_compile(r"\[pod/[^\]\s/]+/[^\]\s]+\] ?")
_BODY = (r"\[(?i:ERROR|ERR|WARNING|WARN|INFO|DEBUG|EVENT|TRACE|NOTICE|CRITICAL|FATAL)\s*\]|\||\[[WEIF][\d ]|"
         r"\[rank\d|\([\w.-]* ?(?:rank=\d+ )?pid=\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d |[EWIF]\d{4} \d\d:")
"""Layouts read at a line's start (a bracketed level of plog and most Ascend tools, a table row, torch's
``[W723 10:35:57...]`` and klog's ``E0818 16:33:56`` heads, a process or rank prefix, vLLM's head): an indent or
a syslog / journal head before one of them is the paste's or the collection's, not the line's."""
_PROG_HEAD = ("(?:(?:" + _MONTH + "|(?:1[0-2]|[1-9])\u6708)" + r" [ \d]\d \d\d:\d\d:\d\d"
              + "|" + ISO_STAMP + r")"
              + r" [A-Za-z0-9][\w.-]{0,62} [\w.\-/]+(?:\[\d+\])?: ")
_REPORT = r" +(?:EMERGENCY_WARN|GENERAL_WARN|FAIL|PASS|SKIP)\s*$| *\*\*\* "
"""An indented verdict or a ``*** `` detail of an ascend-dmi report (:mod:`opsbrain.ingest.parsers.dmi`), whose
indent is part of its layout: behind a syslog / journal head the head goes, the indent stays."""
_SYSLOG_PROG = lazy_compile(_PROG_HEAD + "(?=" + _BODY + "|" + _REPORT + ")")
"""rsyslog's and journalctl's head (``Dec  2 10:00:00 host kernel: ``, ``Mar 19 14:31:09 dell-63 kubelet[1067]: ``;
under a Chinese locale ``8月 18 16:33:56 kylin10-6018 kubelet[176281]: ``; ``journalctl -o short-iso``'s
``2025-01-01T10:00:00+0800 host-7 python[1234]: ``) before a layout of :data:`_BODY` (the host
of an English head stays the line's: :func:`opsbrain.ingest.where.head_host`); before the kernel's own text
(``[ 12.3] EDAC ...``, ``[ascend] ...``) it stays, and :func:`opsbrain.ingest.where.host_in` reads its host."""
_INDENT = lazy_compile(r"[ \t]+(?=" + _BODY + ")")
_QUOTE = lazy_compile(r"(?:> )+|>$")
"""Markdown quote markers (``> ``, ``> > ``; a quoted empty line is ``>``); Python's ``>>> `` prompt is no quote."""
PROC_PREFIX = r"\((?:[\w.-]+ )?(?:rank=\d{1,6} )?pid=\d+(?:, ip=[\d.]+)?\) ?"
_PROC = lazy_compile(PROC_PREFIX)
"""A worker process's prefix: vLLM's ``(Worker_DP0_TP7 pid=2112) ``, ``(EngineCore_DP0 pid=1102) ``, its V1
multiprocess executor's ``(VllmWorker rank=1 pid=97934) `` (session 60, probe59a), Ray's ``(RayWorkerWrapper pid=45464,
ip=10.0.0.2) ``."""
_RANK = lazy_compile(r"\[rank\d+\]: ?")
"""PyTorch's per-rank prefix of a worker's output (``[rank1]: RuntimeError: ...``, ``[rank7]:[W723 ...]``)."""
_LAUNCHER = lazy_compile(r"\[default\d{1,6}\]: ?|\[\d{1,9},\d{1,9}\]<std(?:out|err)>: ?")
"""A launcher's tag: ``torchrun --tee``'s ``[default3]:`` (``[{role}{local_rank}]:``) and ``mpirun --tag-output``'s
``[1,3]<stderr>:`` (job, rank, stream); session 59, probe59a: left on, a wait read config_error at its waiter."""
_COMPOSE = lazy_compile(r"[A-Za-z0-9][\w.-]*[-_]\d+ +\| ")
"""``docker compose logs``' column: the container's name (``project-service-1``, v1 ``project_service_1``: it ends
in its replica number), padded, then ``| ``."""
_VLLM_HEAD = lazy_compile(_VLLM + " ?")
_LOGGED = lazy_compile(r"(DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:")
_RAY_REPEAT = lazy_compile(r" \[repeated \d+x across cluster\]$")
"""Ray's log deduplication: a line other workers logged too ends ``[repeated 6x across cluster]``."""
_PROGRESS = lazy_compile(r"^[^\n%]{0,80}?\b\d{1,3}%(?:\|[^|\n]{0,160}\|)?\s*\d+/\d+\s*"
                       r"\[[^\]\n]{0,60}(?:it/s|s/it|B/s|\?it/s)\]\s*")
"""A tqdm progress bar (``Train:   0%|          | 0/465 [00:00<?, ?it/s]``, ``Loading ... 100% 4/4 [00:03<00:00,
1.10it/s]``): tqdm redraws it with a carriage return, so a log file or a copied terminal holds the next line's text
right after the bar (``...?it/s][W AclInterface.cpp:181] Warning: ...``, ms-swift#1243). The bar is taken off as a
head when a line follows it."""
_FULL_COLON = lazy_compile("\uff1a ?")
_GREP_FILE = lazy_compile(r"(?:\.(?:log|txt|out|err)(?:\.\d+)?(?:\.(?:gz|bz2|xz))?"
                        r"|(?:^|/)(?:messages|syslog|dmesg|kern\.log)(?:[.-]\d+)?)$")
"""The end of a log file's name (``.log``, ``.txt``, ``.out``, ``.err``, rotated ``.1``, compressed; syslog's
``messages`` / ``syslog`` / ``kern.log``, ``dmesg``): before a colon at a line's start, ``grep``'s file name. A
source file's (``x.cc:12:``, a compiler's message) is not taken."""
_GREP_MAX = 512
# grep's file after the line's start, a space, a launcher's tag (``[rank3]:``, ``[1,3]<stderr>:``) or an editor's
# line number (``12:``: ingest.wrappers)
_GREP_IN_PREFIX = lazy_compile(r"(?:^|(?<=\s)|(?<=\]:)|(?<=>:)|(?<=\d:))([^\s:'\"]+):(?:\d+:)?")
_GREP_LINE = lazy_compile(r"\d+:")
"""``grep -n``'s line number after the file name and its colon; not a date (``2025-03-01``), nor the hour of a line
that starts with its clock time (:data:`_CLOCK`). A context line's ``-`` separator (``-A/-B/-C``) is not read."""
_CLOCK = lazy_compile(r"\d{1,2}:\d\d:\d\d")
"""A clock time at a line's start: ``10:00:00`` after a file name is the line's time, unless another follows the
number (``12:10:00:00``: line 12, at 10:00:00)."""
_MAX_HEADS = 8
"""Heads taken off one line at most (a quote of a kubectl paste of a vLLM worker's rank output is four)."""


_JUNK = lazy_compile(r"[\ufffd\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]")
"""A character no text log writes: a byte that is not UTF-8 (decoded as U+FFFD) or a C0 control other than tab,
line feed and ESC (ANSI colours)."""
BINARY_SHARE = 0.25
BINARY_MIN = 8
"""A line with at least :data:`BINARY_MIN` :data:`_JUNK` characters making up at least :data:`BINARY_SHARE` of it is
binary content (a core file, a shared library, random bytes given to ``--logs``), not a log line. reason: random
bytes read as lines of ~250 characters are about half junk; a real line with a few mis-encoded bytes (a GBK word in
a UTF-8 log) stays far below a quarter."""


NUL_HOLE = lazy_compile(rb"\x00{8,}")
"""A run of NUL bytes in a text log: the blocks a crash lost (ext4's delayed allocation gives a file its new length
before its data, so a log written just before a power loss or a hard reset reads back with NULs where its last
writes were). Where the rest is text, each hole is read as a line break, so the lines on both sides stay lines.
reason for 8: a lost write is whole file-system blocks (4,096 bytes on ext4), while a stray NUL or two inside a line
(a C string's end written with it) is taken out of the line as before, not made a break."""


def fill_holes(data: bytes, binary_share: float = BINARY_SHARE) -> tuple[bytes, int]:
    """``data`` with each :data:`NUL_HOLE` a line feed, and how many there were; unchanged (0) without a hole, or
    where the bytes besides the NULs are binary themselves (a core file: more than ``binary_share`` of the first
    4 KiB besides the NULs are :data:`_JUNK`)."""
    if b"\x00" * 8 not in data:
        return data, 0
    head = data[:65536].replace(b"\x00", b"")[:4096].decode("utf-8", "replace")
    if head and len(_JUNK.findall(head)) > binary_share * len(head):
        return data, 0
    return NUL_HOLE.subn(b"\n", data)


def junk_count(text: str) -> int:
    """How many characters of ``text`` no text log writes (:data:`_JUNK`)."""
    return len(_JUNK.findall(text))


def looks_binary(line: str) -> bool:
    """The line is binary content, not text (:data:`BINARY_SHARE`); an ASCII printable line costs one check."""
    if line.isascii() and line.isprintable():
        return False
    junk = junk_count(line)
    return junk >= BINARY_MIN and junk >= BINARY_SHARE * len(line)


def plain(line: str) -> tuple[str, str]:
    """``line`` out of a collector's JSON record (:mod:`opsbrain.ingest.records`), without colour codes, full-width
    colons, and the heads a collection or a paste put before it (taken off outermost first, as long as one is
    found); and the prefix taken off, the record's head first ("" when none)."""
    record = ""
    if line[:2] == '{"' and (rec := record_line(line)) is not None:
        line, record = rec
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if line[10:11] == "T" and " {" in line[19:37] and (lab := labelled_line(line)) is not None:
        line, record = lab[0], record + lab[1]
    if "\uff1a" in line:
        line = _FULL_COLON.sub(": ", line)
    if line.endswith(" across cluster]"):
        line = _RAY_REPEAT.sub("", line)
    if "%" in line[:96] and (bar := _PROGRESS.match(line)) and bar.end() < len(line.rstrip()):
        line, record = line[bar.end():], record + line[:bar.end()]
    n = _head(line)
    if not n:
        return line, record
    prefix, line = line[:n], line[n:]
    for _ in range(_MAX_HEADS - 1):
        n = _head(line)
        if not n:
            break
        prefix, line = prefix + line[:n], line[n:]
    return line, record + prefix


def _grep_head(line: str) -> int:
    """The length of ``grep``'s ``<file>:`` or ``<file>:<n>:`` before a line (0: none): the text before the line's
    first colon is a path without space or quote ending in a log file's name."""
    k = line.find(":", 0, _GREP_MAX)
    if k <= 0:
        return 0
    path = line[:k]
    if " " in path or "\t" in path or '"' in path or "'" in path or _GREP_FILE.search(path) is None:
        return 0
    m = _GREP_LINE.match(line, k + 1)
    if m is None or (_CLOCK.match(line, k + 1) and not _CLOCK.match(line, m.end())):
        return k + 1
    return m.end()


_FAN_OUT = "(" + _HOST_LOOK + _NOT_MODULE + r"[A-Za-z0-9][\w.-]{0,62}): "
"""A fan-out tool's host before a line: a digit and a dot or dash in it, as :data:`_HEAD` takes it."""
_SOURCE_HEADS = (lazy_compile(r"\[pod/([^\]\s/]+)/"),  # kubectl logs --prefix: the pod
                 lazy_compile(r"(?:^|\s)([A-Za-z0-9][\w.-]*[-_]\d+) +\| "),  # docker compose logs: the container
                 lazy_compile(r"(?:^|\s)" + _FAN_OUT),
                 lazy_compile(r"\((?:[\w.-]+ )?pid=\d+, ip=([\d.]+)\)"))  # Ray: a remote worker's node address
"""Heads that name the container or host a line came from: ``kubectl logs --prefix``' pod, ``docker compose logs``'
container, a fan-out tool's host (pdsh, clush, ``ansible -m shell``: a digit and a dot or dash in it, as
:data:`_HEAD` takes it), Ray's ``(RayWorkerWrapper pid=45464, ip=10.0.0.2) `` (the node of a remote worker)."""




def head_source(prefix: str) -> str | None:
    """The pod, container or fan-out host a paste's head names (:data:`_SOURCE_HEADS`, the first found), or None:
    for a line of several containers' or hosts' output, where each process runs with the same small pid."""
    if not prefix:
        return None
    for pattern in _SOURCE_HEADS:
        if m := pattern.search(prefix):
            return m.group(1)
    return None


def grep_file(prefix: str) -> str | None:
    """The file name ``grep`` put before a line, when :func:`plain` took one off (its prefix, where a paste's or a
    collector's heads may stand before it), else None."""
    if not prefix or ":" not in prefix:
        return None
    found = None
    for m in _GREP_IN_PREFIX.finditer(prefix):
        if _GREP_FILE.search(m.group(1)):
            found = m.group(1)
    return found


_CAT_N = lazy_compile(r"(?: {5}\d| {4}\d\d| {3}\d{3}|  \d{4}| \d{5}|\d{6,})\t")
"""``cat -n``'s line number: right-aligned in six columns, then a tab (coreutils cat.c, ``%6d\t``), as a paste of a
numbered file shows it (a Ray cluster's healthy log pasted with ``cat -n``: its ``- INFO -`` level was not read
behind the number, and an INFO note read as a missing setting)."""


def _head(line: str) -> int:
    """The length of the one head at the start of ``line`` (0: none); the first character picks the tests."""
    c = line[:1]
    m: re.Match[str] | None = None
    if (line[6:7] == "\t" or line[7:8] == "\t") and (m := _CAT_N.match(line)):
        return m.end()
    if c not in _NO_GREP and (n := _grep_head(line)):
        return n
    if c == "[":
        d = line[1:2]
        if d == "p" and line[2:5] == "od/":
            m = _KUBECTL.match(line)
        elif d == "r" and line[2:5] == "ank":
            m = _RANK.match(line)
        elif (d == "d" and line[2:8] == "efault") or (d.isdigit() and "]<std" in line[:24]):
            m = _LAUNCHER.match(line)
        elif d.isdigit() and _may_have_head(line[:112]):
            m = _HEAD.match(line)
    elif c in " \t":
        if line.lstrip(" \t")[:1] in _BODY_STARTS:
            m = _INDENT.match(line)
    elif c == ">":
        m = _QUOTE.match(line)
    elif c == "(":
        m = _PROC.match(line)
    elif c == "\ufeff":
        return 1
    elif c and c not in "|":
        if line[10:11] == "T" and c.isdigit() and (m := _CRI.match(line) or _prog_head(line)
                                                   or _RFC3339_HEAD.match(line)):
            return m.end()  # (a journal's short-iso head before a layout: as a syslog head, session 60)
        if line[:3] in _LEVEL_STARTS and (m := _VLLM_HEAD.match(line)):
            return m.end()  # its level is the line's unless the line states one (logged_level)
        if line[:3] in _MONTHS:  # a syslog stamp: what follows it tells which head can match
            after = line[16:17]
            if (after.isspace() or after in "[|" or line[line.find(" ", 16) - 1:][:1] == ":") and (
                    m := _HEAD.match(line)) and m.end():
                return m.end()
            m = _prog_head(line)
            if m is None and " | " in line[:112]:
                m = _COMPOSE.match(line)  # a compose service named like a month ("May-1  | ")
        elif "\u6708" in line[1:3]:
            m = _prog_head(line)
        else:
            head = line[:112]
            if _may_have_head(head) and (m := _HEAD.match(line)) and m.end():
                return m.end()
            if " | " in head:
                m = _COMPOSE.match(line)
    return m.end() if m else 0


def _prog_head(line: str) -> re.Match[str] | None:
    """A syslog / journal head with its program before a :data:`_BODY` layout (the program's colon is the line's
    first ``": "``: stamp and host hold none)."""
    k = line.find(": ")
    return _SYSLOG_PROG.match(line) if k > 0 and line[k + 2:k + 3] in _PROG_BODY_STARTS else None


def _may_have_head(head: str) -> bool:
    """A collector head ends in a space before ``[``, ``|`` or more white space: without one, no regex runs."""
    return " [" in head or " |" in head or "  " in head or " \t" in head


_MONTHS = frozenset(_MONTH[3:-1].split("|"))
_NO_GREP = frozenset(" \t[>(|{\ufeff")
"""First characters no ``grep`` file name before a line has (those of the other heads, a JSON record, none)."""
_LEVEL_STARTS = frozenset(("DEB", "INF", "WAR", "ERR", "CRI"))
_BODY_STARTS = frozenset("[|(DIWECF")
"""First characters of a :data:`_BODY` layout (a cheap test before its regex)."""
_PROG_BODY_STARTS = _BODY_STARTS | {" ", "*"}
"""After a syslog / journal head: a :data:`_BODY` layout or a :data:`_REPORT` line."""


def logged_level(prefix: str) -> str | None:
    """The level of a logger head :func:`plain` took off (vLLM's), or None."""
    m = _LOGGED.search(prefix)
    return m.group(1) if m else None


CARRY = (r"(?m:^)\{\"|\x1b|\[pod/|\[rank\d|\[default\d|\]<std| across cluster\]|(?m:^)(?:"
         + _CRI.pattern + r"|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d) \{|(?:(?:" + _HEAD_STAMP + r") (?:"
         + _HEAD_HOST + r")?|" + _HEAD_HOST + r")[\[|\t\n\x0b\x0c\r \x1c-\x1f]|" + _VLLM + r"|>(?: |(?m:$))|[ \t]+(?:"
         + _BODY + r")|\([\w.-]* ?(?:rank=\d+ )?pid=\d|" + _COMPOSE.pattern + "|" + _PROG_HEAD + "(?:" + _BODY + "))")
"""Where :func:`plain` can take something off an ASCII line: a JSON record's start (``{"``), a colour code, a kubectl,
rank or launcher prefix (``[default3]:``, ``[1,3]<stderr>:``), Ray's suffix, a CRI head, logcli's time and label set, a
collector's head (:data:`_HEAD`'s stamp and/or ``host: ``, before ``[``, ``|`` or white space), vLLM's logger head, a
quote marker, an indent before a :data:`_BODY` layout, a process prefix, a compose column, or a syslog head before a
:data:`_BODY` layout, at a line's start (every later head follows one of these). A superset: the host's digit-and-dash
look-ahead is left to :func:`plain`, and white space is spelt out as Python's ``\\s`` reads it in ASCII text (with
``\\x0b`` and ``\\x1c``-``\\x1f``, which RE2's ``\\s`` lacks). A quote marker alone on a line ends at the line's end,
``(?m:$)``: a lone ``>`` before a newline was missed (session 54, the property test's ``['>', '']``)."""
_CARRY: Any = None


def may_carry(data: bytes | bytearray) -> bool:
    """False when no line of ``data`` (a file's bytes, lines split at ``\n``) has anything :func:`plain` takes off:
    one scan (RE2 when installed); True for text that is not ASCII (Unicode digits and spaces: every line is read)."""
    global _CARRY
    if not data.isascii():
        return True
    if _CARRY is None:
        from opsbrain.multiscan import _re2

        if _re2 is not None:
            opts = _re2.Options()
            opts.never_capture = True
            opts.log_errors = False
            _CARRY = _re2.compile(CARRY.encode(), opts)
        else:
            _CARRY = re.compile(CARRY.encode())
    return _CARRY.search(data) is not None
