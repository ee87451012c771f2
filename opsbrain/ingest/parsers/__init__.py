"""One small parser per source; :func:`parse_line` runs them in order on a line that passes the gate.

Every parser is ``parse(ctx) -> bool``: it adds the signals it recognises to ``ctx`` and returns True when the line
is fully explained (later parsers are skipped). The twin's switch lines (hosts naming its own parts) come first: they
are fully explained by the link they name, and a generic link-down message on them would anchor an incident on the
switch alone. The gate is one regular expression of the words every parser keys on: a line without any of them (most
INFO lines of a real log) costs one scan. With RE2 (google-re2) that one scan also screens the parsers' own regexes
(:mod:`opsbrain.ingest.screen`): on a line that passes the gate, only the regexes whose literals occur in it run.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from types import SimpleNamespace

from opsbrain.blockscan import BlockScan
from opsbrain.ingest import screen, where
from opsbrain.ingest.absent import absent_faults_removed
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.envlisting import ENV_ASSIGNMENT
from opsbrain.ingest.parsers import (
    cann,
    device,
    dmi,
    errnums,
    fdreport,
    fdtoolkit,
    framework,
    hccl,
    hccn,
    installer,
    kernel,
    kubelet,
    llmdatadist,
    messages,
    mindcluster,
    mindie,
    monitor,
    sigkill,
    twin,
)
from opsbrain.ingest.parsers.ctx import MAX_LINE, LineCtx, Parser, stated_level, worded_level
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.surface import head_source, logged_level
from opsbrain.ingest.testruns import outcome_words
from opsbrain.lazyre import lazy_compile
from opsbrain.multiscan import Screen, Wide, literal_pattern, re2_superset, superset_key, wide_literals, wide_union

ORDER: tuple[Parser, ...] = (fdreport.parse, fdtoolkit.parse, twin.parse, monitor.parse, mindcluster.parse,
                             sigkill.parse, messages.parse, mindie.parse, llmdatadist.parse, errnums.parse, dmi.parse,
                             installer.parse, device.parse, kubelet.parse, hccn.parse, kernel.parse_driver, hccl.parse,
                             cann.parse, kernel.parse, framework.parse)
"""The FaultDiag report's rows come first: a row of the report's own words (a fault description naming a part)
is fully explained by it, before a message or hardware parser reads the words as a log's. A monitoring component's
own failure (:mod:`.monitor`) before the parsers that would read its error text as the job's. A process killed by
SIGKILL (:mod:`.sigkill`) adds its symptom and leaves the line to the others (the DataLoader's RuntimeError)."""

GATE = lazy_compile(
    r"event[_ ]?id|fault|alarm|error|err\d|fail|timeout|timed out|time out|heartbeat|link|ecc|panic|lockup|hung|"
    r"blocked for|out of memory|oom|traceback|exception|exit|abort|crash|killed|lost|not respond|not found|"
    r"mismatch|match|compatib|unsupported|not supported|not implemented|invalid|denied|cannot|can't|unable|"
    r"segmentation|sigsegv|core dump|nan\b|\bE[A-Z0-9]\d{4}\b|\b[125]0\d{4}\b|ERR\d{5}|\bdown\b|assertion|degraded|"
    r"lanes|qingtian|dpu|storage|critical|fatal|warn|overtemp|temperature|throttl|aer|pcie|mce|uce|retry|"
    r"refused|reset|isolat|unhealthy|sdc|loss is|notify|socket|transport|cqe|rdma|roce|hccl|ranktabl|"
    r"rank_table|malloc|alloc|kv cache memory: -|tls switch|errno\[|retcode|seizing the npu|"
    r"stored in kv cache \(|"  # vLLM V0's max-seq-len check, often pasted without its ValueError (framework, s48)
    r"smaller than requested bytes|"  # ONNX Runtime's arena, quoted without its function (memtexts, s59)
    r"emergency_warn|general_warn|died unexpectedly|未找到命令|\bMIE\d{2}[A-Z][0-9A-F]{6}\b|healthy devices|"
    r"ListAndWatch ended|terminate called after throwing|could not open|(?:does not|do not|doesn't) exist|"
    r"/dev/shm|shared memory \(shm\)|npu is busy|not present|\blo[sl] flag|\b0x8[0-9a-f]{7}\b|no module named|"
    r"out of shared memory|"  # the DataLoader's shm verdict on a line of its own (parsers/hostenv; session 49)
    r"no package metadata was found|"
    r"not enough slots available in the system|"  # Open MPI's refusal of more ranks than slots (cfgenv; session 49)
    r"sigkill|training end with return code|"  # torchrun's "Signal 9 (SIGKILL)", ModelArts' exit (parsers/sigkill)
    r"illegal instruction|sigill\b|"  # a host process killed by SIGILL (parsers/kernel os:sigill; session 49)
    r"sigabrt|double free or corruption|corrupted size vs|"  # SIGABRT deaths (parsers/kernel.ABORTED; s51)
    r"no such file or directory|undefined symbol|address already in use|name or service not known|\[EnvConfig\]|"
    r"\btoo (?:small|large|big)\b|address out of boundary|"
    r"exceeds the total number of available [a-z]pus|has no [a-z]pu available|"
    r"current state\s*:\s*up\b|"  # a switch port back up (parsers/twin.RE_IF_STATE; review40b: its DOWN only passed)
    r"\|\s*unknown\s+\||"  # npu-smi info's Health column UNKNOWN (parsers/device.RE_SMI_HEALTH; session 42)
    r"is not output of graph\b|"  # ATC's --out_nodes refusal below E19999 (parsers/framework.RE_ATC_OUT_NODES)
    r"message (?:after decompression )?larger than max\b|"  # gRPC's size limit (parsers/cfgenv; session 45)
    r"version magic '|unknown symbol \w|disagrees about version of symbol|"  # module refusals (kernel.MODULE_REFUSED)
    r"\b0 received, 100\.00% packet loss\b|"  # hccn_tool -ping got no answer (parsers/hccn.RE_PING_LOST; session 46)
    r"net health status\s*:\s*(?:unreachable|time exceeded)\b|"  # hccn_tool's failures without a gate word (46)
    r"\bstopiteration\b|"  # an uncaught StopIteration (parsers/pyexc.RE_STOP_ITERATION)
    r"required positional argument|required keyword-only argument|unexpected keyword argument|"  # pyexc (s58)
    r"got multiple values for argument|positional arguments? but \d+ |"  # CPython TypeError texts (pyexc; s58)
    r"\binclude could not find (?:requested|load) file\b|"  # CMake's include() (cfgenv.RE_BUILD_INPUT_MISSING; s50)
    r"\(unimplemented\) |"  # Paddle's simplified error type (parsers/framework.RE_PADDLE_UNIMPLEMENTED; session 47)
    r"\b(?:owner|permission) not right\b|"  # MindX DL's file check (Ascend Docker Runtime; parsers/cfgenv; s51)
    + kernel.EDAC_REPORT + r"[CU]E\b|"
    r'故障分类|故障设备|故障节点|根因节点|root cause node|"(?:class|component|module)"\s*:|' + fdtoolkit.WORDS.pattern,
    re.I)


@lru_cache(maxsize=1)
def gate() -> re.Pattern[str]:
    """:data:`GATE` and every documented message (knowledge_base/codes.yaml) in one pattern: one scan a line."""
    rx = messages.catalog()[0]
    return re.compile(GATE.pattern + ("|" + rx.pattern if rx else ""), re.I) if rx else GATE


@lru_cache(maxsize=1)
def _screen() -> tuple[Screen, int]:
    """One scan of a line: the gate's words (extra 0), the documented messages (extra 1) and every registered
    parser regex's literals.

    RE2 reads :data:`GATE` as written (on ASCII text it agrees with ``re``); the documented messages carry
    look-behinds RE2 cannot read, so the screen holds their RE2 superset (:func:`opsbrain.multiscan.re2_superset`:
    look-arounds dropped) and :func:`parse_line` confirms a line that only that superset found with the exact gate.
    So the answer is the exact gate's on every line, and one RE2 scan rules out the lines without any gate word
    (most of a real log) and the parser regexes that cannot match."""
    from opsbrain.kb.compiled import screen_memo

    rx = messages.catalog()[0]
    # the translations take ~50 ms a process (the messages regex is long): kept beside the screen plans, keyed by
    # the patterns and flags as declared (compiling the messages regex, ~25 ms, only to key it would waste the memo)
    declared = [GATE] + ([SimpleNamespace(pattern=rx.pattern, flags=rx.key[1])] if rx is not None else [])
    memo = screen_memo("re2-superset-" + superset_key(declared), lambda: {"extras": [
        re2_superset(p) or "(?i)" + p.pattern for p in [GATE] + ([rx.rx] if rx is not None else [])]})
    return screen.build(list(memo["extras"]))


@lru_cache(maxsize=1)
def _every_parser() -> screen.Group:
    """Every regex a parser keys on (each parser returns at once when the screen rules out all of its own), but for
    those that only qualify a signal another regex finds (``screened(..., context=True)``)."""
    rx = messages.catalog()[0]
    groups = (fdreport._ANY, fdtoolkit._ANY, twin._ANY, monitor._ANY, mindcluster._ANY, mindie._ANY, llmdatadist._ANY,
              errnums._ANY, dmi._ANY, installer._ANY, device._ANY, kubelet._ANY, sigkill._ANY, hccn._ANY, kernel._ANY,
              hccl._ANY, cann._ANY, framework._ANY)
    # the driver parser's regexes are in no group of their own (kernel._ANY is the kernel parser's); before session
    # 38 the black box record and the exporter's failure were let through only by the CANN parser's broad
    # code-context regex ("code", "fail" anywhere)
    return screen.Group(sorted({r for g in groups for r in g.regexes if not r.context}
                               | {kernel.RE_DRV, kernel.RE_VM_FAULT, kernel.RE_DRV_IN_USE, kernel.RE_BBOX_RECORD,
                                  *(row[0] for row in kernel.DRV_KINDS)}
                               | ({rx} if rx is not None else set()), key=lambda r: r.id))


def _parsers_may(text: str) -> bool:
    """False when no parser can add a signal to the screened line ``text``: all their regexes are ruled out and
    neither of the two literal tests of the parsers holds (kernel: ``[ascend]`` with ``[error]``; framework: a
    traceback's first line)."""
    if _every_parser().may(text):
        return True
    low = text.lower()
    return ("[ascend]" in low and "[error]" in low) or "Traceback (most recent call last)" in text


ADVICE = lazy_compile(r"(?:^|[\s\]:])(?:Possible Cause|Solution)\s*:\s|There are some potential root causes\. \(1\) ")
"""Where a CANN error's canned advice starts (``EI0002: The wait execution ... times out.`` then ``Possible Cause:
1. ... 4. Packet loss ...`` and ``Solution: ...``): the ``suggestion`` fields of the error-code table (hicann/runtime
src/dfx/error_manager/error_code.json), the same text for every occurrence of the code. They list causes that may
apply, not what happened, so a line is read up to them (the code itself says all they say). Ray's likewise: every
worker whose connection to the raylet closed is reported with ``Worker unexpectedly exits with a connection error code
2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high
memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected
errors.`` (ray-project/ray src/ray/raylet/node_manager.cc ``HandleClientConnectionError`` @a3d430a6; Ray's "Debugging
Memory Issues" page: the message "indicates the worker is killed unexpectedly", dmesg tells whether the OOM killer did
it), in the raylet's ``A worker died or was killed ...`` line and the ``The actor is dead because its worker process
has died`` of ActorDiedError. Session 50 (tester50d): that list read as an OOM (npu_oom 0.67) for any worker death;
what the raylet's memory monitor did kill it says in its own words (``Workers (tasks / actors) killed due to memory
pressure (OOM)``, ``OutOfMemoryError``), still read."""


DEBUG_ADVICE = lazy_compile(r"If you want to get the accurate stacktrace, plea[sc]e set the environment variable "
                          r"ASCEND_LAUNCH_BLOCKING=1\.|Note: ASCEND_LAUNCH_BLOCKING=1 will force ops to run in "
                          r"synchronous mode[^.]*\.(?: Please unset ASCEND_LAUNCH_BLOCKING in time after debugging\.)?")
"""torch_npu's canned advice after every asynchronous inner error (Ascend/pytorch torch_npu/csrc/core/npu/NPUQueue.cpp,
Repository::Enqueue: ``... please set the environment variable ASCEND_LAUNCH_BLOCKING=1.`` and ``Note:
ASCEND_LAUNCH_BLOCKING=1 will force ops ...``): how to debug, not a variable the environment lacks (triton-ascend#783).
Older torch_npu releases print "pleace" (the line as vllm-ascend#1007 and lmdeploy#2471 show it); both spellings
are read. Only these sentences are dropped; what the line holds besides them (a one-line rendering carries the ACL
error after them) is read as usual."""


@lru_cache(maxsize=1)
def _gate_patterns() -> tuple[list[str], list[str]] | None:
    """The patterns of the two block scans :func:`may_signal` runs: the gate's words and documented messages (the
    screen's extras), and every parser regex with the two literal tests of :func:`_parsers_may`; None when they
    cannot be given. Patterns only: a union's RE2 compile costs ~45 ms, paid where a scan runs."""
    scr, covered = _screen()
    group = _every_parser()
    if group.top >= covered:
        return None
    words = scr.block_patterns(regexes=(), extra=None)
    parsers = scr.block_patterns(regexes=group.ids, extra=())
    if words is None or parsers is None:
        return None
    return words, [*parsers, "(?i)" + literal_pattern("[ascend]"), literal_pattern("Traceback (most recent call last)")]


@lru_cache(maxsize=1)
def _block_gates() -> tuple[BlockScan, BlockScan] | None:
    """The two block scans of :func:`_gate_patterns`; None when they cannot rule out lines."""
    pats = _gate_patterns()
    if pats is None:
        return None
    wide = _gate_wide()
    words = _block_words()
    tests = BlockScan(pats[1], wide=wide[1] if wide else None)
    return (words, tests) if words is not None and tests.usable else None


@lru_cache(maxsize=1)
def _block_words() -> BlockScan | None:
    """The block scan of the gate's words and documented messages (the first of :func:`_block_gates`), or None."""
    pats = _gate_patterns()
    if pats is None:
        return None
    wide = _gate_wide()
    words = BlockScan(pats[0], wide=wide[0] if wide else None)
    return words if words.usable else None


def may_pass_gate(texts: list[str]) -> list[bool] | None:
    """Per line: False when neither a gate word nor a documented message can occur in it (one block scan, in C),
    so :func:`parse_line` finds no signal there; None when the scan cannot tell (no RE2). A line marked True may
    still give none (:func:`may_signal` also asks for a parser regex)."""
    words = _block_words()
    return words.candidates(texts, MAX_LINE) if words is not None else None


@lru_cache(maxsize=1)
def _gate_wide() -> tuple[tuple[list[str], Wide], tuple[list[str], Wide]] | None:
    """The patterns and readings of the two block scans of :func:`_gate_patterns` on a non-ASCII line (session
    39; the two literal tests are ASCII: in the first stand-in copy as written); None when the line screen does not
    read such lines."""
    scr, _covered = _screen()
    pats = _gate_patterns()
    ids = _every_parser().ids
    words, parsers = scr.block_wide(regexes=(), extra=None), scr.block_wide(regexes=ids, extra=())
    tests = scr.block_patterns(regexes=ids, extra=(), wide=True)
    if pats is None or words is None or parsers is None or tests is None:
        return None
    return (pats[0], words), (tests + pats[1][-2:], wide_union(parsers, wide_literals((0,))))


def signal_wide() -> tuple[list[str], Wide] | None:
    """The patterns and readings of a block scan of :func:`signal_patterns` on a non-ASCII line, or None (such a
    line is a candidate)."""
    wide = _gate_wide()
    return (list(wide[1][0]), wide[1][1]) if wide is not None else None


def signal_patterns() -> list[str] | None:
    """The patterns of which a line must hold one for :func:`parse_line` to find a signal in it (RE2, one line's
    meaning; for a block scan shared with other line screens), or None when they cannot be given."""
    pats = _gate_patterns()
    return list(pats[1]) if pats is not None else None


def may_signal(texts: list[str]) -> list[bool] | None:
    """Per line: False when :func:`parse_line` is certain to find no signal in it (two block scans, in C, of all the
    lines: no gate word or documented message, or no parser regex that can match); None when the scans cannot tell
    (no RE2). Lines marked True take :func:`parse_line` as usual."""
    gates = _block_gates()
    if gates is None:
        return None
    may = gates[1].candidates(texts, MAX_LINE)  # the parsers' regexes first: they occur on fewer lines
    if may is None or not any(may):
        return may
    kept = [i for i, ok in enumerate(may) if ok]
    words = gates[0].candidates([texts[i] for i in kept], MAX_LINE)  # then the gate, on those lines only
    if words is None:
        return None
    for i, ok in zip(kept, words, strict=True):
        may[i] = ok
    return may


NARROW_MIN = 2000
"""Kept lines from which :func:`narrow_to_gate` scans them for the gate: its RE2 union compiles in ~20 ms, what the
parsers' line screen costs on ~1,000 non-ASCII or ~3,000 ASCII lines (a block-read ASCII log keeps a few hundred)."""


def narrow_to_gate(texts: list[str], may: list[bool] | None) -> list[bool] | None:
    """``may`` (a bundle's shared block scan of the parsers' and the matcher's patterns; None: none) narrowed to the
    lines where a parser can find a signal: the block scan of the gate (:func:`may_pass_gate`) of the lines it keeps,
    so that a line kept for the matcher alone (a path holding a word of one of its anchors) skips the parsers
    (session 40: a third of a Chinese console's lines, where the parsers' line screen costs ~20 us a line). Only
    past :data:`NARROW_MIN` kept lines: below, the scan's compile costs more than it saves."""
    if may is None:
        return None
    kept = [k for k, m in enumerate(may) if m]
    own = may_pass_gate([texts[k] for k in kept]) if len(kept) >= NARROW_MIN else None
    if own is None:
        return may
    out = [False] * len(may)
    for k, m in zip(kept, own, strict=True):
        out[k] = m
    return out


def _gate_found(text: str, extra: frozenset[int]) -> bool:
    """``gate().search(text)`` found something, without compiling the documented messages' regex (~25 ms: the
    gate's own words ~3 ms) where the screen rules them out: ``extra``, what the screen found of its extras on
    ``text`` (0 the gate's words, 1 the messages' superset; on a non-ASCII line those that may occur), holds 1
    wherever the messages can match (session 41: a Chinese line always took the whole gate)."""
    if GATE.search(text):
        return True
    rx = messages.catalog()[0]
    return rx is not None and 1 in extra and rx.rx.search(text) is not None


def parse_line(text: object, t: float = 0.0, origin: str | None = None, source: str | None = None,
               level: str | None = None, head: str = "", file_device: int | None = None,
               twin: bool | ChipMap | None = None) -> list[Signal]:
    """Signals in one log line (never raises). ``origin`` (a twin component id) places lines that name no host;
    ``head``: what :func:`opsbrain.ingest.surface.plain` took off the line (a syslog head's host is the line's, else
    the pod, container or host a multi-host paste's head names: :func:`~opsbrain.ingest.surface.head_source`);
    ``file_device``: the device whose own log the line's file is (:func:`opsbrain.ingest.workers.device_dir`), for
    lines that name none; ``twin``: False for a real host's line that a bundle placed on a twin-shaped node id
    (``pod0/node0`` for ``node-a``: the twin's own numbering conventions do not apply; its device ids as written),
    that host's :class:`~opsbrain.ingest.chipmap.ChipMap` where its npu-smi output shows its product (session 38: on
    A3 an id is a die's logical id), None to tell by the id."""
    if not isinstance(text, str):
        return []
    text = text[:MAX_LINE]
    if (advice := ADVICE.search(text)) is not None:
        text = text[:advice.start()]  # a cause the message may have, not one it reports
    if "ASCEND_LAUNCH_BLOCKING" in text:
        text = DEBUG_ADVICE.sub(" ", text)
    scr, covered = _screen()
    seen = scr.possible(text)
    if seen is None:  # no RE2 (or a character re.I folds onto ASCII): the gate regex itself, every parser regex runs
        if not gate().search(text):
            return []
    else:
        may, extra = seen
        # no gate word; a documented message's superset alone, or a non-ASCII line (the screen then names the
        # patterns that may occur, session 39): the exact gate decides
        if (0 not in extra or not text.isascii()) and (not extra or not _gate_found(text, extra)):
            return []
        screen.set_line(text, may, covered)
        if not _parsers_may(text):
            return []  # a gate word, but every parser's regexes are ruled out: no parser can find a signal
    if BENIGN.search(text):  # after the gate: each documented harmless line holds a gate word ("fail", "oom")
        return []
    text = absent_faults_removed(text)  # after the gate: "无 NaN、Inf、OOM 或分布式 hang", faults said to be absent
    if ENV_ASSIGNMENT.match(text):  # a variable and its value (env, collect_env.py, export): a setting, no event
        return []
    if not (text := outcome_words(text)):  # a passing test's record: the test's name is no failure (ingest.testruns)
        return []
    host = where.host_in(text) or where.head_host(head) or head_source(head)
    node = where.node_component(host)
    if origin and where.twin_node(host) is None and (own := where.node_of(origin)):
        node = own  # a twin line that names no twin host belongs to the node whose log holds it
    stated = stated_level(text, level, logged_level(head) if head else None)
    ctx = LineCtx(text, t, host, node, origin, worded_level(text) if stated is None else stated,
                  stated=stated is not None, file_device=file_device, twin=twin)
    for parse in ORDER:
        if parse(ctx):
            break
    del source  # the line itself says what it is; the source name only helps a human reading the journal
    if len(ctx.out) > 1:
        ctx.out = list(dict.fromkeys(ctx.out))  # one signal once: two parsers may decode the same fact of a line
    peer = next((s.peer for s in ctx.out if s.peer and s.peer.startswith("pod")), None)
    if peer is not None:  # the twin node a line names as its remote belongs to every signal of that line
        ctx.out = [s if s.peer else replace(s, peer=peer) for s in ctx.out]
    return ctx.out

__all__ = ["MAX_LINE", "LineCtx", "Signal", "may_pass_gate", "may_signal", "narrow_to_gate", "parse_line",
           "signal_patterns", "signal_wide"]
