"""Which incident a bundle's verdict reports when several tie on error lines (session 46).

The twin's optical-degradation run (seed 7) exported as its first bundle holds a background flap on pod0-node38 (a
port down and back up 0.4 s later: two error lines, dirty_connector, which the knowledge base's handling level says
needs no handling) and, later, the aging optic on pod0-node36 (its lanes alarm, then its port down for good: two
error lines, optical_degradation, SubHealth). Before, equal error counts went to the earliest incident, so the
verdict named the flap that needed nothing; the fault to act on now leads and the flap stays listed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.bundle.secondlook import lead


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_an_optic_to_act_on_leads_a_background_flap_of_as_many_errors(tmp_path: Path, engine: Any) -> None:
    from opsbrain import chaos
    from opsbrain.runner.run import run_plan

    journal = run_plan(chaos.plan("optical-degradation"), engine, bundle_dir=tmp_path)
    fault = next(i for i in journal["incidents"] if i["injected"])
    path = next(b["path"] for b in journal["bundles"] if b["incident"] == fault["id"])
    rep = diagnose_bundle(path, engine)
    rows = {i["id"]: i for i in rep["incidents"]}
    flap = [i for i in rep["incidents"] if (i["diagnosis"] or {}).get("fault_class") == "dirty_connector"]
    optic = [i for i in rep["incidents"] if (i["diagnosis"] or {}).get("fault_class") == "optical_degradation"]
    assert flap and optic, [(i["id"], i["diagnosis"]) for i in rep["incidents"]]
    # the case: the flap opened first with as many error lines as the optic's incident with the most
    assert flap[0]["opened_at_s"] < min(i["opened_at_s"] for i in optic)
    assert flap[0]["errors"] == max(i["errors"] for i in optic) > 0
    assert rep["diagnosis"]["fault_class"] == "optical_degradation", rep["diagnosis"]
    assert rep["diagnosis"]["root"]["host"] == "pod0-node36"
    assert rows[rep["primary"]]["diagnosis"]["fault_class"] == "optical_degradation"
    assert flap[0]["id"] in rows  # the flap stays listed as its own incident
    assert any("needs no handling" in e for e in rep["diagnosis"]["evidence"]), rep["diagnosis"]["evidence"]


def _row(i: str, cls: str, errors: int, at: float) -> dict[str, Any]:
    return {"id": i, "errors": errors, "opened_at_s": at, "diagnosis": {"fault_class": cls, "evidence": []}}


def test_more_error_lines_still_lead_and_ties_of_one_severity_go_to_the_earliest() -> None:
    """The handling level breaks ties of error lines only: a flap with more error lines (the one the job's failure
    joined) still leads; between classes of one severity word the earliest leads, as before (and as ascend-fd's
    knowledge graph orders its faults: first occurrence first)."""
    flap, optic = _row("i1", "dirty_connector", 3, 10.0), _row("i2", "optical_degradation", 2, 20.0)
    assert lead([flap, optic], set(), {"i1": 1, "i2": 1}) is flap
    down, uce = _row("i1", "link_down", 2, 10.0), _row("i2", "hbm_uce", 2, 20.0)
    assert lead([down, uce], set(), {"i1": 1, "i2": 1}) is down
    unknown = _row("i3", "unknown", 2, 30.0)  # an abstention needs a person (warning): above nothing to handle
    assert lead([_row("i1", "dirty_connector", 2, 10.0), unknown], set(), {"i1": 1, "i3": 1})["id"] == "i3"
    assert lead([], set(), {}) is None
