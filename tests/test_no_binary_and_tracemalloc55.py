"""Session 55's readings from its blind look (tester55a, tester55b).

- ``Op X does not has any binary``: the operator runtime found no precompiled kernel for the operator on this chip
  (binary mode; the installed kernels package lacks it): ``cfg:env`` on the CANN line that states it
  (cfgenv.RE_OP_NO_BINARY). Real lines: LlamaFactory#3779 (blind b55a-03, which read framework_error 0.83 from the
  EZ9999 / 561000 / aclnn lines around it).
- pytest's and CPython's tracemalloc hint under a warning is a run notice (runnotices.RUN_NOTICES): a pytest run of
  an operator check that passed read config_error 0.60 from its word ``traceback`` (blind b55b-02,
  LeleCheung/Ascend-Optimization).
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import TextView
from opsbrain.ingest.benign import BENIGN
from tests.textviews import line_kinds as kinds

# https://github.com/hiyouga/LlamaFactory/issues/3779
NO_BINARY = [
    "[E OpParamMaker.cpp:273] call aclnnCast failed, detail:EZ9999: Inner Error!",
    "EZ9999: 2024-05-17-01:30:26.960.959  Op Cast does not has any binary.",
    "        TraceBack (most recent call last):",
    "        Kernel Run failed. opType: 53, Cast",
    "        launch failed for Cast, errno:561000.",
    "",
    "[ERROR] 2024-05-17-01:30:26 (PID:41961, Device:0, RankID:-1) ERR01005 OPS internal error",
]
# pytest's warnings summary (src/_pytest/tracemalloc.py) and CPython's warnings module (Lib/warnings.py)
PYTEST_HINT = "  Enable tracemalloc to get traceback where the object was allocated."
CPYTHON_HINT = "ResourceWarning: Enable tracemalloc to get the object allocation traceback"
PASSED_RUN = [
    "tests/test_amin.py: 144 warnings",
    "  /tmp/job/workspace/adapter.py:94: UserWarning: Logical operators 'and' and 'or' are deprecated for non-scalar "
    "tensors; please use '&' or '|' instead",
    "    mask = row_mask and col_mask",
    PYTEST_HINT,
    "  See https://docs.pytest.org/en/stable/how-to/capture-warnings.html#resource-warnings for more info.",
    "",
    "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
    "12 passed, 12 deselected, 146 warnings in 141.41s (0:02:21)",
]


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_no_binary_for_an_operator_reads_its_installation() -> None:
    assert "cfg:env" in kinds(NO_BINARY[1])
    assert "err:EZ9999" in kinds(NO_BINARY[1])  # the code is still read
    assert "cfg:env" not in kinds("EZ9999: 2024-05-17-01:30:26.960.959  Inner Error!")
    assert "cfg:env" not in kinds("[INFO] Op Cast has 3 binaries in binary_info_config.json")


def test_no_binary_moves_the_excerpt_off_a_confident_framework_error(engine: Any) -> None:
    d = _diagnose(engine, NO_BINARY)
    alternatives = dict((c, p) for c, p in d.get("alternatives") or [])
    assert d["fault_class"] == "config_error" or (d["confidence"] < 0.6 and "config_error" in alternatives)


def test_the_tracemalloc_hint_is_a_notice() -> None:
    coroutine = "RuntimeWarning: Enable tracemalloc to get the object allocation traceback"
    for line in (PYTEST_HINT, CPYTHON_HINT, coroutine):
        assert BENIGN.search(line)
        assert kinds(line) == []
    assert not BENIGN.search("Enable tracemalloc to get traceback where the object was allocated. Traceback: x")


def test_a_passed_pytest_run_with_the_hint_is_no_failure(engine: Any) -> None:
    view = TextView()
    for n, line in enumerate(PASSED_RUN, 1):
        view(line, "x.log", n, "")
    assert not view.fails()
    assert _diagnose(engine, PASSED_RUN)["fault_class"] == "unknown"
