"""Readouts: lines that print a state a tool read, not an event, an alarm or an error (session 44, conf44).

A status command prints what it finds now: ``hccn_tool -i N -link -g`` the port's ``link status: DOWN``,
``-net_health -g`` ``net health status: Receive timeout``, ``-optical -g`` ``present : not present`` or a lane's
``Rx Los Flag : 0xff``, ``-ping -g`` ``3 packets transmitted, 0 received, 100.00% packet loss`` (session 46), the
Ascend 950's ``-dev_info`` port table a ``DOWN`` row, ``npu-smi info`` a Health column
other than OK, npu-exporter's page the gauges that repeat them (``npu_chip_info_link_status 0``). The ingestion layer
gives each its signal (:mod:`opsbrain.ingest.parsers.hccn`, :mod:`~opsbrain.ingest.parsers.device`,
:mod:`opsbrain.ingest.exporterpage`), the same kinds the events of the same facts give (``hccn:down`` is also the
port's LINK DOWN history record). But a state names no cause: a port without an optical module, disabled, or never
cabled reads ``DOWN`` as a failed one does (blind43 b43c-01: a single 910B3 node built without modules, whose job
failed on its rank table). :func:`is_readout` tells such a signal from one whose line states the event, so that the
diagnosis can weigh an answer that rests on readouts alone (:mod:`opsbrain.diagnosis.statecap`).

A readout is the bare field as the tool prints it (the whole line, after the collector's heads): a line that says the
same inside a log record (``[ERROR] ... link status: DOWN``) is a program reporting it, not a readout, and so are the
link history's time-stamped records, a device's fault event and an ``Error Code`` line.

Sources of the forms: ``link status: DOWN`` Ascend/mind-cluster @22bb3d98 component/ascend-common/devmanager/hccn/
hccn_tool.go ``GetNPULinkStatus`` ("success result example is: link status: DOWN"); ``net health status`` and the
optical fields, the MindCluster FaultDiag guide's npu_info_before.txt
(https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/mindxdlFDUG021.html); the 950
port table and npu-smi's Health column as their parsers cite them; the exporter's series,
component/npu-exporter/collector/metrics/collector_for_network.go and collector_for_npu.go (same commit).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from opsbrain.ingest.parsers.device import RE_SMI_HEALTH
from opsbrain.ingest.parsers.hccn import RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS, RE_PING_LOST, RE_PORT_TABLE
from opsbrain.ingest.signal import Signal
from opsbrain.lazyre import lazy_compile

RE_LINK_FIELD = lazy_compile(r"^\s*link status\s*:\s*(?:UP|DOWN)\s*$", re.I)
"""``hccn_tool -i N -link -g``'s whole answer."""
RE_HEALTH_FIELD = lazy_compile(r"^\s*net health status\s*:\s*+[^:\[\]]+$", re.I)
"""``hccn_tool -i N -net_health -g``'s whole answer (``net health status: Receive timeout``). The spaces after the
colon are read possessively: the value's repeat reads spaces too, and splitting a run of them between the two was
quadratic (review44: 0.12 s for one 4 KB line of spaces before a colon)."""
RE_GAUGE = lazy_compile(r"^\s*npu_chip_info_(?:link|network|health)_status\b")
"""An npu-exporter state gauge's sample (``npu_chip_info_link_status{id="4",...} 0``), as its page quotes it."""

READOUT_KINDS = frozenset({"hccn:down", "hccn:net_health_fail", "hccn:optical_absent", "hccn:optical_loss",
                           "smi:warning", "smi:alarm", "smi:critical", "smi:abnormal", "smi:unknown"})
"""The kinds a readout gives (the same kinds may come from an event's line: :func:`is_readout` reads the line)."""
_FIELDS = (RE_LINK_FIELD, RE_HEALTH_FIELD, RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS, RE_PORT_TABLE, RE_SMI_HEALTH, RE_GAUGE,
           RE_PING_LOST)


def readout_line(text: str) -> bool:
    """Whether a line is a status readout's field (module docstring)."""
    return any(r.search(text) for r in _FIELDS)


def is_readout(s: Signal) -> bool:
    """Whether the signal's line is a status readout (module docstring): a state, not a stated event."""
    return s.kind in READOUT_KINDS and readout_line(s.text)


