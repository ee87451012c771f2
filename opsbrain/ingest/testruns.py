"""Test runners' records of a test that passed (session 50, tester50p): the line names the test, and a test's name
is its author's words (``test_timeout_retry``, ``test_invalid_input_raises_error``), no failure of the run's.

Each runner prints a passing test in a fixed shape, keyed on here as its source writes it:

- unittest (CPython ``Lib/unittest/runner.py``, ``TextTestResult``; ``-v``): ``startTest`` writes the test's
  description, ``str(test)``, then `` ... ``; ``addSuccess`` writes ``ok``, ``addSkip`` ``skipped '<reason>'``,
  ``addExpectedFailure`` ``expected failure`` (``addFailure`` ``FAIL``, ``addError`` ``ERROR``, ``addUnexpectedSuccess``
  ``unexpected success``). ``str(test)`` is ``<method> (<module>.<Class>.<method>)`` (``TestCase.__str__``, Python
  3.11+; ``<method> (<module>.<Class>)`` before), a subtest's ``  <test> (<params>)``; the loader's methods start with
  ``test`` (``TestLoader.testMethodPrefix``). A test that prints leaves its output after `` ... `` and the status on a
  line of its own (``_write_status``). ``TextTestRunner.run`` ends ``Ran <n> tests in <t>s``, then ``OK`` (with
  ``skipped=`` / ``expected failures=`` counts) or ``FAILED (failures=<n>, errors=<n>)``.
- pytest (``src/_pytest/terminal.py``; ``-v``): ``<nodeid> PASSED`` (``SKIPPED``, ``XFAIL`` ...) with the progress
  `` [ 50%]``, or under pytest-xdist ``[gw0] [ 50%] PASSED <nodeid>``; ``-rA`` lists ``PASSED <nodeid>`` in the short
  test summary. A node id is ``<path>::<name>`` (docs.pytest.org, "Specifying which tests to run").
- GoogleTest (``googletest/src/gtest.cc``, ``PrettyUnitTestResultPrinter``): ``[ RUN      ] <Suite>.<Test>`` as a test
  starts, ``[       OK ] <Suite>.<Test> (<n> ms)`` as it passes, ``[  SKIPPED ] ...``, ``[----------] <n> tests from
  <Suite>`` and ``[  PASSED  ] <n> tests.`` (``[  FAILED  ] ...`` when one failed).
- CTest (CMake ``Source/CTest/cmCTestRunTest.cxx`` / ``cmCTestTestHandler.cxx``): ``Start <n>: <name>``, ``<i>/<n>
  Test #<k>: <name> .....   Passed    <t> sec`` and ``100% tests passed, 0 tests failed out of <n>``.

Such a record is no failing line of the text fallback and gives no signal (hicann/catlass and vllm-ascend runs, and
tester50n's b50n-17, a passing unittest run whose names hold ``fail``/``invalid``/``abort`` and read framework_error
0.59). Of a unittest line whose test printed, only the output after `` ... `` is read. A failing record (``FAIL``,
``ERROR``, ``FAILED``, ``***Failed``) and its failure's own lines keep their readings."""

from __future__ import annotations

from opsbrain.lazyre import lazy_compile

UNITTEST_HEAD = lazy_compile(r"^\s*test\w* \((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\)(?: \([^()\n]{0,300}\))?"
                             r" \.\.\.(?: |$)")
"""unittest's ``-v`` head of a test, ``test_x (mod.Class.test_x) ... `` (a subtest's ``test_x (...) (i=2) ... ``)."""

UNITTEST_PASSED = lazy_compile(r"(?:ok|skipped (?:'[^'\n]*'|\"[^\"\n]*\")|expected failure)\s*$")
"""What unittest writes after the head when the test passed, was skipped, or failed as expected."""

UNITTEST_RAN = lazy_compile(r"^\s*Ran \d+ tests? in [\d.]+s\s*$")
"""``TextTestRunner.run``'s count of the tests it ran (``"Ran %d test%s in %.3fs"``)."""

UNITTEST_VERDICT = lazy_compile(r"^\s*(?:OK|FAILED)(?: \((?:[a-z ]+=\d+(?:, )?)+\))?\s*$")
"""``TextTestRunner.run``'s verdict after the count: ``OK`` (``OK (skipped=2)``), ``FAILED (failures=1, errors=2)``."""


def unittest_cue(text: str) -> bool:
    """Whether a line may be unittest's head of a test (:data:`UNITTEST_HEAD`): a cheap test before the regex."""
    return " ..." in text and text.lstrip()[:4] == "test"


PASSED_RECORD = lazy_compile(
    r"^\s*(?:"
    r"OK(?: \((?:(?:skipped|expected failures)=\d+(?:, )?)+\))?"  # unittest's verdict of a run without failures
    r"|(?:\[gw\d+\] (?:\[\s*\d+%\] )?)?(?:PASSED|SKIPPED) [^\s:]+(?:::\S+)+"  # pytest -v under xdist, -rA summary
    r"|[^\s:]+(?:::\S+)+ (?:PASSED|SKIPPED(?: \([^()\n]{0,300}\))?)(?: +\[ *\d+%\])?"  # pytest -v
    r"|\[ RUN      \] \S+"  # GoogleTest: a test starts
    r"|\[       OK \] \S+ \(\d+ ms\)"  # GoogleTest: it passed
    r"|\[  SKIPPED \] \S+(?: \(\d+ ms\))?"
    r"|\[----------\] \d+ tests? from \S+(?: \(\d+ ms total\))?"
    r"|\[  PASSED  \] \d+ tests?\."
    r"|Start +\d+: \S+"  # CTest: a test starts
    r"|\d+/\d+ Test +#\d+: \S+ \.* +Passed +[\d.]+ sec"  # CTest: it passed
    r"|100% tests passed, 0 tests failed out of \d+"
    r")\s*$")
