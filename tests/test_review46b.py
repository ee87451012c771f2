"""Session 46, second read of the later merges (review46b): what the reading found and the test gaps it closed.

- primcap46's cap ran on the twin's own bundles: the Qingtian card's fault, exported by ``run_plan(...,
  bundle_dir=...)`` as the round trip exports it, read qingtian_failure 0.905 before the cap and 0.60 after it, with
  the evidence "the answer rests on what the model learned from the twin's faults alone" -- of 418 round-trip bundles
  the two Qingtian fault bundles changed, both right. The cap's own reasoning (diagnosis/primcap.py) is that inside
  the twin the model's association holds by construction, so only real text is capped; a bundle whose every worker
  is named as the twin names its nodes is the twin's (the reader's ``real_nodes`` rule).
- realtext.WARNING_STATED's TORCH_WARN head split a run of digits between two repeats (``[\\d:.]+`` then
  ``[\\w.-]+``): quadratic, 0.17 s on one 4,000-character line (the cut every reader makes), and 300 such distinct
  error lines took 42.6 s in ``diagnose --logs``.
- Mutations of primcap46, tester46j that no test caught: a warning-level primary signature of the answered class
  counts as naming it; an imported vendor entry and a kind the answered class gives a role to trigger nothing; only
  hdcdrv's error code -22 (the session closed) is the late reply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.primcap import PRIMARY_CAP
from opsbrain.diagnosis.realtext import WARNING_STATED
from tests.regex_shape import shape_problems


def test_the_twins_own_qingtian_bundle_keeps_its_confidence(tmp_path: Path, engine: Any) -> None:
    from opsbrain import chaos
    from opsbrain.runner.run import run_plan

    journal = run_plan(chaos.plan("qingtian-failure-training"), engine, bundle_dir=tmp_path)
    fault = next(i for i in journal["incidents"] if i["injected"])
    path = next(b["path"] for b in journal["bundles"] if b["incident"] == fault["id"])
    d = diagnose_bundle(path, engine)["diagnosis"]
    assert d["fault_class"] == "qingtian_failure"
    assert d["confidence"] > PRIMARY_CAP, (d["confidence"], d["evidence"])
    assert not any("primary signature" in e for e in d["evidence"]), d["evidence"]


# ---- the TORCH_WARN head in linear time, same matches ---------------------------------------------------------------
TORCH_WARN = [  # the heads WARNING_STATED's docstring cites (c10's MessageLogger, torch_npu)
    "[W701 15:18:55.475521766 socket.cpp:207] [c10d] The server socket has failed to listen",
    "[W1020 17:16:14.043165378 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed",
    "[W compiler_depend.ts:133] Warning: Device do not support double dtype now",
    "  [W compiler_depend.ts:26] Warning: failed to fall back to AI CPU",
]
NOT_WARN = ["[W701 socket.cpp] no line number", "[Worker 3] error: failed", "[W701 15:18:55 :207] error"]


def test_the_torch_warn_head_is_read_in_linear_time() -> None:
    assert shape_problems(WARNING_STATED.pattern) == []


@pytest.mark.parametrize("line", TORCH_WARN)
def test_the_torch_warn_heads_stay_warnings(line: str) -> None:
    assert WARNING_STATED.match(line), line


@pytest.mark.parametrize("line", NOT_WARN)
def test_near_misses_stay_unstated(line: str) -> None:
    assert not WARNING_STATED.match(line), line

