"""Readings written in session 58 from the blind sets' misses, each on its real lines.

- MindSpore's start-up package check (``_check_version.py``) warns that the CANN package or its ``te`` / ``hccl``
  wheels are not releases it was tested with, counts down and goes on: a notice (blind b55l-09, b56b-06, b57j-05,
  healthy runs read config_error 0.70-0.72 from it).
- A failed driver call whose return code the knowledge base decodes (``drvRetCode=48``) reads as that code, not as a
  failure of the driver's own (b57l-03, streams held by a dead process, read driver_firmware_error 0.45).
- A line whose error words are all in tallies that count no failure (``failed = 0/199``) is no failing line
  (b58u-08, torch_npu's compile-backend accuracy check, read framework_error 0.50).
- CPython's messages of a call that does not fit its function read ``py:TypeError`` without their class (b58q-08,
  sglang's ``Error in request: ... missing 1 required positional argument: 'interpolation'``, read nothing).
- torch_npu's canned advice under ERR00100, written over several lines, names HCCL_EXEC_TIMEOUT as a setting one may
  change, not a timeout (b58p-03, read collective_timeout_sw 0.50 by the engine).
- unittest's and googletest's closing lines of a run that passed are progress lines: the errors its tests raised on
  purpose are failures the run went on from (b58x-07, MindIE-SD's unit tests, and b58y-09, hicann/runtime's, both read
  config_error 0.60).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import yaml

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import has_error_word
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.readouts import quiet_field, quiet_zero_tallies
from tests.textviews import line_kinds as kinds

BLIND = Path(__file__).resolve().parent / "data" / "blind"


def _texts(*names: str) -> dict[str, str]:
    return {e["id"]: e["text"] for name in names for e in yaml.safe_load((BLIND / name).read_text())}


TEXTS = _texts("blind55_healthy.yaml", "blind57_healthy.yaml", "blind57.yaml", "blind58.yaml",
               "blind58_healthy.yaml")
PACKAGE, TE_WHEEL, HCCL_WHEEL = (TEXTS["b57j-05"].splitlines()[i] for i in (0, 2, 3))
"""A MindNLP notebook's start on ModelArts, MindSpore 2.4.10 with a CANN 7.3 package (b57j-05)."""
TOPI_1X = TEXTS["b55l-09"].splitlines()[1]
"""MindSpore 1.1.1's form, a continuation line without its level (b55l-09)."""
STREAM_CALL = TEXTS["b57l-03"].splitlines()[0]
"""hicann/runtime@c7e31afe docs/04_FAQ (b57l-03): ``[driver interface] halResourceIdAlloc streamid failed ...
drvRetCode=48!``."""


def test_mindspores_package_check_is_a_notice() -> None:
    for line in (PACKAGE, TE_WHEEL, HCCL_WHEEL, TOPI_1X):
        assert "does not match" in line
        assert BENIGN.search(line) and kinds(line) == [], line
    # text after the check's message on the same line keeps its reading (review58)
    joined = PACKAGE + " Traceback (most recent call last): RuntimeError: device error"
    assert not BENIGN.search(joined) and "py:RuntimeError" in kinds(joined)
    # the check's failures and a mismatch stated by another program keep their reading
    assert not BENIGN.search("[CRITICAL] ME(1:2,MainProcess):2024-01-01-00:00:00.000.000 [mindspore/run_check/"
                             "_check_version.py:350] MindSpore relies on whl package \"te\" in Ascend AI software "
                             "package (Ascend Data Center Solution). Please check whether they are installed")
    paddle = ("[W  5/ 9 20:23:15.461 .../src/driver/huawei_ascend_npu/utility.cc:57 InitializeAscendCL] CANN version "
              "mismatch. The build version is 5.1.0, but the current environment version is 5.1.2")
    assert not BENIGN.search(paddle) and "cfg:version" in kinds(paddle)


