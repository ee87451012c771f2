"""Session 41 (orch41, scen41's finding 4): ``chaos run -o plain`` (and ``runs show -o plain``) printed the fault
table and no verdict; the verdict line now goes to stderr, stdout staying the header and one line per fault."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.cli.journal_view import print_journal


def _journal(verdict: str) -> dict[str, Any]:
    inc = {"id": "f0001", "injected": {"kind": "link_down", "component": "pod0/node1/l1sw0~pod0/l2plane0/sw00"},
           "diagnosis": {"fault_class": "link_down", "component": "pod0/node1/l1sw0~pod0/l2plane0/sw00",
                         "confidence": 0.9},
           "ttd_s": 3.0, "ttdiag_s": 10.0, "ttr_s": 40.0, "recovery": "after_detection", "class_correct": True,
           "correct": True, "detection": "detected"}
    return {"scenario": "op-x", "seed": 7, "policy": "auto", "verdict": verdict, "run_id": "R1",
            "incidents": [inc], "steady_state": {}, "summary": {}}


@pytest.mark.parametrize("verdict,word", [("passed", "PASSED"), ("failed", "FAILED")])
def test_plain_prints_the_verdict_line_on_stderr(capsys: pytest.CaptureFixture[str], verdict: str, word: str
                                                 ) -> None:
    print_journal(_journal(verdict), "plain")
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split("\t")[0] == "fault" and len(lines) == 2  # header and the one fault, nothing else
    assert err.strip() == f"op-x seed 7 policy auto: {word}  run id R1"
