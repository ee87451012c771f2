"""Incident reports for a postmortem (issue 19): severity, one merged timeline with clock times, evidence lines and
what to do next, in the model, HTML and Markdown; and the HTML checked in a real browser (headless Chromium, skipped
where it is not installed)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from opsbrain.report import build_run_report, render
from opsbrain.report.postmortem import clock, next_steps

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ACCENT = (0x1F, 0x4E, 0x79)  # the header band's colour (base.html.j2 --accent)
BAD = (0xC0, 0x39, 0x2B)  # --bad: critical severity badges


@pytest.fixture(scope="module")
def journal() -> dict[str, Any]:
    """A real run: a node of a training job crashes (spare swap, ticket)."""
    from opsbrain import chaos

    return json.loads(json.dumps(chaos.run(chaos.plan("node-crash-training"))))


@pytest.fixture(scope="module")
def model(journal: dict[str, Any]) -> dict[str, Any]:
    return build_run_report(journal)


def test_severity_comes_from_the_handling_level(model: dict[str, Any]) -> None:
    fault = next(i for i in model["incidents"] if i["category"] == "fault")
    assert fault["severity"]["level"] == "critical" and "handling level" in fault["severity"]["basis"]
    assert model["severity"] == "critical"
    assert all(i["severity"]["level"] == "info" for i in model["incidents"] if i["category"] == "noise")


def test_one_timeline_in_time_order_with_clock_times(journal: dict[str, Any], model: dict[str, Any]) -> None:
    ev = model["timeline"]["events"]
    assert [e["t_s"] for e in ev] == sorted(e["t_s"] for e in ev)
    kinds = {e["what"] for e in ev}
    assert {"onset", "signal", "detected", "diagnosed", "action", "recovered"} <= kinds, kinds
    epoch = datetime.fromisoformat(journal["sim_epoch"])
    for e in ev:
        want = epoch + timedelta(seconds=round(e["t_s"], 1))
        assert e["clock"] == want.strftime("%Y-%m-%d %H:%M:%S.") + str(want.microsecond // 100_000)
    fault = next(i for i in journal["incidents"] if i["injected"])
    onset = next(e for e in ev if e["what"] == "onset")
    assert onset["t_s"] == fault["injected"]["at_s"] and fault["injected"]["kind"] in onset["label"]
    acted = [e for e in ev if e["what"] == "action"]
    assert acted and all(e["result"] for e in acted)


def test_evidence_lines_are_the_journals_log_lines(journal: dict[str, Any], model: dict[str, Any]) -> None:
    src = next(i for i in journal["incidents"] if i["injected"])
    inc = next(i for i in model["incidents"] if i["id"] == src["id"])
    assert inc["signals"] and [s["text"] for s in inc["signals"]] == [s["text"] for s in src["signals"]]
    assert inc["signals_total"] >= len(inc["signals"])
    html, md = render(model, "html", journal.get("series")), render(model, "md")
    for s in inc["signals"][:3]:
        assert s["text"][:60].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in html
        assert s["text"][:60].replace("`", "'") in md
    for part in ('id="timeline"', 'class="evidence-lines"', 'class="next-steps"', 'data-severity="critical"'):
        assert part in html
    for head in ("## Timeline", "### Evidence lines", "### What to do next"):
        assert head in md
    assert model["run"]["started_at"] and model["run"]["tool"]["version"]
    assert "UTC" in html and model["run"]["sim_start"] in html


def test_what_to_do_next_follows_the_facts(model: dict[str, Any]) -> None:
    fault = next(i for i in model["incidents"] if i["category"] == "fault")
    steps = next_steps(fault)
    assert steps == fault["next_steps"] and steps
    base = {"category": "fault", "diagnosis": {"fault_class": "hbm_uce", "component": "c1"},
            "grading": {"graded": True, "correct": True}, "followups": {}, "ttr_s": 10.0}
    assert next_steps(base) == ["Nothing left to do: the runbook finished and nothing is out of service."]
    abstained = next_steps(base | {"diagnosis": {"fault_class": "unknown", "component": "c1"}})
    assert abstained[0].startswith("Triage c1")
    wrong = next_steps(base | {"grading": {"graded": True, "correct": False, "injected_kind": "link_down",
                                           "injected_component": "c2"}})
    assert "link_down on c2" in wrong[0]
    work = next_steps(base | {"ttr_s": None, "affected_workloads": ["train"], "followups": {
        "tickets": [{"kind": "replace", "component": "pod0/node3"}], "isolated": ["pod0/node3"],
        "pending": [{"action": "swap_spare", "target": "pod0/node3"}], "spares_used": ["pod0/node46"],
        "spares_left": ["pod0/node47"]}})
    assert [w.split()[0] for w in work] == ["Work", "Repair", "Finish", "Refill", "The"]
    assert "1 spare node left" in work[3] and "train" in work[4]


def test_an_older_journal_still_renders(journal: dict[str, Any]) -> None:
    old = copy.deepcopy(journal)
    for key in ("schema_version", "tool", "started_at", "finished_at", "sim_epoch", "scenario_definition"):
        old.pop(key)
    for inc in old["incidents"]:
        inc.pop("signals", None)
        inc.pop("signals_total", None)
    m = build_run_report(old)
    assert all(e["clock"] is None for e in m["timeline"]["events"]) and m["timeline"]["events"]
    html = render(m, "html", old.get("series"))
    assert "holds no signal lines" in html and render(m, "md")
    assert clock(None, 5.0) is None and clock("2025-03-01T00:00:00", None) is None


# ---- in a real browser -----------------------------------------------------------------------------------------
def _browser() -> str | None:
    return next((p for p in (shutil.which(b) for b in BROWSERS) if p), None)


def screenshot(html_file: Path, png: Path, width: int = 1280, height: int = 2400, timeout_s: float = 120) -> None:
    """Render ``html_file`` in headless Chromium and save a ``width`` x ``height`` screenshot to ``png``."""
    browser = _browser()
    assert browser is not None
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--no-first-run", f"--user-data-dir={png.parent / 'chromium-profile'}",
                    f"--window-size={width},{height}", f"--screenshot={png}", html_file.resolve().as_uri()],
                   capture_output=True, timeout=timeout_s, check=True)


@pytest.mark.skipif(_browser() is None, reason="no Chromium on this machine")
def test_the_report_renders_in_headless_chromium(journal: dict[str, Any], model: dict[str, Any],
                                                  tmp_path: Path) -> None:
    from PIL import Image

    page = tmp_path / "report.html"
    page.write_text(render(model, "html", journal.get("series")))
    dom = subprocess.run([_browser() or "", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'dom-profile'}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for part in ('id="timeline"', 'class="evidence-lines"', 'class="next-steps"', "<svg"):
        assert part in dom, part  # the browser parsed the sections and the inline plots
    png = tmp_path / "report.png"
    screenshot(page, png)
    img = Image.open(png).convert("RGB")
    assert img.size == (1280, 2400)
    assert img.getpixel((10, 10)) == ACCENT  # the header band painted
    colours = dict((c, n) for n, c in img.getcolors(img.width * img.height) or [])
    assert len(colours) > 200  # text, badges and plots, not a blank page
    assert colours.get(BAD, 0) > 200  # the critical severity badges are painted
