"""The context a parser gets for one line: its text, time, host, node, severity, and where signals go."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from opsbrain.ingest import where
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.screen import screened
from opsbrain.ingest.signal import SEV, Signal
from opsbrain.lazyre import lazy_compile

_ORIGIN_NPU = lazy_compile(r"(?:^|/)npu(\d+)$")
MAX_LINE = 4096  # characters of a line that are scanned; longer lines are cut (junk never costs more)


CODE_START = r"(?:(?<![0-9A-Za-z])|(?<=\\[nrt]))"
"""Where a CANN / HCCL error code (``E30006``, ``EI0002``, ``ERR00100``) may start: after no letter or digit, or right
after an escaped newline, return or tab (session 37). A program that logs a multi-line message as one JSON string
value (RFC 8259 section 7: a newline in a string is written ``\\n``) or as a Python ``repr`` puts each of the message's
lines after a backslash and an ``n``: a FastAPI ``HTTPException`` detail relayed by a client
(``500: {"detail":"...PTA call acl api failed\\nE30006: ... Failed to verify the OPP\\n..."}``, vllm-ascend issue
4284), where the code's ``n`` before it hid it."""
_PLOG_OPEN = lazy_compile(r"^\[\w+\s*\]\s*\w+\(\d+,[^)]*\):")
_FIELD = lazy_compile(r"\S*")
_AFTER_TIME = r"(?:\s*\[[^\]]*\])*(?:\s*\d+(?=\s*[A-Za-z_]))?"
RE_PLOG_HEAD = lazy_compile(_PLOG_OPEN.pattern + r"\S+" + _AFTER_TIME)
"""A plog line's head ``[ERROR] HCCL(pid,proc):time [file.cc:line][tid]...``: its numbers (thread ids) are no codes;
nor is the thread id that RUNTIME and TBE lines print bare after the source position, before the function name
(``[ascendc_runtime.cpp:228]  505389 AscendCheckSoCVersion:...``,
``[capture_model.cc:1078]227839 AllocSqCqProc:...``). HCCL lines may put a space between the bracketed fields
(``[adapter_hccp.cc:1240] [106335]cur idx[0]``, vllm-ascend#9447)."""
_RT_FUNC_REST = lazy_compile(_AFTER_TIME + r"\s*([A-Za-z_]\w*):")
_WORDS = lazy_compile(r"\w+")
_DIGITS = lazy_compile(r"\d+")
_NAME_AT = lazy_compile(r"\s*[A-Za-z_]\w*:")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
MATCH_ONLY = ("_RT_FUNC_REST", "_NAME_AT")
"""Regexes only matched at one position, never searched (``benchmarks/bench_regex_worst.py`` times their ``match``)."""


