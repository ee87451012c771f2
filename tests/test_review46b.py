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

import re
from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.primcap import PRIMARY_CAP, primary_capped
from opsbrain.diagnosis.realtext import WARNING_STATED
from opsbrain.ingest import Signal
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.regex_shape import shape_problems
from tests.test_benign_hdcdrv_closed46 import REPLY


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


# ---- primcap and hdcdrv: the gaps the mutations showed ----------------------------------------------------------
def _sig(kind: str, severity: int = 2) -> Signal:
    return Signal(100.0, kind, "pod0/node3", "pod0/node3", severity, kind)


def _capped(cls: str, every: list[Signal], verdict: list[Signal] | None = None) -> bool:
    d = {"fault_class": cls, "confidence": 0.9, "evidence": []}
    primary_capped(d, every, every if verdict is None else verdict)
    return bool(d["confidence"] == PRIMARY_CAP)


def test_a_warning_level_primary_signature_of_the_class_names_it() -> None:
    # msg:driver (the driver's message, a warning here) is driver_firmware_error's primary signature
    hung = _sig("os:hung_task")
    assert not _capped("driver_firmware_error", [_sig("msg:driver", severity=1), hung])
    assert _capped("driver_firmware_error", [hung])  # the control: without it, node_hang's signature caps


def test_an_imported_vendor_entry_of_another_class_caps_nothing() -> None:
    assert not _capped("qingtian_failure", [_sig("vendor:node_hang")])
    assert _capped("qingtian_failure", [_sig("os:hung_task")])  # the control


def test_a_kind_the_answered_class_gives_a_role_caps_nothing() -> None:
    # 0x80E01801 is hbm_uce's primary signature and a secondary one of hbm_row_exhaustion
    assert not _capped("hbm_row_exhaustion", [_sig("dev:80E01801")])
    assert _capped("npu_off_bus", [_sig("dev:80E01801")])  # the control: a class that gives it no role


def test_only_the_closed_sessions_error_code_is_the_late_reply() -> None:
    other = re.sub(r"error_code=-22\)", "error_code=-110)", REPLY)
    assert other != REPLY and not BENIGN.search(other)
    assert [s.kind for s in parse_line(other)] != []
