"""A report says how much simulated time the run covered (session 35): a run stopped early (Ctrl-C, SIGTERM, a
guard) said "7.0 d simulated" from its planned duration though its journal ended at 1.3 days, and a journal that
ended at 0 s took the planned end as its end (``ended_at_s or duration_s``)."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.report import build_run_report, render


def _journal(ended: float | None) -> dict[str, Any]:
    return {"scenario": "week", "seed": 7, "policy": "auto", "verdict": "aborted", "status": "interrupted",
            "abort_reason": "interrupted by the operator", "duration_s": 604800.0, "ended_at_s": ended,
            "sim_epoch": "2025-03-01T00:00:00", "summary": {"incidents": 0}, "incidents": [], "series": {},
            "workloads": [], "recovery": {}}


@pytest.mark.parametrize(("ended", "said"), [(114900.0, "1.3 d of 7.0 d simulated"),
                                             (0.0, "0.0 s of 7.0 d simulated"),
                                             (604800.0, "· 7.0 d simulated")])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_header_says_the_simulated_time_the_journal_covered(ended: float, said: str, fmt: str) -> None:
    model = build_run_report(_journal(ended))
    out = render(model, fmt)
    assert said in out.replace("&middot;", "·")


def test_the_simulated_clock_ends_where_the_run_ended() -> None:
    assert build_run_report(_journal(0.0))["run"]["sim_end"] == "2025-03-01 00:00:00.0"