def test_a_decoded_driver_return_reads_as_its_code() -> None:
    got = kinds(STREAM_CALL)
    assert "rt:207008" in got and "drv:api_error" not in got
    # no return code, or one the table does not hold: the driver call's failure keeps its reading
    bare = STREAM_CALL.replace(", drvRetCode=48!", "!")
    assert "drv:api_error" in kinds(bare)
    assert "drv:api_error" in kinds(STREAM_CALL.replace("drvRetCode=48", "drvRetCode=99999"))
    # at WARNING the runtime does not report the code (it retries): the call's failure keeps its reading (review58)
    assert "drv:api_error" in kinds(STREAM_CALL.replace("[ERROR] RUNTIME", "[WARNING] RUNTIME"))


ACCURACY = [x for x in TEXTS["b58u-08"].splitlines() if "failed = 0/" in x]
"""Ascend/pytorch@741ee42c's commit message, the compile backend's accuracy check (b58u-08)."""
SIGNATURE = TEXTS["b58q-08"].splitlines()[0]
"""sgl-project/sgl-kernel-npu#468 (b58q-08)."""


def test_zero_tallies_are_no_failing_line() -> None:
    assert len(ACCURACY) == 3
    for line in ACCURACY:
        assert has_error_word(line) is not None and quiet_field(line, has_error_word), line
    # a count above zero, a ratio with failures, or another error word keeps the line failing
    for line in ("grads : fail, max_abs = 0.31, failed = 3/199", "failed = 1/199", "errors: 0, RuntimeError: boom",
                 "failed: 0x7020010", "errors = 0.5",
                 # a zero that is no tally of a field (review58): glog's fatal check, a list of ids, a return value
                 "F0101 12:00:00.000 123 hccl_adapter.cc:88] Check failed: 0 == ret (0 vs. 7)", "ranks failed: 0,1,3",
                 "devices failed: 0-7", "aclrtSetDevice failed: 0 (ret=507033)", "Assertion failed: 0, file x.c",
                 "write failed: 0 bytes written, disk full"):
        assert not quiet_zero_tallies(line, has_error_word), line
    assert quiet_zero_tallies("errors: 0, failed = 0", has_error_word)


def test_call_signature_messages_read_type_error() -> None:
    assert kinds(SIGNATURE) == ["py:TypeError"]
    for line in ("f() takes 2 positional arguments but 3 were given",
                 "Model.forward() got an unexpected keyword argument 'cache'",
                 "g() missing 2 required keyword-only arguments: 'a' and 'b'",
                 "TypeError: h() got multiple values for argument 'x'"):
        assert kinds(line) == ["py:TypeError"], line
    # the words in a sentence or a comment name no call
    assert kinds("Please pass the missing 1 required positional argument") == []


def _diagnose(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_passed_unit_test_runs_went_on(engine: Any) -> None:
    for run in ("b58x-07", "b58y-09"):
        text = TEXTS[run]
        d = _diagnose(engine, text)
        assert d["fault_class"] == "unknown", run
        assert any("went on after its last failure" in x for x in d["evidence"]), run
    # the same runs ending in failure keep an answer: the closing lines say the tests failed
    failed_unittest = TEXTS["b58x-07"].replace("\nOK", "\nFAILED (failures=1)")
    failed_gtest = TEXTS["b58y-09"].replace("[  PASSED  ] 3 tests.", "[  FAILED  ] 1 test, listed below:")
    for text in (failed_unittest, failed_gtest):
        assert not any("went on after its last failure" in x for x in _diagnose(engine, text)["evidence"])


def test_multi_line_advice_names_no_timeout() -> None:
    advice = next(x for x in TEXTS["b58p-03"].splitlines() if "HCCL_EXEC_TIMEOUT" in x)
    assert "You can set the interval by using HCCL_EXEC_TIMEOUT" in advice
    assert "hccl:exec_timeout" not in kinds(advice)
    # a timeout HCCL reports, naming the variable, is still one, with the advice after it too (review58)
    assert "hccl:exec_timeout" in kinds("[ERROR] HCCL(3417,python3):2024-05-06-10:12:45.123.456 [task_exception.cc:90] "
                                        "execute timeout, HCCL_EXEC_TIMEOUT=1836s exceeded. You can set the interval "
                                        "by using HCCL_EXEC_TIMEOUT")
    assert "hccl:exec_timeout" in kinds("[ERROR] HCCL(3417,python3):2024-05-06-10:12:45.123.456 [task_exception.cc:90] "
                                        "execute timeout, HCCL_EXEC_TIMEOUT=1836s exceeded")