"""A whole line that records a test that passed (or was skipped), or a run in which none failed."""


_CUES = ("::", "[", "...", "% tests passed", " Passed ")
"""Parts one of the records holds: a line without any (and not headed ``OK`` / ``Start``) is read as it is."""


def outcome_words(text: str) -> str:
    """The words of a line to read as the run's: ``""`` for a test runner's record of a test that passed
    (:data:`PASSED_RECORD`, a unittest head with a passing status), the test's output for a unittest head followed by
    what the test printed, else ``text`` itself (a failing record included)."""
    if any(cue in text for cue in _CUES) or text.lstrip().startswith(("OK", "Start")):
        if PASSED_RECORD.match(text):
            return ""
        if (head := UNITTEST_HEAD.match(text)) is not None:
            rest = text[head.end():]
            if not rest.strip() or UNITTEST_PASSED.match(rest):
                return ""
            if rest.strip() not in ("FAIL", "ERROR", "unexpected success"):
                return rest.strip()  # what the test printed: its status comes on a later line
    return text


ATK_SUMMARY_HEAD = lazy_compile(r"总用例数\s*\|")
"""The head of the summary table ATK (Ascend's operator test kit: ``atk node ... task --task accuracy``,
``performance_device``, ``accuracy_dc``) prints at the end of a task, one row per compared node. An accuracy
task's columns: 名称, 总用例数, 执行成功用例个数, 执行失败用例个数, 通过用例个数, 错误信息匹配用例个数,
通过率, 精度是否达标; a device performance task's: 名称, 总用例数, device性能通过率, 平均device性能比,
device性能是否达标. Each ``...是否达标`` column holds ``Pass`` or ``Failed``
(flashserve/flash-linear-attention-npu ``tests/atk/common/check_atk_result.py`` @2161dfee,
``_extract_summary_row``, ``_classify_report``; the tables as printed: flash-linear-attention-npu#576,
performance, 2026-09-16, and #519, accuracy, 2026-09-10). A column's name (执行失败用例个数, the count of
the failed cases) is no failure. The head is this match with ``是否达标`` after it (:func:`atk_head`: no ``.*`` in the
pattern, which was quadratic on a long line of repeated heads, review51)."""

ATK_RULE = lazy_compile(r"[\s+|=-]*")
"""A rule line of the table (``+-----+-----+``, ``----------+------+``): the whole line of these characters
(``fullmatch``) with ``---`` in it. (One pattern with ``-{3}`` between two runs of the class backtracked
quadratically: 8 s on a 100 KB line of ``---+`` ending in another character, review51.)"""


def atk_head(line: str) -> bool:
    """Whether ``line`` is the head of ATK's summary table (:data:`ATK_SUMMARY_HEAD`)."""
    return "总用例数" in line and (m := ATK_SUMMARY_HEAD.search(line)) is not None and "是否达标" in line[m.end():]


def atk_rule(line: str) -> bool:
    """Whether ``line`` is a rule line of the table (:data:`ATK_RULE`)."""
    return "---" in line and ATK_RULE.fullmatch(line) is not None


class AtkSummaryScan:
    """ATK's summary table (:data:`ATK_SUMMARY_HEAD`), line by line: its head and rules are no failing lines; so are
    the rows of a performance table, whose ``Failed`` is a measured time against its target (the performance cases
    run the NPU under test alone and measure it, flash-linear-attention-npu ``tests/atk/README.md`` @07190f5e,
    "性能用例只运行 NPU DUT，测量性能"; tester51m: b51m-06, a table whose every case ran read config_error 0.38), and
    the rows without ``Failed`` of any table. A row of another table that says ``Failed`` (accuracy, determinism,
    memory check: the operator gave wrong results) keeps its reading; the table ends at a line without ``|`` or with
    another number of ``|`` than its head (review51: a logger's line with ``|`` between its fields, loguru's ``time |
    LEVEL | module:function:line - message``, right after the table was taken for a row and its error left out)."""

    def __init__(self) -> None:
        self.performance: bool | None = None
        """Whether the open table is a performance table; ``None`` outside a table."""
        self.bars = 0
        """The number of ``|`` in the open table's head: each of its rows has as many."""

    def step(self, line: str) -> bool:
        """Whether ``line`` is one of the table's lines that holds no failure."""
        if atk_head(line):
            self.performance = "性能是否达标" in line and "精度是否达标" not in line
            self.bars = line.count("|")
            return True
        if self.performance is None:
            return False
        if atk_rule(line):
            return True
        if line.count("|") == self.bars:
            return self.performance or "Failed" not in line
        self.performance = None
        return False
