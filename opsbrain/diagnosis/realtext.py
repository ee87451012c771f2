"""The real-text fallback: where the signal engine abstains on pasted text and nothing in it is hardware evidence, the
words of the input read by a classifier learned from the real-log corpus' development excerpts.

Why: the parsers and the knowledge base are written from what the project has read, and on new text they answer
less (blind parts Q-T of the corpus: 0.40 agreement at the time each was first read, against 0.76 on the dev text
they were written from). A tf-idf + multinomial logistic regression learned from real excerpts (their labels are the
threads' conclusions) generalises better to a later harvest: trained on the dev excerpts of earlier parts and scored
on later ones it agrees 0.54-0.63 (firm/likely), and engine-then-text beats the engine alone on every later part
(docs/validation.md, session 16). It is fitted by :mod:`opsbrain.kb.realtext_fit` on the dev split only (a test
excerpt raises) and served from a JSON file in plain Python (no scikit-learn, scipy or numpy) by
:mod:`opsbrain.diagnosis.textmodel` (split from here in session 46; its names are importable from here as before).

It answers only when the engine abstains, only a class of :data:`ANSWERABLE`, only at a top probability of
:data:`THRESHOLD` or more, at a confidence capped at :data:`CONFIDENCE_CAP`, and only when the input holds no hardware
evidence (the software triage's gate: no signal names or supports a class outside the software family and
:data:`ANSWERABLE`, and no hardware or fabric component reports a fault). It cites the input lines that weigh most
for its class, with their line numbers."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from opsbrain.diagnosis.textmodel import (  # noqa: F401 - re-exported: the served model's names
    CACHE_PREFIX,
    FORMAT,
    MODEL_FILE,
    RawVocab,
    TextModel,
    load_model,
    model_from_doc,
    served_model,
    serving,
)
from opsbrain.fastre import fast_lines_with, fast_search
from opsbrain.ingest.absent import absent_faults_removed
from opsbrain.ingest.benign import BENIGN, COUNTER_LINE, SELF_FAILURE, SETTING_LINE, option_words_only
from opsbrain.ingest.parsers.sigkill import OTHER_FAILURES_CUE, SELF_KILL_CUE, TRACEBACK_HEAD, KilledTracebackScan
from opsbrain.ingest.readouts import quiet_field, readout_line
from opsbrain.ingest.recovered import RecoveredScan, recovery_cue
from opsbrain.ingest.runnotices import EXIT_NOTICES
from opsbrain.ingest.stopped import STOP_CUES, StopScan
from opsbrain.ingest.surface import PROC_PREFIX
from opsbrain.ingest.testruns import AtkSummaryScan, outcome_words
from opsbrain.ingest.unraisable import CUE as UNRAISABLE_CUE
from opsbrain.ingest.unraisable import UnraisableScan
from opsbrain.ingest.where import host_in
from opsbrain.ingest.wrappers import FENCE
from opsbrain.kb.texttokens import line_tokens, signal_tokens
from opsbrain.lazyre import lazy_compile

MAX_VIEW_LINES = 300
"""reason: a pasted excerpt (2-60 lines in the corpus) is read whole; past 300 distinct lines only the lines with an
error word (:data:`ERROR_WORDS`) are looked at, and 300 of them kept: bounded time and memory on any input. (A long
input is read by its lines that state a failure: :data:`LONG_INPUT`.)"""
SYSLOG_HEAD = lazy_compile(r"^(?:[A-Z][a-z]{2}|\d{1,2}月)\s+\d{1,2}\s+\d\d:\d\d:\d\d\s+\S+\s+[^\s:\[]+(?:\[\d+\])?:\s")
"""A syslog / journal head (``May  1 10:11:12 node-39 kernel: ``, the zh locale's ``5月 01 ...``): the host and the
program it names are the collection's, not the failure's words."""
FAN_OUT_HEAD = lazy_compile(r"^(?:[A-Za-z0-9][\w-]*(?:\.[\w-]+)+|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w-]*-\d+): ")
"""A fan-out tool's head (pdsh, ``ansible -m shell``: ``gpu-srv42.dc1.example.com: <line>``, ``10.0.0.7: ``,
``worker-3: ``)."""
PROC_HEAD = lazy_compile(rf"^(?:{PROC_PREFIX}){{1,3}}")
"""The process prefix vLLM's and Ray's workers put before a logger's head (``(EngineCore pid=970) INFO 05-12 ...``,
``(RayWorkerWrapper pid=300872, ip=10.0.0.2) ``): where the reader left it on the line (the line behind a fan-out
tool's head), the level after it is still the line's (session 54: a pdsh copy of vLLM Ascend's exit lines read its
INFO ``Shutdown initiated (timeout=0)`` as a failure)."""
MARKDOWN_FENCE = FENCE
"""A Markdown code fence around a paste (GitHub's issue templates, vllm-ascend's bug template: a ```` ```text ````
line before the log and a ```` ``` ```` after it; CommonMark 0.31 4.5 "Fenced code blocks"): the wrapper's, not the
log's, so not read (session 44: the fence's info string ``text`` was a token of the text model, and a fenced dev
excerpt, b39b-04, read framework_error 0.43 where bare it read driver_firmware_error; tests/test_real_wrappers.py)."""
_TAGS = r"^\s*(?:\[(?!(?:ERROR|ERR|FATAL|CRITICAL|WARN)\b)[^\]\[]{1,40}\]:?\s*){0,3}"
"""Up to three bracketed tags before a line's bracketed level, none of them a level: a component and a time
(the CANN installers' ``[Runtime] [2022-11-30 00:22:53] [INFO]: ...``, /var/log/ascend_seclog/ascend_install.log)."""
_RANK_HEAD = r"(?:\[Rank \d+ \| Local Rank \d+\] )?"
"""MindSpeed's head before Python logging's time and level (``[Rank {RANK} | Local Rank {LOCAL_RANK}] %(asctime)s
%(levelname)s [%(name)s:%(lineno)d] => %(message)s``, Ascend/MindSpeed mindspeed/log_config.py @030ccc9c; verl on
Ascend with MindSpeed prints it: verl-ascend-recipe's 100-step log, session 50, tester50d)."""
BELOW_WARNING = lazy_compile(_TAGS + r"\[(?:INFO|DEBUG|TRACE|EVENT)\]|^\s*(?:INFO|DEBUG|TRACE)\b|\[(?:INFO|DEBUG)\]\s*$"
                           r"|\b(?:INFO|DEBUG)\s+\d\d-\d\d \d\d:\d\d:\d\d\b"
                           r"|^" + _RANK_HEAD + r"\d{4}-\d\d-\d\d[ T][\d:.,]+\s+(?:INFO|DEBUG)\b")
"""A line (or the head a paste put before it) stated at INFO / DEBUG level: a plog's ``[INFO] RUNTIME(...)``, vLLM's
``INFO 05-01 10:11:12 [file:line]``, Python logging's ``2024-05-01 10:11:12,345 INFO``: a start-up's record around
the failure, not the failure's words."""
WARNING_STATED = lazy_compile(_TAGS + r"\[WARN(?:ING)?\]|^\s*WARN(?:ING)?\b|\bWARN(?:ING)?\s+\d\d-\d\d \d\d:\d\d:\d\d\b"
                            r"|^" + _RANK_HEAD + r"\d{4}-\d\d-\d\d[ T][\d:.,]+\s+WARN(?:ING)?\b|\[WARN(?:ING)?\]\s*$"
                            r"|^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}: W \S+:\d+\] "
                            r"|" + _TAGS + r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - WARN(?:ING)? - "
                            r"|^\s*(?:\[rank\d+\]:)?\[W(?:\d{3,4} [\d:.]++)?\s*[\w.-]+:\d+\]"
                            r"|^(?:\[rank\d+\]:\s*)?\S+\.py:\d+: \w*Warning: "
                            r"|^\s*(?:\[rank\d+\]:\s*)?warnings\.warn(?:_explicit)?\(")
"""A line (or the head a paste put before it) stated at WARNING level, in the shapes of :data:`BELOW_WARNING`, and
PyTorch's ``TORCH_WARN`` head (c10's ``[W compiler_depend.ts:133] Warning: ...``, torch_npu's ``Device do not support
double dtype now``), TensorFlow's C++ head ``2021-09-14 11:34:38.004116: W file.cc:98] `` (``"%s.%06d: %c %s:%d]"`` with
a level of ``"IWEF"``, tensorflow/core/platform/default/logging.cc; the Ascend TF adapter's ``W tf_adapter/...`` lines
too), Python logging's `` - WARNING - `` field (``'%(asctime)s - %(levelname)s - %(message)s'``, the ModelArts
launcher's lines after their ``[Modelarts Service Log]`` tag, after tags only: review49, a record a message relays is
not the line's level; session 49, tester49b: TensorFlow's ``Failed to find bogomips ... cannot determine CPU frequency``
warning made two healthy ModelZoo TF1.15 training logs read config_error 0.60) and Python's warnings module line
(``.../storage.py:38: UserWarning: TypedStorage is deprecated``; session 30, tester Z's healthy run read framework_error
0.60 from such lines) with the source line that module echoes indented below it, the ``warnings.warn(...)`` call
(CPython Lib/warnings.py ``_formatwarnmsg_impl``; session 46, tester46h: MindSpeed's ``warnings.warn("Currently, it is
not supported to Cast shard fp32 main params to fp8 model params")`` in a resumed Pod's log read framework_error 0.60).
The warnings module's line is read in every category, as the parsers read it
(:data:`opsbrain.ingest.parsers.framework.RE_WARNING`): the category is the warning class's name, any ``Warning``
subclass (torch.jit's ``TracerWarning``, torch_npu ``transfer_to_npu``'s ``ImportWarning``); and these heads after the
``[rankN]:`` prefix c10 and torchrun put on a ranked process's lines (session 48, tester48f: a passing NPU test run's
pytest warnings summary, transformers#27146, read framework_error 0.60 from a ``TracerWarning: ... Detailed error:``
line; the MindCluster guide's ``[rank16]:[W908 ...compiler_depend.ts:335] Warning: Cannot create tensor ...`` counted as
a failing line). c10's head dates the line as month * 100 + day with no zero padding (pytorch/pytorch
c10/util/Logging.cpp, ``MessageLogger``: ``(timeinfo->tm_mon + 1) * 100 + timeinfo->tm_mday``), so January to September
give three digits: ``[W701 15:18:55.475521766 socket.cpp:207]`` (sgl-project/sglang#29853) as well as ``[W1020
17:16:14.043165378 compiler_depend.ts:164]`` (safetensors/safetensors#661); session 40, tester40e: only four were read,
and a healthy sglang start read config_error 0.60 from c10d's hostname warning. Its words are read, but an error word on
it does not say the program failed (:func:`shows_failure`): an installer's ``[WARNING]: Cannot find the install path of
driver.`` goes on installing."""
ERROR_WORDS = lazy_compile(
    r"error|fail|exception|traceback|fatal|abort|time(?:d )?out|denied|not found|invalid|cannot|can't|unable|killed"
    r"|refused|no such|not support|unsupported|mismatch|out of memory|\boom\b|\b(?:E[A-Z]\d{4}|ERR\d{5})\b"
    r"|illegal|corrupt|\berr\b|exhausted|exceed|core dumped|segmentation fault|panic|not usable|insufficient"
    r"|unreachable", re.I)
_ERROR_LEVEL = (
    _TAGS + r"\[(?:ERROR|ERR|FATAL|CRITICAL)\]|^\s*(?:ERROR|FATAL|CRITICAL)\b"
    r"|\b(?:ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d\b|^" + _RANK_HEAD
    + r"\d{4}-\d\d-\d\d[ T][\d:.,]+\s+(?:ERROR|CRITICAL|FATAL)\b"
    r"|\s-\s(?:ERROR|CRITICAL)\s-\s|\[(?:ERROR|FATAL)\]\s*$|^\s*\[[EF]\d{3,4} [\d:.]+\s*[\w.-]+:\d+\]"
    r"|^[EF]\d{4} \d\d:\d\d:\d\d")
ERROR_LEVEL = lazy_compile(_ERROR_LEVEL)
"""A line (or the head a reader took off it) stated at ERROR level or above, in the level shapes of
:data:`FAILURE_STATED` (its first alternatives): what the program's logger said of the line, whatever its words."""
FAILURE_STATED = lazy_compile(
    _ERROR_LEVEL
    + r"|Traceback \(most recent call last\)|\b(?:[A-Z]\w*)?(?:Error|Exception)\b: |Exception raised from "
    r"|terminate called after throwing|\bwhat\(\):"
    r"|(?i:\bexit(?:ed|s)?\b[\w ]{0,20}?\b(?:code|status)\b\s*[:=]?\s*-?[1-9]|\bexitcode\s*[:=]\s*-?[1-9]"
    r"|non-zero exit)|\bKilled\b|(?i:core dumped|segmentation fault)|\bSIG(?:KILL|SEGV|ABRT|BUS|ILL|FPE)\b"
    r"|\b(?:E[A-Z]\d{4}|ERR\d{5})\b"
    r"|(?i:\b(?:error|err|ret)[ _]?(?:code|no|num)?\s*[=:(\[]\s*(?:0x0*[1-9a-f][0-9a-f]*|-?[1-9]\d*)\b"
    r"|\bcode\s+-?[1-9]\d{2,}\b)")
"""A line (or the head a paste put before it) that states a failure, not only names one: stated at ERROR level or
above (the shapes of :data:`BELOW_WARNING`; glog's ``E0101 12:00:00.000000 1 file.cc:12]`` head,
google.github.io/glog and google/glog#530; c10's ``[E828 01:40:01.863734538 compiler_depend.ts:429]``), an exception
raised (Python's ``Traceback (most recent call last):`` and ``RuntimeError: ...``, c10's ``Exception raised from
OperationSetup at ...``, libstdc++'s ``terminate called after throwing an instance of``), the process ended (an exit
code or status not 0, torchrun's ``exitcode  : 1 (pid: 23273)``, pytorch.org/docs/stable/elastic/errors.html;
``Killed``, a fatal signal, a core dump) or an error code (Ascend's ``EZ1009``/``ERR00100``, a non-zero ``ret=``,
``errNo[0x...]``, ``errorCode=0x2a``, ``failed with code 507899``). Which lines of a long input count as a failure's
(:data:`LONG_INPUT`); ``npu not support graph capture`` (an error word, no level, in a healthy vLLM serve log) is
not one."""
LONG_INPUT = 60
"""reason: the text model was fitted on excerpts of 2-60 lines a person cut around a failure, where every line is the
failure's context; on an input of more distinct lines (a whole log; its lines stated below WARNING count too) most
lines are the run going on. There the fallback answers only where a line states the failure (:data:`FAILURE_STATED`,
not only an error word: :meth:`TextView.fails`) and reads only those lines and the :data:`NEAR_LINES` kept lines on
either side of each (:meth:`TextView.lines`). Session 43 (textgate43), before -> after on the same minute, same models:
``opsbrain kb eval --real tests/data/real_logs --split dev`` and ``--cross-fit thread|project``: no excerpt's class or
confidence changed (firm/likely agreement 0.8946 / 0.7803 / 0.7960, confident-wrong 0.0021, abstention 0.0821 /
0.0632 / 0.0611; no dev excerpt is long by this count); ``--healthy tests/data/healthy_logs`` 3/74 false alarms, the
same rows; ``--healthy tests/data/blind/blind43_healthy.yaml`` 1/16 -> 0/16 (b43d-01, a 119-line healthy vllm-ascend
serve log, read framework_error 0.56 from one unlevelled print, ``npu not support graph capture``); ``--real
tests/data/blind/blind43.yaml --split all`` unchanged (0.7059); ``benchmarks/bench_long_healthy.py`` (17 healthy
inputs of 119-507 lines built from blind43_healthy.yaml, and each of blind43.yaml's 17 failures at their end): healthy
false alarms 16/17 -> 0/17 (all by the text fallback before), a failure at the end read as it is alone 204/289 ->
280/289, right where right alone 150/204 -> 195/204, right in all 166/289 -> 195/289."""
NEAR_LINES = 3
"""reason: the kept lines read on either side of a stated line of a long input (a 7-line window, about the size of the
failure excerpts session 43's blind testers cut: 2-11 lines but one, median 6). On bench_long_healthy.py (17 failures
x 17 long prefixes), right where right alone, of 204: the stated lines alone 170, with 1 line either side 182, 2: 178,
3: 195, 5: 187; every line read (before) 150. Measured on 17 blind excerpts: a coarse choice, not a fit."""
_has_error_word = fast_search(ERROR_WORDS)
has_error_word = _has_error_word
"""ERROR_WORDS.search, by RE2 when installed: the one regex every line of a large log meets (~2 us, not ~100 us)."""
error_word_lines = fast_lines_with(ERROR_WORDS)
"""The indexes of a block's lines with an error word, one scan a block (ERROR_WORDS holds no anchor and never
matches a newline): the bundle reader's lines read without a record (:class:`opsbrain.bundle.records.Light`)."""
THRESHOLD = 0.3
"""reason: chosen on the dev split's chronological check (trained on earlier parts, scored on parts I-P): at C=10
the fallback's precision is 0.67 at 0.3 (0.65 at 0.0-0.2, 0.73 at 0.4 with half the coverage), and 6 of 14 dev
excerpts labelled ``other`` stay abstentions at 0.3 (1 at 0.2); parts Q-T were the check (0.65 precision at 0.3).
Session 17, class weights as in the corpus (:data:`opsbrain.kb.realtext_fit.BALANCED`), parts I-U: agreement 0.600 at
0.3, 0.545 at 0.4, 0.480 at 0.5 (an ``other`` excerpt right when abstained); 0.3 kept. The cost, stated: out of part,
the unbalanced model abstains on 1 of 16 ``other`` excerpts (the balanced one on more: the 6 of 14 above), so on an
input no class of ours fits the fallback answers almost always, at <= :data:`CONFIDENCE_CAP`.
Session 32 (dev, benchmarks/textgen_variants.py; right / answered / precision of 318 in the chronological check and of
404 in project-grouped 5-fold CV): 0.2: 223/315/0.708, 289/399/0.724; 0.3: 223/312/0.715, 289/397/0.728; 0.35:
220/305/0.721, 285/391/0.729; 0.4: 216/298/0.725, 281/380/0.739; 0.5: 193/254/0.760, 259/334/0.775. Higher buys
precision with right answers; 0.3 kept."""
CONFIDENCE_CAP = 0.6
"""reason: the fallback's measured precision (0.65-0.67 out of part) bounds how sure it may say it is; far below the
0.8 confident-wrong bar."""
ANSWERABLE = ("config_error", "framework_error", "npu_oom", "collective_timeout_sw", "driver_firmware_error")
"""reason: the classes the corpus holds enough real excerpts of (9-131 each in dev) and whose cause is a program, its
set-up or its installation; a hardware class is answered from its documented signatures, never from words."""
SECOND_OPINION_BELOW = 0.55
"""An engine answer of an :data:`ANSWERABLE` class below this confidence is weak: the words may overrule it.
reason (session 17, dev only; ``opsbrain kb text-train`` prints it and keeps it in the model's
``meta.second_opinion_check``): on parts I-Y, each part's dev excerpts read by a text model of the earlier parts
beside the shipped engine's answers without the fallback (in-sample on I-U, so biased to the engine), overruling
answers below 0.55 where the text read another class at >= 0.4 changed 18 of 241 answers, 9 to right and 7 from right;
other cut-offs, by a script: below 0.6, +10 -9; below 0.65, +10 -14. On parts V-X alone, unseen by the
engine and the text model when measured, below 0.55: +3 -1 of 30. A small gain, about 0.56-0.75 right per change;
the guards of :func:`opsbrain.diagnosis.oneclick.text_fallback` (documented matches) were not in the simulation."""
SECOND_OPINION_AT = 0.4
"""The text model's probability from which it may overrule a weak engine answer. reason: above :data:`THRESHOLD`
(a second opinion against an answer needs more than an answer where there is none); in the simulation above, 0.5
instead of 0.4 changed 15 answers, +7 -6 (below 0.55), no better per change."""
EVIDENCE_LINES = 3


def stated_error(head: str) -> bool:
    """Whether the head a reader took off a line (a logger's ``ERROR 12-04 17:33:31 [worker_base.py:275]``, a
    plog's ``[ERROR] RUNTIME(...)``) states it at ERROR level or above: the line is a failure's, though its own words
    (a traceback's frame, ``File "...", line 116, in decorate_context``) hold no error word. Session 54: vLLM's and
    Ray's workers log an exception's traceback one line a record, each at ERROR (``logger.exception``); cut before
    the exception's own line, such an excerpt gave the fallback no failing line to read."""
    return bool(head) and ERROR_LEVEL.search(head) is not None


MAX_DONE = 100_000
"""reason: bounds :attr:`TextView._done` (a few MB); past it, lines are looked at every time, as before."""


class TextView:
    """A line hook keeping what the fallback reads: the first :data:`MAX_VIEW_LINES` distinct lines and, apart, the
    first distinct lines with an error word, and those that state a failure with the lines around them; :meth:`lines`
    gives the first set on an excerpt, the last on a long input (:data:`LONG_INPUT`). A syslog /
    journal or fan-out head and the host a line names are taken off; a line stated below WARNING
    (:data:`BELOW_WARNING`, on the line or in the head a paste put before it) is left out."""

    def __init__(self, limit: int = MAX_VIEW_LINES) -> None:
        self.limit = limit
        self.first: list[tuple[str | None, int, str]] = []
        self.errors: list[tuple[str | None, int, str]] = []
        self._failing: dict[tuple[str | None, int], tuple[bool, bool]] = {}
        """Error lines not stated at WARNING level (:data:`WARNING_STATED`): whether each is a readout's field, and
        whether it states the failure (:attr:`failing`, :meth:`fails_beyond`)."""
        self.stated: list[tuple[str | None, int, str]] = []
        """The failing lines that state the failure (:data:`FAILURE_STATED`)."""
        self.near: list[tuple[str | None, int, str]] = []
        """The stated lines with the kept lines around them (:data:`NEAR_LINES` before and after each)."""
        self._recent: deque[tuple[str | None, int, str]] = deque(maxlen=NEAR_LINES)
        self._after = 0
        self.handed = 0
        """Distinct lines handed over (a line stated below WARNING too), to tell a long input (:attr:`long`)."""
        self._seen: set[str] = set()
        self._done: set[tuple[str, str]] = set()
        """(line, head) already looked at: looking again changes nothing (a line kept is seen, one left out is left
        out again, as the lists only grow) but :attr:`overflow`; a console repeats its lines thousands of times."""
        self.overflow = False
        self.error_stated: set[tuple[str | None, int]] = set()
        """The failing lines stated at ERROR, by the head the reader took off (:func:`stated_error`) or by their own
        level (:data:`ERROR_LEVEL`): a logger's record of an exception, its traceback header among them."""
        self._recovered: dict[str | None, RecoveredScan] = {}
        self._killed: dict[str | None, KilledTracebackScan] = {}
        self._stopped: dict[str | None, StopScan] = {}
        self._atk: dict[str | None, AtkSummaryScan] = {}
        self._ignored: dict[str | None, UnraisableScan] = {}
        self._held: dict[str | None, dict[int, tuple[str, str]]] = {}
        """The open leftover block's lines of each file (line number: line, head), until its exception tells."""

    def __call__(self, line: str, file: str | None, line_no: int, head: str = "") -> None:
        # every scan sees every line (review49: a line one of them left out still ends another's block)
        leave = False
        if recovery_cue(line, self._recovered.get(file)) and (
                back := self._recovered.setdefault(file, RecoveredScan()).step(line_no, line)):
            self._retract({(file, n) for n in back})  # a failure the program recovered from (RecoveredScan)
            leave = line_no in back  # a runtime sample's verdict that it passed: not the failure's words
        if (TRACEBACK_HEAD in line or SELF_KILL_CUE in line or OTHER_FAILURES_CUE in line
                or file in self._killed) and (
                back := self._killed.setdefault(file, KilledTracebackScan()).step(line_no, line)):
            self._retract({(file, n) for n in back})  # a traceback that carried a kill's report (KilledTracebackScan)
            leave = leave or line_no in back  # the shell's Killed of a kill the program announced
        ignored = (UNRAISABLE_CUE in line or file in self._ignored) and \
            self._ignored.setdefault(file, UnraisableScan()).step(line_no, line)  # CPython printed it and went on
        if file in self._stopped or any(c in line for c in STOP_CUES):
            stop = self._stopped.setdefault(file, StopScan())
            held = self._held.setdefault(file, {})
            if stop.step(line_no, line):  # a stop's leftover once the log showed the stop (ingest.stopped)
                if line_no in stop.block:
                    held[line_no] = (line, head)  # read after all if the block's exception is not the teardown's
                else:
                    held.clear()
                return
            for n in stop.released:  # the block was another failure's: its lines are read, in order
                if n in held:
                    self._take(held[n][0], file, n, held[n][1])
            held.clear()
        # ATK's summary table: its head, rules and the rows that hold no failure (ingest.testruns)
        atk = ("总用例数" in line or file in self._atk) and self._atk.setdefault(file, AtkSummaryScan()).step(line)
        if ignored or atk:
            return  # (ignored: an exception CPython printed and went on, ingest.unraisable)
        if not leave:
            self._take(line, file, line_no, head)

    def _take(self, line: str, file: str | None, line_no: int, head: str) -> None:
        """A line no scan left out: kept, counted, stated as the lists say (:meth:`__call__`)."""
        full = len(self.first) >= self.limit
        if full:  # past a paste's size only error lines are kept: the common line of a large log costs one search
            self.overflow = True
        if (line, head) in self._done or MARKDOWN_FENCE.match(line.strip()):
            return  # (a fence is not read: nor counted toward a long input, session 60, probe60a)
        self.handed += 1
        if len(self._done) < MAX_DONE:
            self._done.add((line, head))
        if full and (len(self.errors) >= self.limit or (_has_error_word(line) is None and not stated_error(head))):
            return
        text = FAN_OUT_HEAD.sub("", SYSLOG_HEAD.sub("", line.strip(), count=1), count=1)
        if text and (host := host_in(text)):
            text = text.replace(host, " ").strip()  # a host's name is the collection's, not the failure's words
        text = outcome_words(text)  # a test runner's record of a passing test: its name is no failure's words
        if _has_error_word(text) is not None and not quiet_field(text, _has_error_word):
            text = absent_faults_removed(text)  # faults a report says were absent: no failing words (a readout's
            # field that says so, dmidecode's "Error Information Handle: No Error", is quiet as it is: review51)
        if not text or text in self._seen or BELOW_WARNING.search(head) or BELOW_WARNING.match(text) or \
                (text[0] == "(" and BELOW_WARNING.match(PROC_HEAD.sub("", text, count=1))) or \
                BENIGN.search(text) or SELF_FAILURE.search(text) or MARKDOWN_FENCE.match(text):
            return
        err = (len(self.errors) < self.limit and (_has_error_word(text) is not None or stated_error(head))
               and not SETTING_LINE.match(text) and not EXIT_NOTICES.search(text)
               and not COUNTER_LINE.match(text) and not quiet_field(text, _has_error_word)
               and not option_words_only(text, _has_error_word))
        if full and not err:
            return
        self._seen.add(text)
        row = (file, line_no, text)
        if not full:
            self.first.append(row)
        stated = False
        if err:
            self.errors.append((file, line_no, text))
            if not (WARNING_STATED.search(head) or WARNING_STATED.match(text)):
                if stated_error(head) or ERROR_LEVEL.search(text) is not None:
                    self.error_stated.add(row[:2])
                if FAILURE_STATED.search(head) or FAILURE_STATED.search(text):
                    self.stated.append(row)
                    stated = True
                self._failing[row[:2]] = (readout_line(text), stated)
        if len(self.near) < self.limit:
            if stated:
                self.near.extend(self._recent)
                self._recent.clear()
                self.near.append(row)
                self._after = NEAR_LINES
            elif self._after > 0:
                self.near.append(row)
                self._after -= 1
            else:
                self._recent.append(row)

    def _retract(self, gone: set[tuple[str | None, int]]) -> None:
        """The lines ``gone`` (file, line number) left out, as if never handed over."""
        for rows in (self.first, self.errors, self.stated, self.near):
            self._seen.difference_update(t for f, n, t in rows if (f, n) in gone)
            rows[:] = [r for r in rows if r[:2] not in gone]
        self._recent = deque((r for r in self._recent if r[:2] not in gone), maxlen=NEAR_LINES)
        for key in gone:
            self._failing.pop(key, None)

    @property
    def failing(self) -> int:
        """How many error lines are not stated at WARNING level."""
        return len(self._failing)

    def failing_lines(self) -> set[tuple[str | None, int]]:
        """The (file, line number) of such lines (:func:`opsbrain.diagnosis.wenton.went_on` asks each file, or each
        file an input of several files' lines holds, whether the program went on)."""
        return set(self._failing)

    @property
    def full(self) -> bool:
        """Whether it holds its first :attr:`limit` lines: past that, a line without an error word changes nothing
        but :attr:`overflow` (:meth:`passed`)."""
        return len(self.first) >= self.limit

    def passed(self) -> None:
        """A line without an error word went by a full view (what looking at it would do: session 37, a bundle's
        lines whose texts the reader did not keep, :mod:`opsbrain.bundle.viewlines`)."""
        self.handed += 1
        if self.full:
            self.overflow = True

    @property
    def long(self) -> bool:
        """More lines than an excerpt the model was fitted on (:data:`LONG_INPUT`)."""
        return self.overflow or self.handed > LONG_INPUT

    def fails(self) -> bool:
        """Whether a line says a program failed: on an excerpt, an error line not stated at WARNING level; on a long
        input, one that states the failure (:data:`FAILURE_STATED`)."""
        return bool(self.stated) if self.long else self.failing > 0

    def fails_beyond(self) -> bool:
        """As :meth:`fails`, a status readout's field aside (``net health status: Socket failed``: a state a tool
        read, not a program saying it failed; :mod:`opsbrain.ingest.readouts`), for the readout cap
        (:mod:`opsbrain.diagnosis.statecap`; session 44, bundle44)."""
        stated = [s for r, s in self._failing.values() if r]  # of the failing lines that are a readout's field
        return len(self.stated) > sum(stated) if self.long else self.failing > len(stated)

    def lines(self) -> list[tuple[str | None, int, str]]:
        """The lines the model reads: an excerpt's whole (its first :attr:`limit`); a long input's stated lines and
        their neighbours (:data:`LONG_INPUT`)."""
        return self.near if self.long else self.first


def excerpt_view(text: str, limit: int = MAX_VIEW_LINES) -> str:
    """The text the fallback reads of an excerpt (the same :class:`TextView` rule, on each line as the reader hands
    it over: without the heads :func:`opsbrain.ingest.surface.plain` takes off, nor a collector's head on every line,
    :mod:`opsbrain.ingest.wrappers`; for training)."""
    from opsbrain.ingest.pasterows import WRAP_LOOK
    from opsbrain.ingest.wrappers import fence_prose, plain_under, shared_head

    view = TextView(limit)
    rows = text.splitlines()
    column = shared_head(rows[:WRAP_LOOK])  # a collector's head on every line, as the reader takes it off
    prose = fence_prose(rows[:WRAP_LOOK])  # a paste's words around its fences, which the reader does not read
    for i, raw in enumerate(rows, 1):
        if i - 1 in prose:
            continue
        line, head = plain_under(raw, column)
        view(line, None, i, head)
    return "\n".join(t for _f, _n, t in view.lines())


@dataclass(frozen=True)
class TextAnswer:
    cls: str
    confidence: float
    probability: float
    alternatives: list[tuple[str, float]]
    lines: list[tuple[str | None, int, str]]
    why: str


def answer(view: TextView, model: TextModel | None = None, kinds: Iterable[str] = ()) -> TextAnswer | None:
    """The class the input's words and signal kinds (``kinds``: those the ingestion layer read from the whole input,
    as the model was fitted: :func:`opsbrain.kb.texttokens.signal_tokens`) point to, or None (no model, no line, a
    class not answerable, below the threshold). The cited lines are those whose words weigh most. The hardware gate is
    the caller's (:func:`hardware_free`)."""
    model = model if model is not None else served_model()
    lines = view.lines()
    if model is None or not lines:
        return None
    per_line = [line_tokens(t) for _f, _n, t in lines]
    sig = signal_tokens(kinds, int(model.meta.get("signal_repeat") or 0))
    probs = model.proba([t for toks in per_line for t in toks] + sig)
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    best, p = model.classes[order[0]], probs[order[0]]
    if best not in ANSWERABLE or p < THRESHOLD:
        return None
    weights = sorted(((model.weight(toks, best), i) for i, toks in enumerate(per_line)), key=lambda w: (-w[0], w[1]))
    cited = sorted(i for w, i in weights[:EVIDENCE_LINES] if w > 0) or [weights[0][1]]
    failing = {(f, n) for f, n, _t in view.errors}
    first = next((i for i, ln in enumerate(lines) if ln[:2] in failing), None)
    if first is not None and not any(lines[i][:2] in failing for i in cited):
        # the line that says the program failed is cited too, in place of the least weighty one
        cited = sorted([first] + [i for w, i in weights[:EVIDENCE_LINES - 1] if w > 0])
    alts = [(model.classes[i], probs[i]) for i in order[1:] if probs[i] > 0.01 and model.classes[i] != "other"][:3]
    n = f"{model.meta.get('excerpts', '?')} real dev excerpts" + (
        f" and {k} blind-set ones" if (k := model.meta.get("also_excerpts")) else "")
    kinds_read = " and its signal kinds" if sig and model.meta.get("signal_kinds") else ""
    why = (f"no hardware evidence; the words of {len(lines)} line(s){kinds_read} read as {best} by a text model "
           f"learned from {n} (probability {p:.2f}, threshold {THRESHOLD}; out-of-part precision "
           f"{model.meta.get('precision_out_of_part', '?')})")
    return TextAnswer(best, min(p, CONFIDENCE_CAP), p, alts, [lines[i] for i in cited], why)


def shows_failure(signals: list[Any], view: TextView) -> bool:
    """Whether the input says a program failed: one of its signals does (error level or an exception the program
    did not survive, whatever level the line states or not; a bare traceback header, as of a run stopped with Ctrl-C,
    does not, nor a state that is no fault, a link up), or, where it gives no signal but log levels, one of its lines
    not stated at WARNING level carries an error word (on a long input: states a failure, :meth:`TextView.fails`).
    An input whose signals say nothing failed (a warning, an exception reported and survived) is not the fallback's
    to answer."""
    from opsbrain.diagnosis.triage import NOT_A_FAILURE, NOT_FAULTS, survived

    own = [s for s in signals if not s.kind.startswith(("level:", "vendor:"))]
    if own:
        if any(s.severity >= 1 and s.kind not in NOT_A_FAILURE and not survived(s)
               and not any(s.kind.endswith(x) or s.kind.startswith(x) for x in NOT_FAULTS) for s in own):
            return True
        # a traceback header and nothing else, the header's own line stated at ERROR: a logger's record of an
        # exception (vLLM's ``ERROR ... [multiproc_executor.py:751] Traceback (most recent call last):``), cut before
        # the exception's own line; not a run stopped with Ctrl-C, nor CPython's "Exception ignored in" (session 54)
        return all(s.kind in NOT_A_FAILURE for s in own) and any((s.file, s.line_no) in view.error_stated for s in own)
    return view.fails()


def hardware_free(feats: dict[str, float]) -> bool:
    """The software triage's gate: no signal names or supports a class outside the software family and
    :data:`ANSWERABLE`, and no hardware or fabric component reports a fault the knowledge base gives no role."""
    from opsbrain.diagnosis.knowledge import default_table
    from opsbrain.diagnosis.triage import NAMING, _roles, software_classes, unroled_hardware
    from opsbrain.kb.compiled import compiled_kb

    allowed = software_classes(compiled_kb()) | frozenset(ANSWERABLE)
    if any(c not in allowed and r in NAMING for c, r in _roles(feats)):
        return False
    return not unroled_hardware(feats, default_table().of)