RE_NAMED_FIELD = lazy_compile(r"^\s*(?P<name>[A-Za-z][\w()/.-]*(?: [A-Za-z(][\w()/.-]*){0,7})\s*:\s*(?P<value>\S.*)$")
"""A tool's ``Field Name: value`` line: a name of up to eight words (a letter first, no colon), a colon, a value; a
tab or spaces before it and padding before the colon as tools print them (dmidecode's ``\\tError Information Handle:
Not Provided``, npu-smi's ``Error Code                     : 80E01801``)."""
ERROR_NOUNS = frozenset({"error", "errors", "err", "failure", "failures", "timeout", "timeouts", "exception",
                         "exceptions"})
"""The error words a field's name may hold: what it is about (``Error Correction Type``, ``rx_crc_errors``), not a
verb that says something failed (``Failed to load model: ...`` is a sentence, not a field)."""
NO_ERRORS = lazy_compile(r"^no errors?(?: (?:detected|found|reported|occurred|logged))?\.?$", re.I)
"""A value that says no error is there: dmidecode's ``No errors detected`` (SMBIOS type 32 boot status 0) and
``No Error`` (an error information handle 0xFFFF)."""
FAILED_STATE = lazy_compile(r"\b(?:critical|fatal|non-recoverable|abnormal|alarm|fault|faulty|degraded|warning|bad"
                            r"|lost|down|offline|unhealthy|nok)\b", re.I)
"""A value that is a failed state without an error word (``Critical``, dmidecode's chassis ``Non-recoverable``,
npu-smi's ``Alarm``)."""
NUMBER = lazy_compile(r"^[-+]?(?:0x)?([0-9a-fA-F]+)$")
"""A value that is a code or a count (``80E01801``, ``0x0045``, ``12``; :func:`nonzero_code`)."""
DESCRIBES_ERROR = frozenset({"reason", "reasons", "cause", "causes", "message", "messages", "msg", "detail", "details",
                             "description", "desc", "text", "string", "str", "info"})
"""Words after a field's error noun that make the field the error's own account (``Error reason: out of disk space``,
``Failure cause: ...``, ``error_msg: ...``): its value is the error that happened, so it is quiet only where the value
reads none (review45's suspicion, the lead). Not ``information``: dmidecode's ``Error Information Handle`` names a
record's handle, whose ``Not Provided`` / ``No Error`` read none anyway."""
READS_NONE = lazy_compile(r"^(?:0+|0x0+|none|no|n/?a|--?|false|ok|normal|not (?:provided|specified|present|available"
                          r"|supported|applicable))\.?$", re.I)
"""A value that reads none: zero, ``None``, ``N/A``, ``OK``, ``Not Provided``."""
MEASURE = lazy_compile(r"^[-+]?(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)$")
"""A real number, with a decimal point or an exponent (``0.8788317251751688``, ``7.498202e-05``): after a name that
ends in its error noun, the size of an error, a measurement (session 49, tester49c). MindFlow's PINNs tutorials print
the relative L2 error of the prediction as ``    l2_error:  0.004314286890692662`` (mindspore-ai/mindscience @5d02e53c
MindFlow/applications/physics_driven/burgers/src/utils.py ``calculate_l2_error``: ``sqrt(sum((label -
prediction)**2)) / sqrt(sum(label**2))``, ``print("    l2_error: ", l2_error)``). An error of a kind is told in words
or a code, never as a fraction; an integer (a count or a code) and ``nan`` are not measurements here."""


FAILED_COUNT = frozenset({"failed", "failures", "errored", "errors"})
"""A participle or plural that counts the items of a tally that failed (``Failed requests``, ``Probe requests
failed``): with a zero it says none did (:func:`quiet_field`)."""
ALONE_COUNT = FAILED_COUNT | {"invalid"}
"""The words that name a tally alone, a field of one word (``Failed: 0``, ``Errors: 0``, sglang's ``Invalid: 0.000``):
a count or share of failed or invalid items. Not a singular noun (``Error: 0``, ``Timeout: 0`` are a level's or an
exception's word before a value); ``invalid`` only alone (``Invalid argument: 0`` says the value is invalid)."""
ZERO = lazy_compile(r"^\+?(?:0x0+|0+(?:\.0*)?|\.0+)%?$")
"""A count or share that is zero: ``0``, ``0x0``, ``0.000``, ``0.00%``."""


