"""Output noise tester T found: the run report's plots use no mathtext (``report`` printed matplotlib's "findfont:
Font family ['STIXGeneral'] not found" lines on stderr: the symlog axis's default labels are mathtext, which looks
for the STIX fonts, and a font cache without them warns), and JSON carries no ``-0.0``."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain import chaos
from opsbrain.report import render_run_report
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan


def test_the_html_report_renders_without_mathtext(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.mathtext

    sc, path = load_scenario("node-crash-training")  # its incident spans minutes: the time axis is symlog
    j = chaos.run(build_plan(sc, str(path)))

    def no_mathtext(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("mathtext used in a report plot")

    monkeypatch.setattr(matplotlib.mathtext.MathTextParser, "parse", no_mathtext)
    html = render_run_report(j, "html")
    assert html.count("<svg") >= 2
    assert "logarithmic beyond" in html  # the symlog plot was drawn


def test_json_output_has_no_negative_zero() -> None:
    """Tester T: ``"redone_steps": -0.0`` in a run journal (a tiny negative rounded to zero keeps its sign)."""
    import json

    from opsbrain.fsio import strict_json
    from opsbrain.runner.run import _clean

    assert json.loads(json.dumps(_clean({"a": -1e-9, "b": [-0.0]}))) == {"a": 0.0, "b": [0.0]}
    assert "-0" not in json.dumps(_clean({"a": -1e-9, "b": [-0.0]}))
    assert strict_json({"a": -0.0, "b": [-0.0, 1.5]}) == '{"a": 0.0, "b": [0.0, 1.5]}'


def test_the_campaign_html_report_renders_without_mathtext(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tester D13: the campaign report's symlog axes (ttr per class, vs manual) still used mathtext labels and
    wrote ~20 "findfont" lines on stderr; they share the run report's plain-number axis now."""
    import copy

    import matplotlib.mathtext

    from opsbrain.report import render_campaign_report

    auto = chaos.run(chaos.plan("node-crash-training"))
    manual = copy.deepcopy(auto) | {"policy": "manual", "run_id": "manual-run"}
    for inc in manual["incidents"]:
        if inc["injected"] and inc["ttr_s"] is not None:
            inc["ttr_s"] += 900.0

    def no_mathtext(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("mathtext used in a campaign report plot")

    monkeypatch.setattr(matplotlib.mathtext.MathTextParser, "parse", no_mathtext)
    html = render_campaign_report([auto, manual], "html")
    assert 'data-plot="vs_manual"' in html and 'data-plot="ttr"' in html
    assert "logarithmic beyond" in html