def rt_func(text: str) -> re.Match[str] | None:
    """The C++ function a RUNTIME plog line names right after its head (``[device_error_core_proc.cc:399]4702
    CheckSmmuFault:Get isSmmuFault is 1.``): the runtime's log functions print ``[%s:%d]%d %s:%s`` (source file, line,
    thread id, ``__func__``, message; hicann/runtime src/runtime/core/src/common/rt_log.cc RecordErrorLog / RecordLog
    @147ddf21), so that word is a function's name, never an exception class a program raised (session 36).

    Group 1 (and its span) is what ``re.match`` of the head's pattern followed by ``\\s*([A-Za-z_]\\w*):`` reads
    (session 36's ``RE_RT_FUNC``; the returned match starts where its time field ends). That regex tried every end of
    the time field (``\\S+``), longest first, and read the rest at each: on a field of n characters that each fail
    only after a scan of the line (``9`` * 4,000) it took O(n^2), 0.6 s on a 4 KB line (session 43). Here the same
    ends are tried in the same order, each answered in O(1) from the runs of word characters and digits and the
    next ``]`` (what the rest can read from a character of the field), and the rest is run once, at the end it
    chose (session 43, ``tests/test_regex_linear43b.py``)."""
    head = _PLOG_OPEN.match(text)
    if head is None:
        return None
    p0 = head.end()
    r = _FIELD.match(text, p0).end()  # type: ignore[union-attr]  # \S* always matches
    if r == p0:
        return None  # \S+ reads nothing
    if m := _RT_FUNC_REST.match(text, r):
        return m
    # inside the field (every character is no space): the rest reads a name (``[A-Za-z_]\w*:``), digits then a
    # name (``\d+`` is read to the end of its run: a shorter read leaves a digit, which the look-ahead refuses),
    # or bracketed fields (``\[[^\]]*\]``: to the next ``]``) then the rest again
    wend: dict[int, int] = {}
    dend: dict[int, int] = {}
    for run in _WORDS.finditer(text, p0, r):
        wend.update(dict.fromkeys(range(run.start(), run.end()), run.end()))
    for run in _DIGITS.finditer(text, p0, r):
        dend.update(dict.fromkeys(range(run.start(), run.end()), run.end()))
    close = text.find("]", r)  # where a bracket opened in the field closes, when no ``]`` follows it in the field
    after_close = close >= 0 and _RT_FUNC_REST.match(text, close + 1) is not None
    name_after = _NAME_AT.match(text, r) is not None  # a name after the field, for digits that end it
    for e in range(r - 1, p0, -1):
        c = text[e]
        if c == "]":
            after_close = False  # the rest failed at e + 1: that end was tried before this one
        if c in _NAME_START:
            ok = text[wend[e]:wend[e] + 1] == ":"
        elif e in dend:
            f = dend[e]
            ok = (text[f] in _NAME_START and text[wend[f]:wend[f] + 1] == ":") if f < r else name_after
        elif c == "[":
            ok = after_close
        else:
            ok = False
        if ok:
            return _RT_FUNC_REST.match(text, e)
    return None


@dataclass(slots=True)
class LineCtx:
    text: str
    t: float
    host: str | None          # host as written (or the twin's id)
    node: str | None          # the node component: pod0/node7, or the host as written
    origin: str | None        # the twin component whose log held the line
    sev: int
    out: list[Signal] = field(default_factory=list)
    _low: str | None = None
    _dev: int | None | bool = False  # the device the text names, once looked up (False: not yet)
    stated: bool = False  # ``sev`` is a level the line or its source states (not guessed from its words)
    file_device: int | None = None  # the device whose own log the file is, by its path (workers.device_dir)
    twin: bool | ChipMap | None = None  # the line is the twin's (its conventions apply); a real host's numbering
    # as its npu-smi output shows it (opsbrain.ingest.chipmap, session 38); None: told by the node's id

    @property
    def low(self) -> str:
        if self._low is None:
            self._low = self.text.lower()
        return self._low

    def add(self, kind: str, comp: str | None = None, sev: int | None = None, peer: str | None = None,
            device: int | None = None) -> None:
        self.out.append(Signal(self.t, kind, comp, self.origin or self.host, self.sev if sev is None else sev,
                               self.text, peer, device))

    def is_twin(self) -> bool:
        """Whether the twin's conventions apply (its nodes are Atlas A3: device ids are dies' logical ids)."""
        if isinstance(self.twin, ChipMap):
            return False
        return self.twin if self.twin is not None else where.is_twin_node(self.node)

    def numbering(self) -> bool | ChipMap:
        """How the line's device ids name parts: the twin's A3 rule (True), a real host's npu-smi output (its
        :class:`~opsbrain.ingest.chipmap.ChipMap`), or as written (False)."""
        return self.twin if isinstance(self.twin, ChipMap) else self.is_twin()

    def a3(self) -> bool:
        """Whether device ids are A3 dies' logical ids (the twin's nodes; a real host shown A3)."""
        return self.twin.a3 if isinstance(self.twin, ChipMap) else self.is_twin()

    def npu(self, dev: int | None = None) -> str | None:
        """The component device ``dev`` (default: the line's, :meth:`device`) names on the line's node: on an A3
        node the die of that logical id (:func:`opsbrain.ingest.where.device_component`)."""
        d = self.device() if dev is None else dev
        return where.device_component(self.node, d, self.numbering())

    def device(self) -> int | None:
        """The device the text names; else the device whose own log held the line: by the file's path
        (``hisi_logs/device-<N>/``, ``slog/dev-os-<N>/``), or in a bundle by the line's origin ``<node>/npu<N>``."""
        if self._dev is False:
            self._dev = where.device_in(self.text)
            if self._dev is None:
                self._dev = self.file_device
            if self._dev is None and self.origin and (m := _ORIGIN_NPU.search(self.origin)):
                k = int(m.group(1))  # the NPU the twin logged it for: on its A3 nodes, that NPU's die 0 (a
                # real host's directory, dev-os-<N>, names the device as its logs do: as written)
                self._dev = where.twin_device(k) if self.is_twin() else k
        return self._dev