def zero_tally(words: list[str], hits: list[int], value: str) -> bool:
    """Whether a field is a tally of failed items that counts none: a name of two to five words, none of them
    ``to`` (``Failed to load model`` is a sentence), whose every error word counts failed items
    (:data:`FAILED_COUNT`), or a name of one such word or ``Invalid`` (:data:`ALONE_COUNT`), and a value of zero
    (:data:`ZERO`). vLLM's serving benchmark prints ``Failed requests:`` and ``Probe
    requests failed:`` with the count (vllm-project/vllm @009e6d4a vllm/benchmarks/serve.py: ``print("{:<40}
    {:<10}".format("Failed requests:", metrics.failed))``), as Apache Bench's summary does (``Failed requests:
    0``); vllm-ascend's benchmark guide shows ``Failed requests: 0`` as the output of a run that succeeded
    (docs/source/developer_guide/performance_and_debug/performance_benchmark.md @182b75ea, "If successful, you will
    see the following output"). A count above zero stays a failing line (session 47, tester47k). sglang's GSM8K
    benchmark ends with the share of answers it could not read (sgl-project/sglang @b2d7f2bb
    benchmark/gsm8k/bench_sglang.py and @109fdd2f python/sglang/test/few_shot_gsm8k.py: ``print(f"Invalid:
    {invalid:.3f}")`` after ``Accuracy:``): ``Invalid: 0.000`` is a run that went well (session 47, fix47b)."""
    if len(words) == 1:
        named = words[0].lower() in ALONE_COUNT
    else:
        named = (len(words) <= 5 and "to" not in (w.lower() for w in words)
                 and all(words[i].lower() in FAILED_COUNT for i in hits))
    return named and ZERO.match(value) is not None


def nonzero_code(value: str) -> bool:
    """Whether ``value`` is a code or count other than zero (:data:`NUMBER` with a digit, and not all zeros)."""
    m = NUMBER.match(value)
    return m is not None and any(c.isdigit() for c in m[1]) and m[1].strip("0") != ""


KERAS_PROGBAR = lazy_compile(r"^\s*\d+/\d+ \[[=>.]*\](?= - )")
"""Keras' progress bar: ``current/target [====>...]`` and then `` - name: value`` for each metric, ``%.4f`` or
``%.4e`` (tensorflow/tensorflow r1.15 tensorflow/python/keras/utils/generic_utils.py ``Progbar.update``), after
`` - ETA: ...`` or the epoch's time per step."""


def _error_measure(name: str, value: str) -> bool:
    """Whether ``name: value`` is the size of an error: a name whose last word, split at spaces, ``_`` and ``-``, is an
    error noun (:data:`ERROR_NOUNS`), and a real number (:data:`MEASURE`)."""
    return _error_metric(name) and MEASURE.match(value.strip()) is not None


def _error_metric(name: str) -> bool:
    """Whether ``name`` names an error measured: two words or more, split at spaces, ``_`` and ``-``, the last an
    error noun (:data:`ERROR_NOUNS`): ``l2_error``, ``relative error``, ``OM-Top1-err``."""
    words = [w for w in re.split(r"[ _-]+", name.strip()) if w]
    return len(words) >= 2 and words[-1].lower() in ERROR_NOUNS


METRIC_NAME = lazy_compile(r"[A-Za-z][A-Za-z0-9]*(?:[ _-][A-Za-z0-9]+){1,3}$")
"""A metric's name as a program prints it at the head of a per-field list: two to four words of letters and digits
joined by a space, ``_`` or ``-`` (``l2_error``, ``relative error``, ``OM-Top1-err``), the last one of
:data:`MEASURED_NOUNS`. Not a logger's line whose message ends in another error noun: with only "no ``: `` in the
head" asked, ``ERROR:root:Heartbeat timeout, elapsed: 30.01`` (Python logging's default format,
``levelname:name:message``) and ``[ERROR] Socket timeout, elapsed: 30.01`` were read as such a list and left out
(review51)."""
MEASURED_NOUNS = frozenset({"error", "errors", "err"})
"""The error nouns a measured error's name ends in (a timeout, a failure or an exception is an event, not a size)."""


def _measured_metric(name: str) -> bool:
    """Whether ``name`` is a measured error's name (:data:`METRIC_NAME`, its last word one of
    :data:`MEASURED_NOUNS`)."""
    name = name.strip()
    return METRIC_NAME.match(name) is not None and re.split(r"[ _-]", name)[-1].lower() in MEASURED_NOUNS


