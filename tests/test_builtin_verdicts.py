"""Built-in scenarios end with the verdict they declare (``metadata.expected_verdict``, default ``passed``): an
operator running ``chaos run`` on a built-in scenario is never told FAILED without the scenario saying so and why.
Each run takes a few seconds; only the scenarios whose verdict or tolerance was reviewed are run here."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain import chaos
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan

REVIEWED = ["aicore-hang-training", "hbm-row-exhaustion", "node-hang-training", "silent-data-corruption",
            "link-down-manual", "node-crash-manual"]


def _run(name: str) -> dict[str, Any]:
    sc, path = load_scenario(name)
    return chaos.run(build_plan(sc, str(path)))


@pytest.mark.parametrize("name", REVIEWED)
def test_the_verdict_is_the_one_the_scenario_declares(name: str) -> None:
    j = _run(name)
    assert j["verdict"] == j["expected_verdict"], (j["steady_state"]["longest_deviation_s"], j["expectations"])
    assert all(i["correct"] for i in j["incidents"] if i["injected"]), "the injected fault is diagnosed correctly"
    if j["expected_verdict"] == "failed":
        assert j["expected_reason"]


def test_aicore_hang_is_localized_to_the_die() -> None:
    """aicore-hang-training (session 37): the hung die's A3 logical device id in its device-OS event is mapped back
    to the die, so the diagnosis names pod0/node44/npu0/die1, not only its NPU, and the scenario passes."""
    j = _run("aicore-hang-training")
    assert j["expected_verdict"] == "passed" and j["verdict"] == "passed"
    assert not j["steady_state"]["deviated"]
    assert [e["problems"] for e in j["expectations"]] == [[]]
    inc = next(i for i in j["incidents"] if i["injected"])
    assert inc["diagnosis"]["component"] == "pod0/node44/npu0/die1"


def test_expected_failed_needs_a_reason(tmp_path: Any, runner: Any) -> None:
    from opsbrain.cli import cli

    text = (load_scenario("node-hang-training")[1]).read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("  tags:\n", "  expected_verdict: failed\n  tags:\n", 1))
    res = runner.invoke(cli, ["chaos", "validate", str(bad)])
    assert res.exit_code == 2
    assert "expected_reason" in res.output


def test_the_run_line_says_a_failure_is_expected() -> None:
    from opsbrain.cli.journal_view import expected_note

    base = {"verdict": "failed", "expected_verdict": "failed", "expected_reason": "manual baseline"}
    assert expected_note(base) == " (expected by the scenario: manual baseline)"
    assert expected_note({**base, "verdict": "passed"}) == " (the scenario expects FAILED)"
    assert expected_note({"verdict": "failed"}) == ""