Parser = Callable[[LineCtx], bool]

_LEVEL = screened(r"^\s*(?:\[\s*)?(TRACE|DEBUG|INFO|EVENT|NOTICE|WARN(?:ING)?|ERROR|ERR|CRITICAL|FATAL)\s*\]?", re.I)
_KLOG = screened(r"^\s*([EWIF])\d{4} \d\d:\d\d:\d\d")  # klog (Volcano, Kubernetes): E0111 03:29:15.700191
_STAMPED_LEVEL = screened(
    r"^\s*(?:\[\d{4}-\d\d-\d\d[ T][\d:.,]+\]\s*\[(TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|CRITICAL|FATAL)\]|"
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? - (?:[\w.-]+ - )?(TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL) - |"
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] [\w.-]+ (?-i:(DEBUG|INFO|WARNING|ERROR|CRITICAL)) - )",
    re.I)
"""A level right after a time stamp: a bracketed stamp and a bracketed level (MindCluster's Go components,
``[2026-04-28 07:59:11.955139][WARN]     261     dcmi/dcmi.go:1466 ...``; the ATB / xLLM C++ logger, ``[2025-12-08
11:52:44.735471] [error] [69197] [operation_util.h:156] ...``) and Python logging's ``%(asctime)s - %(name)s -
%(levelname)s - `` format (lmdeploy: ``2024-10-21 10:42:00,218 - lmdeploy - ERROR - model_agent.py:489 - ...``), and
the same without the logger's name (``%(asctime)s - %(levelname)s - ``: NumExpr's ``- INFO - Note: ...
"NUMEXPR_MAX_THREADS" not set`` in a healthy Ray cluster's log). Session 42: the MindSpore suites' logger
(mindspore-lab/mindcv mindcv/utils/logger.py ``set_logger``: ``fmt = "%(asctime)s %(name)s %(levelname)s -
%(message)s"`` with ``datefmt = "[%Y-%m-%d %H:%M:%S]"``, which mindocr's training script logs through), e.g.
``[2024-03-21 16:42:06] mindocr.train INFO - Standalone training. Device id: 2, specified by environment variable
'DEVICE_ID'.`` (a normal start, mindspore-lab/mindocr#683): the level is the logger's upper-case levelname."""


def stated_level(text: str, given: str | None, logged: str | None = None) -> int | None:
    """The severity a line's level states: ``given`` by its source, else the level the line states at its start,
    else the level ``logged`` by the logger whose head was taken off it (vLLM's ``ERROR 08-13 15:31:21 [...]``);
    None when nothing states one."""
    if given:
        return SEV.get(given.upper(), 1)
    if m := _LEVEL.match(text):
        return SEV.get(m.group(1).upper(), 1)
    if m := _KLOG.match(text):
        return {"E": 2, "F": 2, "W": 1, "I": 0}[m.group(1)]
    if text[:1] in "[0123456789 " and (m := _STAMPED_LEVEL.match(text)):
        return SEV.get((m.group(1) or m.group(2) or m.group(3)).upper(), 1)
    if logged:
        return SEV.get(logged, 1)
    return None


def worded_level(text: str) -> int:
    """The severity a line's words suggest when it states no level: an error word, else a warning."""
    low = text.lower()
    if "|error|" in low or "[error]" in low or " error " in low or "|err|" in low:
        return 2
    return 1