def quiet_progress(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line is Keras' progress bar (:data:`KERAS_PROGBAR`) whose error words are all in the names of metrics
    measured by a real number (``mean_absolute_error: 0.4415``, ``val_mean_absolute_error: 0.3963``; Keras logs
    ``metrics=['mae']`` under that name): the MLSP port's NPU training in Ascend/ModelZoo-TensorFlow's
    TensorFlow/contrib/cv/MLSP_ID1295_for_TensorFlow/README.md prints it at each step (session 49, tester49k). A
    ``nan`` value, the loss's too, or any other word after the bar keeps the line failing."""
    m = KERAS_PROGBAR.match(text)
    if m is None:
        return False
    parts = text[m.end():].split(" - ")
    return _measured_errors_only(parts, [p.partition(": ")[::2] for p in parts], " - ", error_word)


def quiet_metric_list(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line is a list of ``name: value`` fields joined by commas whose error words are all in the names of
    errors measured by a real number, bare or as a one-element array (``train error: [0.0004304781323298812]``): an
    epoch's metrics, not a failure. Pafnucy's training logs ``epoch[%d], train error: [%s], Validation error: [%s],
    Validation RMSE: [%s], per_step_time: [%s]`` with the mean squared errors (mindspore-ai/models @eab643f5
    research/hpc/pafnucy/train.py line 136), and its README quotes two such lines as the loss to expect; they read
    config_error 0.35 through the text fallback (session 49, tester49n). A ``nan`` in any field, a count, or any other
    field with an error word keeps the line failing.

    Or a list whose first part names the error measured, alone, and whose other parts give it per field (session 51,
    tester51n): MindElec's PINNs print ``l2_error, Ex:  0.0355 , Ey:  0.0343 , Hz:  0.0229``
    (mindspore-ai/mindscience @52902750 MindElec/examples/physics_driven/time_domain_maxwell/eval.py line 112:
    ``print("l2_error, Ex: ", l2_error_ex, ", Ey: ", l2_error_ey, ", Hz: ", l2_error_hz)``), the relative L2 error of
    each field, and the README quotes it as the output of a run that went well. The header must be a metric's name
    ending in the noun of a measured error (:data:`METRIC_NAME`), every value a real number (:data:`MEASURE`), and no
    field name an error word."""
    parts = text.strip().split(", ")
    if len(parts) < 2:
        return False
    if _measured_metric(parts[0]):
        fields = [_bare(*p.partition(": ")[::2]) for p in parts[1:]]
        return all(MEASURE.match(value) for _, value in fields) and error_word(", ".join(n for n, _ in fields)) is None
    return _measured_errors_only(parts, [_bare(*p.partition(": ")[::2]) for p in parts], ", ", error_word)


def _measured_errors_only(parts: list[str], fields: list[tuple[str, str]], sep: str,
                          error_word: Callable[[str], object]) -> bool:
    """Whether a line's ``parts`` (its ``name: value`` ``fields``) hold an error measured by a real number
    (:func:`_error_measure`), no ``nan`` (a loss or error gone NaN: the training diverged; review49b), and no error
    word in the other parts, joined again by ``sep``."""
    if any(_not_a_number(value) for _, value in fields):
        return False
    kept = [p for p, field in zip(parts, fields, strict=True) if not _error_measure(*field)]
    return len(kept) < len(parts) and error_word(sep.join(kept)) is None


def _not_a_number(value: str) -> bool:
    """Whether a metric's value is NaN as Python and numpy print it (``nan``, ``-nan``; ``NaN`` elsewhere)."""
    return value.strip().lstrip("+-").lower() == "nan"


def _bare(name: str, value: str) -> tuple[str, str]:
    """``name`` and ``value`` without the one pair of brackets numpy prints around a one-element array's value."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return name, value


RE_BLOCK_KEY = lazy_compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\s*:\s*$")
"""A metrics printout's key that opens a nested block: one snake_case identifier of two words or more, a colon, and no
value on the line (the block's lines follow, indented)."""
KEY_NOUNS = ERROR_NOUNS | {"mismatch", "mismatches"}
"""The error words a block key may hold as a noun that qualifies what the block measures (``mismatch_ratios``)."""


def quiet_block_key(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line is a metrics block's key (:data:`RE_BLOCK_KEY`) whose every error word is a noun
    (:data:`KEY_NOUNS`) followed by the quantity it qualifies, not a word that describes an error
    (:data:`DESCRIBES_ERROR`): the heading of measurements (``mismatch_ratios_by_channel_threshold:``,
    ``error_rates:``), not of errors (``errors:``, ``failure_reasons:``, ``failed_requests:`` stay failing lines).
    vllm-omni's pixel accuracy check prints the key before the share of pixels and channels above each tolerance
    (vllm-project/vllm-omni @1d05e396 tests/e2e/accuracy/helpers.py ``assert_images_pixel_close``: ``print("
    mismatch_ratios_by_channel_threshold:")``; its docstring: "The printed mismatch ratios are diagnostics only"), and
    a passing run's test result in vllm-project/vllm-omni#6350 quotes it; its one error word read config_error 0.49
    through the text fallback (session 50, tester50i). The block's own lines are read as any other."""
    m = RE_BLOCK_KEY.match(text)
    if m is None:
        return False
    words = m["name"].lower().split("_")
    hits = [i for i, w in enumerate(words) if error_word(w) is not None]
    return bool(hits) and all(words[i] in KEY_NOUNS and i + 1 < len(words) and words[i + 1] not in DESCRIBES_ERROR
                              for i in hits)


RE_STEP_METRICS = lazy_compile(r"^\s*step:\d+(?: - [^\s:][^:]{0,200}:\S+)+\s*$")
"""verl's metrics line of a training step (verl/utils/logger/aggregate_logger.py, earlier verl/utils/tracking.py:
``concat_dict_to_str`` joins ``f"step:{step}"`` and ``f"{k}:{pprint.pformat(v)}"`` (older ``f"{k}:{v:.3f}"``) for every
metric whose value is a number, with `` - ``; ``LocalLogger.log`` prints it at each step)."""
STEP_VALUE = lazy_compile(r"^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|True|False|-?inf)$")
"""A value ``concat_dict_to_str`` prints: a number (``pformat`` of a float, an int or a bool); not ``nan``."""


def quiet_step_metrics(text: str) -> bool:
    """Whether a line is verl's metrics line of a step (:data:`RE_STEP_METRICS`) whose every value is a number
    (:data:`STEP_VALUE`): the names are the metrics' (``response/aborted_ratio:0.0``, ``actor/pg_clipfrac:0.0``), and
    an error word in one is what is measured, not a failure. Session 55, tester55d: a verl GRPO run on Ascend that
    finished its fifth step and epoch (Weigaa/qwen30b_tpu_verl, the notes beside the log call it a success) read
    framework_error 0.60 through the text fallback from ``aborted`` in that line alone. A ``nan`` (a loss gone NaN:
    the training diverged) or a value that is no number keeps the line failing."""
    if RE_STEP_METRICS.match(text) is None:
        return False
    return all(STEP_VALUE.match(part.rpartition(":")[2]) is not None for part in text.strip().split(" - ")[1:])


_COUNT = r"[A-Za-z]{1,20}(?: [A-Za-z]{1,20}){0,2}(?:=|:[ \t]{0,3}|[ \t]{1,3})`?\d{1,12}`?"
RE_COUNTS = lazy_compile(rf"^[ \t]{{0,8}}(?:[-*][ \t]{{1,3}})?(?:[^:：=\n]{{1,40}}[:：][ \t]{{0,3}})?{_COUNT}"
                         rf"(?:(?:[ \t]{{0,3}}[,/|;][ \t]{{0,3}}|[ \t]{{1,6}}){_COUNT}){{1,11}}"
                         r"(?:,[ \t]{0,3}Time elapsed: [\d.]{1,12} ?s(?:ec)?\b(?: - in [\w.$]{1,200})?)?[ \t]*$")
"""A line of counts only, 2 to 12 ``NAME <integer>`` fields (``NAME=N``, ``NAME: N``, ``NAME N``, the number in
backticks or not; a name of one to three words) joined by blanks, commas, slashes, bars or semicolons, after a label
that ends in a colon or not (``结果汇总：``, a Markdown list's ``- ``); JUnit's and Maven Surefire's summary may end in
its ``Time elapsed``. Every repetition is bounded and no two of them can take the same blanks (no backtracking blow-up
on a long line; :data:`COUNTS_MOST` bounds the line too)."""
COUNTS_MOST = 400
"""reason: the longest line read as counts alone (twelve fields of a 60-character name and a 12-digit count); a
longer line is no such summary. A coarse bound, not fitted."""
RE_COUNT = lazy_compile(r"(?P<name>[A-Za-z]{1,20}(?: [A-Za-z]{1,20}){0,2})(?:=|:[ \t]{0,3}|[ \t]{1,3})`?"
                        r"(?P<value>\d{1,12})`?")
"""One field of such a line: its name and its count."""
COUNTED_FAILURE = ALONE_COUNT | {"fail", "fails", "error", "failure"}
"""The names of a count of failed items in such a line (``FAIL=0``): in a line of counts alone, even the singular
names a count, not a level or an exception."""


def quiet_counts(text: str) -> bool:
    """Whether a line is a test runner's or build script's counts alone (:data:`RE_COUNTS`) whose every count of
    failed items (:data:`COUNTED_FAILURE`, the field name's last word) is zero:
    - ``OK=212  FAIL=0  SKIP=30``, the summary PTOAS's sample build and test stage prints before ``===== END STAGE
      sample-build-and-test rc=0`` (hw-native-sys/PTOAS#539's board log, session 56, tester56f's b56f-07, read
      framework_error 0.60 through the text fallback from ``FAIL``);
    - ``- 结果汇总：OK `220` / FAIL `0` / SKIP `2```, PTOAS's board-test bot's summary of a finished A3 run
      (hw-native-sys/PTOAS#873, session 57, tester57m's b57m-11, read framework_error 0.45);
    - ``Tests run: 10, Failures: 0, Errors: 0, Skipped: 0``, JUnit's and Maven Surefire's summary (``"Tests run: %d,
      Failures: %d, Errors: %d, Skipped: %d"``, with ``, Time elapsed: %.3f s - in <class>`` after it on a test
      class's line).
    A count above zero keeps the line failing."""
    if len(text) > COUNTS_MOST or RE_COUNTS.match(text) is None:
        return False
    fields = RE_COUNT.finditer(text.split(", Time elapsed")[0])  # a label before them holds no count
    return all(ZERO.match(f["value"]) is not None for f in fields if f["name"].split()[-1].lower() in COUNTED_FAILURE)


ZERO_TALLY = lazy_compile(r"(?:^|,)[ \t]{0,3}(?:" + "|".join(sorted(FAILED_COUNT)) + r")[ \t]{0,3}[=:][ \t]{0,3}0{1,12}"
                          r"(?:/\d{1,12})?(?=[,\s]|$)", re.I)
"""A tally of failed items that counts none, as a whole field of a comma-separated line: ``failed = 0/199`` (none of
199), ``errors: 0``; only the counting words of :data:`FAILED_COUNT`. The field must start the line or follow a comma
and end at a blank, a comma or the line's end (the reader may join two such rows into one line): ``Check failed: 0 ==
ret (0 vs. 7)`` (glog's fatal check), ``ranks failed: 0,1,3``, ``aclrtSetDevice failed: 0 (ret=507033)``, ``Assertion
failed: 0, file x.c`` are no tallies (review58)."""


def quiet_zero_tallies(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line's error words are all in tallies that count no failure (:data:`ZERO_TALLY`): torch_npu's
    compile-backend accuracy check prints one line per compared tensor set, ``grads : pass, max_abs = 0.0028408766,
    mean_abs = 5.3323278e-07, failed = 0/199``, in a run its commit calls accurate (Ascend/pytorch@741ee42c, the
    commit message's verification block; session 58, tester58u's b58u-08, read framework_error 0.50 through the text
    fallback). Any other error word on the line, or a count above zero, keeps it failing; a line longer than twice
    :data:`COUNTS_MOST` is no such summary."""
    if len(text) > 2 * COUNTS_MOST or ZERO_TALLY.search(text) is None:
        return False
    return error_word(ZERO_TALLY.sub(" ", text)) is None


PACKAGE_ABSENT = lazy_compile(r"^\s*[A-Za-z][\w.-]{0,60}: Module Not Found\s*$")
"""An environment report's line for a package the report looked for and did not find: sglang's ``python -m
sglang.check_env`` prints each package of its list as ``name: version`` and, where the import fails, ``name: Module
Not Found`` (sgl-project/sglang python/sglang/check_env.py ``get_package_versions``: ``except ModuleNotFoundError:
versions[package_name] = "Module Not Found"``; ``print(f"{k}: {v}")``). Most of the list is optional on a given host
(flashinfer, vllm, torchao on an NPU one): a report read, not a failure. Session 57, tester57b's b57b-06
(sglang#36423's report, read config_error 0.60 through the text fallback). A job that needs the package fails in its
own words (``ModuleNotFoundError: No module named ...``), which keep their reading."""


RE_TABLE_ROW = lazy_compile(r"^\s*\|(?P<cells>(?:[^|\n]*\|){2,})\s*$")
"""A Markdown table's row of two cells or more, bordered at both ends (``| max_abs_error | 0.044161 |``)."""
PERCENT = lazy_compile(r"^(?P<number>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*%$")
"""A number with a percent sign (``1.3408%``): a share, a measurement."""


def quiet_table_metric(text: str) -> bool:
    """Whether a line is a Markdown table's row whose first cell names an error measured (:func:`_error_metric`:
    ``max_abs_error``, ``mean_abs_error``, ``relative_error``) and whose every other cell is a real number
    (:data:`MEASURE`) or a percentage (:data:`PERCENT`): the size of an error in an accuracy comparison, as a model
    card's CPU/NPU table prints it, not a failure (session 51, tester51q). The NPU adaptation report of
    timm/vit_giant_patch14_clip_224.laion2b on AtomGit's model hub (https://ai.gitcode.com/gcw_uQ09W7jl/
    timm-vit_giant_patch14_clip_224.laion2b-NPU) tabulates ``| max_abs_error | 0.044161 |``, ``| mean_abs_error |
    0.008519 |`` and ``| relative_error | 1.3408% |`` of a run that finished; the text fallback counted the three as
    failing lines. The same reading as a ``name: value`` field (:data:`MEASURE`, ``l2_error: 0.0043``). A ``nan``,
    an integer, a word in a value cell, or a first cell that is no metric's name keeps the row failing."""
    cells = _table_cells(text)
    if cells is None or not _error_metric(cells[0]):
        return False
    return all(MEASURE.match(c) is not None or PERCENT.match(c) is not None for c in cells[1:])


def _table_cells(text: str) -> list[str] | None:
    """The cells of a Markdown table's row (:data:`RE_TABLE_ROW`), without blanks and the emphasis around them."""
    m = RE_TABLE_ROW.match(text)
    return None if m is None else [c.strip("*` ") for c in m["cells"].split("|")[:-1]]


def _two_cells(text: str) -> tuple[str, str] | None:
    """A Markdown table's row of two cells, a field's name and its value (``| error category | `none` |``), without
    the emphasis around them: read as the field ``name: value`` (:func:`quiet_field`). A run report's table of its
    state (Kimsale/qwen3.5_35B_mindspeed reports/perf_runs, written by its analyze_audio_perf_run.py: ``| error
    category | `none` |`` in a run of 70 steps) read framework_error 0.56 through the text fallback from that row alone
    (session 56, tester56h's b56h-06). A value that states a failure keeps the row failing, as in the field."""
    cells = _table_cells(text)
    if cells is None or len(cells) != 2 or not all(cells) or ": " in cells[0]:
        return None
    return cells[0], cells[1]


RE_LAUNCH_HEAD = lazy_compile(r"^(?:\[[^\]\[]{1,40}\] [\w.]{1,80}: \[INFO\])?\s*$")
"""What may stand before a launch block's ``rdzv_configs`` field: nothing but its indent, or the per-line head torch's
elastic logging puts on each line of the message (``[2024-03-12 08:22:45,549] torch.distributed.launcher.api:
[INFO]``)."""
RE_LAUNCH_VALUE = lazy_compile(r"^rdzv_configs\s*:\s*(?P<value>\{[^{}]*\})\s*$")
"""The field and its value: one flat dict literal (:func:`quiet_launch_config`)."""
LAUNCH_VALUE_MAX = 2048
"""reason: a launch block's rendezvous settings are a handful of keys; a longer value is not read as one."""


def quiet_launch_config(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line is the ``rdzv_configs`` field of an elastic launcher's launch-config block, whose error words
    are all in the keys of its settings (``{'rank': 0, 'timeout': 600, 'node_unit': 1}``: the rendezvous join timeout
    in seconds, a setting, not a timeout that happened). torchrun logs the block before it starts the workers
    (pytorch torch/distributed/launcher/api.py ``launch_agent``: ``"Starting elastic_operator with launch
    configs:\\n" ... "  rdzv_configs     : %(rdzv_configs)s\\n"``), and DLRover's agent the same fields before its
    node check (intelligent-machine-learning/dlrover @7c3e9648 dlrover/python/elastic_agent/torch/training.py
    ``_create_check_agent``: ``"Starting node-check agent with launch configs:\\n"`` ... ``f"  rdzv_configs     :
    {config.rdzv_configs}\\n"``); the continuation lines print bare, or each after torch's per-line head
    (:data:`RE_LAUNCH_HEAD`). Session 52, tester52b: DLRover's node-check start-up in
    intelligent-machine-learning/dlrover#1622 read config_error 0.60 through the text fallback from that one line.
    The value must be a flat dict of settings (string keys; numbers, booleans, None or strings without an error word
    as values): a value that states anything else keeps the line failing."""
    i = text.find("rdzv_configs")
    if i < 0 or RE_LAUNCH_HEAD.match(text[:i]) is None or len(text) - i > LAUNCH_VALUE_MAX:
        return False
    m = RE_LAUNCH_VALUE.match(text[i:].rstrip())
    if m is None:
        return False
    try:
        value = ast.literal_eval(m["value"])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return False
    for v in value.values():
        if isinstance(v, str):
            if error_word(v) is not None:
                return False
        elif v is not None and not isinstance(v, (bool, int, float)):
            return False
    return True


def quiet_field(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line is a readout's ``Field Name: value`` (:data:`RE_NAMED_FIELD`) whose error word is in the field's
    name only and whose value states no failure, or whose value says no error is there (:data:`NO_ERRORS`): a state
    a tool printed, not a program failing (session 45, readcap45). ``error_word``: the search for an error word
    (:data:`opsbrain.diagnosis.realtext.ERROR_WORDS`).

    The name must be a field's: its error words nouns (:data:`ERROR_NOUNS`) in a name of two words or more (one word
    is an exception's or a level's: ``ValueError: ...``, ``Error: ...``). The value must state no failure: no error
    word, no failed state (:data:`FAILED_STATE`), no code or count other than zero (:func:`nonzero_code`: npu-smi's
    ``Error Code : 80E01801`` stays a failing line); where the name ends in its error noun (``Socket error:
    connection reset by peer`` states an error of a kind) the value must read none (:data:`READS_NONE`:
    ``rx_crc_errors: 0``) or, the error noun ending the name, be a measurement (:data:`MEASURE`: ``l2_error:
    0.0043``, the size of an error). Sources: dmidecode prints each attribute as a tab, its name, ``: `` and its value
    (mirror/dmidecode @b70f6ee0 dmioutput.c ``pr_attr``; man/dmidecode.8), with names such as ``Error Correction
    Type`` and ``Error Information Handle`` (dmidecode.c ``dmi_memory_array_error_handle``: ``Not Provided``, ``No
    Error`` or a handle) and type 32's ``Status: No errors detected`` (``dmi_system_boot_status``); the SMBIOS
    reference specification (DMTF DSP0134) defines the fields."""
    if (cells := _two_cells(text)) is not None and quiet_field(f"{cells[0]}: {cells[1]}", error_word):
        return True
    if quiet_progress(text, error_word) or quiet_metric_list(text, error_word) or quiet_block_key(text, error_word) \
            or quiet_table_metric(text) or quiet_launch_config(text, error_word) or quiet_step_metrics(text) \
            or quiet_counts(text) or quiet_zero_tallies(text, error_word) or PACKAGE_ABSENT.match(text) is not None:
        return True
    m = RE_NAMED_FIELD.match(text)
    if m is None:
        return False
    if "-" in m["name"] and _error_measure(m["name"], m["value"]):
        return True  # a hyphen-joined metric name: ``OM-Top1-err: 0.0643`` (ACL SparseNet port, session 49 tester49k)
    words = [w for w in re.split(r"[ _]+", m["name"]) if w]
    hits = [i for i, w in enumerate(words) if error_word(w) is not None]
    if hits and zero_tally(words, hits, m["value"].strip()):
        return True
    if hits and (len(words) < 2 or any(words[i].lower().strip("()") not in ERROR_NOUNS for i in hits)):
        return False
    value = m["value"].strip()
    if NO_ERRORS.match(value):
        return True
    if not hits or error_word(value) is not None or FAILED_STATE.search(value) or nonzero_code(value):
        return False
    last = hits[-1] == len(words) - 1
    described = last or words[hits[-1] + 1].lower() in DESCRIBES_ERROR
    return not described or READS_NONE.match(value) is not None or (last and MEASURE.match(value) is not None)
