"""A replacement ticket states the facts it was opened on (tester CC, session 33): an HBM row exhaustion caught at its
warning (0x80E18401 at 16 rows; the chip held 21) opened a ticket saying "HBM isolated rows reached 64". The ticket's
reason now fills ``{isolated_rows}`` (what the NPU's HBM row count reads: the exporter's ``hbm_isolated_rows``, or
the rows the response isolated) and ``{trigger}`` (the diagnosis the response acted on, with its strongest evidence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.recovery.schema import TicketParams
from tests.test_scoring_impact import _run, _write


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_a_row_exhaustion_ticket_states_the_rows_and_the_code_it_was_opened_on(tmp_path: Path) -> None:
    j = _run(_write(tmp_path, "rows", {
        "duration": 1800, "seed": 11, "noise": False, "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "faults": [{"at": 300, "kind": "hbm_row_exhaustion", "target": "pod0/node36/npu5/hbm",
                    "params": {"rows_at_onset": 20}}]}))
    f = next(i for i in j["incidents"] if i["injected"])
    (ticket,) = [a for a in f["actions"] if a["action"] == "ticket"]
    reason = ticket["detail"]["reason"]
    assert "reached 64" not in reason and "21 HBM rows isolated" in reason, reason
    assert "hbm_row_exhaustion" in reason and "0x80E18401" in reason, reason


def test_a_ticket_reason_names_only_known_fields() -> None:
    assert TicketParams(reason="{isolated_rows} rows; {trigger}").reason
    with pytest.raises(ValueError, match="rows_left"):
        TicketParams(reason="{rows_left} rows")
    with pytest.raises(ValueError):
        TicketParams(reason="a lone { brace")
