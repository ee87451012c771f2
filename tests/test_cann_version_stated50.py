"""A CANN error code's line that states a version mismatch reads ``cfg:version`` beside the code (session 50;
:data:`opsbrain.ingest.parsers.framework.RE_VERSION_STATED`, read by :mod:`opsbrain.ingest.parsers.cann`).

The CANN troubleshooting guide's case "operator library package version problem makes loading a single operator
fail" (算子库包版本问题导致加载单算子失败) prints the mismatch on the inner-error code's own line; the cann parser took
the line for its code and no parser after it read the words."""

from __future__ import annotations

from opsbrain.ingest.text import ingest_text

OPP_MISMATCH = ("E19999 The opp version of the model does not match the current opp run package, Model is "
                "[6.4.T11.0.B300], opp run package is [7.0.T3.0.B107], try to convert the om again!")
"""hicann/docs docs/troubleshooting/zh/operator_lib_version_load_failed.md @b0042ffb (a dev excerpt of the corpus)."""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def test_a_code_line_stating_a_version_mismatch_reads_cfg_version() -> None:
    assert _kinds(OPP_MISMATCH) == ["err:E19999", "cfg:version"]


def test_a_code_line_without_the_statement_reads_the_code_alone() -> None:
    assert _kinds("E19999: Inner Error!") == ["err:E19999"]
    assert "cfg:version" not in _kinds("EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 Cannot find bin of op Range, "
                                       "integral key 0/1/|int64/ND/int64/ND/int64/ND/int64/ND/.")
