"""Reports: HTML sections and plots present and self-contained, numbers equal to the journal's (HTML, Markdown,
JSON), the manual-baseline slot, campaign summaries, rate series in the journal, and refused output paths."""

from __future__ import annotations

import copy
import json
import os
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from opsbrain.cli import cli
from opsbrain.errors import InputError
from opsbrain.report import build_campaign_report, build_run_report, plots, render
from opsbrain.report import output as out_mod
from opsbrain.runner.series import downsample

SECTIONS = ("summary", "incidents", "other-incidents", "workloads", "recovery-state", "baseline")
INCIDENT_PARTS = ("timeline", "throughput", "root-cause", "topology", "actions", "impact", "followups", "baseline")


@pytest.fixture(scope="module")
def journal() -> dict[str, Any]:
    """A real run: an optical link of a training node dies (the scorecard's scenario)."""
    from opsbrain import chaos

    return dict(chaos.run(chaos.plan("link-down-training")))


@pytest.fixture(scope="module")
def journal_file(journal: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("journals") / "j.json"
    path.write_text(json.dumps(journal))
    return path


def manual_copy(journal: dict[str, Any]) -> dict[str, Any]:
    """The same faults handled by people: slower, with human steps (a stand-in for a --policy manual run)."""
    m = copy.deepcopy(journal)
    m["policy"], m["run_id"] = "manual", "manual-run"
    for i in m["incidents"]:
        if i["injected"]:
            i["ttd_s"], i["ttdiag_s"] = 861.9, 1237.8
            i["ttr_s"] = 1404.8
            i["human_steps"] = 5
    return m


class Page(HTMLParser):
    """What the tests need from a report page: ids, tags, plots per incident, KPIs, external references."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.ids: set[str] = set()
        self.classes: dict[str | None, set[str]] = defaultdict(set)
        self.plots: dict[str | None, list[tuple[str, bool]]] = defaultdict(list)
        self.kpis: dict[str | None, dict[str, tuple[str, str]]] = defaultdict(dict)
        self.rows: dict[str | None, list[str]] = defaultdict(list)
        self.external: list[str] = []
        self.slots: list[str] = []
        self.article: str | None = None
        self._figure: list[Any] | None = None
        self._kpi: list[str] | None = None
        self._value = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags[tag] += 1
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("src", "href", "xlink:href", "action"):
            if key in a and not a[key].startswith("#"):
                self.external.append(f"{tag} {key}={a[key]}")
        if tag == "article":
            self.article = a.get("data-incident")
        if tag == "section" and a.get("class"):
            self.classes[self.article].update(a["class"].split())
        if "data-slot" in a:
            self.slots.append(a["data-slot"])
        if tag == "figure" and "data-plot" in a:
            self._figure = [a["data-plot"], False]
        if tag == "svg" and self._figure is not None:
            self._figure[1] = True
        if tag == "tr" and "data-key" in a:
            self.rows[self.article].append(a["data-key"])
        if tag == "div" and a.get("class") == "kpi":
            self._kpi = [a["data-key"], a["data-value"], ""]
        if tag == "span" and a.get("class") == "value" and self._kpi is not None:
            self._value = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self.article = None
        if tag == "figure" and self._figure is not None:
            self.plots[self.article].append((self._figure[0], self._figure[1]))
            self._figure = None
        if tag == "span" and self._value and self._kpi is not None:
            self.kpis[self.article][self._kpi[0]] = (self._kpi[1], self._kpi[2].strip())
            self._value, self._kpi = False, None

    def handle_data(self, data: str) -> None:
        if self._value and self._kpi is not None:
            self._kpi[2] += data


def faults(journal: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in journal["incidents"] if i["injected"]]


def _one_line_error(result: Result, needle: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("opsbrain: error: "), result.stderr
    assert "Traceback" not in result.output
    assert needle in lines[0], lines[0]


# ---- the journal carries rate series -------------------------------------------------------------------
def test_journal_has_capped_rate_series_showing_the_dip(journal: dict[str, Any]) -> None:
    series = journal["series"]
    assert series["train"]["fields"] == ["t", "steps_per_s"]
    assert series["serve"]["fields"] == ["t", "decode_tokens_per_s", "tpot_ms"]
    for s in series.values():
        assert 0 < len(s["points"]) <= 2000 and s["points_total"] >= len(s["points"])
    f = faults(journal)[0]
    pts = series["train"]["points"]
    pre = [p[1] for p in pts if p[0] < f["injected"]["at_s"]][-1]
    during = [p[1] for p in pts if f["injected"]["at_s"] <= p[0] < f["recovered_at_s"]]
    assert during and min(during) < 0.95 * pre  # the outage is in the series, not smoothed away


def test_downsample_keeps_incident_windows_extremes_and_the_cap() -> None:
    pts = [(float(t), 100.0 + (t % 7)) for t in range(20_000)]
    pts[15_000] = (15_000.0, 1.0)  # a short dip far from any incident
    window = (5_000.0, 5_300.0)
    kept = downsample(pts, [window], 2000)
    assert len(kept) <= 2000
    assert kept[0] == pts[0] and kept[-1] == pts[-1]
    assert [p for p in pts if window[0] <= p[0] <= window[1]] == [p for p in kept if window[0] <= p[0] <= window[1]]
    assert (15_000.0, 1.0) in kept
    assert kept == sorted(kept)
    assert downsample(pts[:50], [], 2000) == pts[:50]


# ---- HTML ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def html_page(journal: dict[str, Any], journal_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Page:
    """The CLI's HTML report of the real run, with a manual baseline attached."""
    d = tmp_path_factory.mktemp("html")
    base = d / "manual.json"
    base.write_text(json.dumps(manual_copy(journal)))
    out = d / "r.html"
    res = CliRunner().invoke(cli, ["report", str(journal_file), "--format", "html", "--out", str(out),
                                   "--baseline", str(base)])
    assert res.exit_code == 0, res.output
    assert str(out) in res.stdout
    assert {p.name for p in d.iterdir()} == {"manual.json", "r.html"}  # no temporary file left behind
    html = out.read_text()
    assert html.count("<svg") >= 2
    assert "<script" not in html and '<link href="http' not in html
    return Page(html)


def test_html_is_self_contained(html_page: Page) -> None:
    assert html_page.tags["script"] == 0 and html_page.tags["link"] == 0 and html_page.tags["img"] == 0
    assert html_page.external == []  # every href is an in-page #fragment (SVG markers and clip paths)


def test_html_has_every_section_and_plot(journal: dict[str, Any], html_page: Page) -> None:
    assert set(SECTIONS) <= html_page.ids
    for f in faults(journal):
        assert f"incident-{f['id']}" in html_page.ids
        assert set(INCIDENT_PARTS) <= html_page.classes[f["id"]]
        kinds = [k for k, has_svg in html_page.plots[f["id"]] if has_svg]
        assert {"timeline", "workload", "topology"} <= set(kinds), html_page.plots[f["id"]]
        assert kinds.count("workload") == len(f["affected_workloads"])


def test_html_numbers_equal_the_journal(journal: dict[str, Any], html_page: Page) -> None:
    for f in faults(journal):
        k = html_page.kpis[f["id"]]
        for key in ("ttd_s", "ttdiag_s", "ttr_s"):
            value, shown = k[key]
            assert float(value) == pytest.approx(f[key])
            assert shown == f"{f[key]:.1f} s"
        value, shown = k["confidence"]
        assert float(value) == f["diagnosis"]["confidence"]
        assert shown.startswith(f"{f['diagnosis']['confidence']:.2f} ")
        assert int(k["action_count"][0]) == len(f["actions"]) == int(k["action_count"][1])
    top = html_page.kpis[None]
    s = journal["summary"]
    assert int(top["faults"][1]) == s["incidents"] and int(top["recovered"][1]) == s["recovered"]
    assert top["median_ttr_s"][1] == f"{s['median_ttr_s']:.1f} s"


def test_html_shows_the_manual_baseline_beside_ours(journal: dict[str, Any], html_page: Page) -> None:
    for f in faults(journal):
        assert {"ttd_s", "ttdiag_s", "ttr_s"} <= set(html_page.rows[f["id"]])
    assert "median_ttr_s" in html_page.rows[None]
    assert "baseline" not in html_page.slots  # the slot is filled, not the "no baseline" placeholder


def test_without_a_baseline_the_slot_says_how_to_add_one(journal: dict[str, Any]) -> None:
    noise = {k: v for k, v in journal.items() if k != "series"}
    noise["incidents"] = [i for i in journal["incidents"] if not i["injected"] and not i.get("false_positive")]
    page = Page(render(build_run_report(noise), "html"))
    assert "baseline" in page.slots and "baseline" in page.ids
    assert set(SECTIONS) <= page.ids


# ---- Markdown and JSON ---------------------------------------------------------------------------------
def test_markdown_has_the_same_numbers(journal: dict[str, Any]) -> None:
    md = render(build_run_report(journal, baseline=manual_copy(journal)), "md")
    for f in faults(journal):
        assert f"**Time to detect:** {f['ttd_s']:.1f} s" in md
        assert f"**Time to diagnose:** {f['ttdiag_s']:.1f} s" in md
        assert f"**Time to recover:** {f['ttr_s']:.1f} s" in md
        assert f"**Confidence:** {f['diagnosis']['confidence']:.2f} " in md
        assert f"**Actions:** {len(f['actions'])}" in md
        assert f"### Actions ({len(f['actions'])})" in md
        assert f"| time to recover | {f['ttr_s']:.1f} s | 1404.8 s |" in md
        assert f"`{f['injected']['component']}`" in md  # ids in code spans: '~' never strikes text through
    assert md.startswith(f"# {journal['scenario']}: {journal['verdict'].upper()}")


def test_json_report_is_the_facts(journal: dict[str, Any], journal_file: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["report", str(journal_file), "--format", "json", "--out", "-"])
    assert res.exit_code == 0, res.output
    model = json.loads(res.stdout)
    assert model["kind"] == "run" and model["report_version"] == 2
    got = {i["id"]: i for i in model["incidents"]}
    for f in journal["incidents"]:
        g = got[f["id"]]
        assert (g["ttd_s"], g["ttdiag_s"], g["ttr_s"]) == (f["ttd_s"], f["ttdiag_s"], f["ttr_s"])
        assert g["action_count"] == len(f["actions"])
        assert (g["diagnosis"] or {}).get("confidence") == (f["diagnosis"] or {}).get("confidence")
    c = model["counts"]  # session 44: actions taken, apart from skipped steps and watching or waiting
    assert c["steps"] == sum(len(i["actions"]) for i in journal["incidents"])
    assert c["actions"] + c["actions_skipped"] + c["actions_watch"] == c["steps"]


def test_report_from_the_run_store(journal: dict[str, Any], tmp_path: Path) -> None:
    from opsbrain.store import RunStore

    store = RunStore(tmp_path / "home")
    store.start("r1", journal["scenario"], journal["seed"], journal["policy"])
    store.finish("r1", journal)
    res = CliRunner().invoke(cli, ["report", "r1", "--data-dir", str(tmp_path / "home"), "--out",
                                   str(tmp_path / "r.md"), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["format"] == "md" and info["url"].startswith("file://")  # format from the suffix
    assert "run `r1`" in (tmp_path / "r.md").read_text()


# ---- campaigns -----------------------------------------------------------------------------------------
def test_campaign_summary_of_several_journals(journal: dict[str, Any], tmp_path: Path) -> None:
    wrong = copy.deepcopy(journal)
    for i in faults(wrong):
        i["diagnosis"] = dict(i["diagnosis"] or {}, fault_class="link_flap")
        i["class_correct"] = i["correct"] = False
    journals = [journal, manual_copy(journal), wrong]
    m = build_campaign_report(journals)
    n = sum(len(faults(j)) for j in journals)
    top1 = sum(bool(i["class_correct"]) for j in journals for i in faults(j))
    assert m["accuracy"]["faults"] == n and m["accuracy"]["top1"] == top1
    c = m["confusion"]
    assert sum(map(sum, c["matrix"])) == n
    assert sum(c["matrix"][r][c["cols"].index(k)] for r, k in enumerate(c["rows"]) if k in c["cols"]) == top1
    assert m["per_class"]["link_down"]["ttr"]["manual"]["median"] == 1404.8
    row = next(r for r in m["vs_manual"] if r["fault_class"] == "link_down")
    assert row["manual"]["median_ttr_s"] == 1404.8 and row["manual"]["human_steps"] == 5
    assert 0 < m["efficiency"]["by_policy"]["auto"]["ettr"] <= 1
    md = render(m, "md")
    assert "| link_down |" in md and "1404.8 s" in md
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "nightly", "journals": journals}))
    res = CliRunner().invoke(cli, ["report", str(path), "--format", "html", "--out", str(tmp_path / "c.html")])
    assert res.exit_code == 0, res.output
    page = Page((tmp_path / "c.html").read_text())
    assert {"summary", "ttr", "confusion", "efficiency", "vs-manual", "runs"} <= page.ids
    assert {k for k, has_svg in page.plots[None] if has_svg} == {"ttr", "confusion", "efficiency", "vs_manual"}
    assert page.external == [] and page.tags["script"] == 0


# ---- output paths --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["missing-dir", "is-dir", "dotdot", "symlink", "trailing-slash", "html-stdout"])
def test_bad_output_paths_exit_2_one_line(case: str, journal_file: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "target.html").write_text("keep me")
    (tmp_path / "link.html").symlink_to(tmp_path / "target.html")
    out, needle = {"missing-dir": (str(tmp_path / "nope" / "r.html"), "does not exist"),
                   "is-dir": (str(tmp_path), "is a directory"),
                   "dotdot": ("../r.html", "'..'"), "symlink": ("link.html", "symlink"),
                   "trailing-slash": ("sub/", "names a directory"), "html-stdout": ("-", "needs a file")}[case]
    res = CliRunner().invoke(cli, ["report", str(journal_file), "--format", "html", "--out", out])
    _one_line_error(res, needle)
    assert (tmp_path / "target.html").read_text() == "keep me"
    assert not (tmp_path.parent / "r.html").exists()


@pytest.mark.parametrize("case", ["no-file", "no-run", "bad-json", "not-a-journal"])
def test_bad_sources_exit_2_one_line(case: str, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    src, needle = {"no-file": (str(tmp_path / "nope.json"), "no such file"), "no-run": ("no-such-run", "no run"),
                   "bad-json": (str(tmp_path / "bad.json"), "not valid JSON"),
                   "not-a-journal": (str(tmp_path / "other.json"), "not a run journal")}[case]
    res = CliRunner().invoke(cli, ["report", src, "--data-dir", str(tmp_path / "home"), "--out",
                                   str(tmp_path / "r.md")])
    _one_line_error(res, needle)
    assert not (tmp_path / "r.md").exists()


def test_atomic_write_replaces_whole_files_and_leaves_nothing_on_failure(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = out_mod.check_out_path(str(tmp_path / "r.md"))
    out_mod.write_atomic(path, b"first")
    out_mod.write_atomic(path, b"second")
    assert path.read_bytes() == b"second" and os.listdir(tmp_path) == ["r.md"]

    def boom(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(out_mod.os, "replace", boom)
    with pytest.raises(InputError, match="No space left"):
        out_mod.write_atomic(path, b"third")
    assert path.read_bytes() == b"second" and os.listdir(tmp_path) == ["r.md"]


# ---- plots ---------------------------------------------------------------------------------------------
def test_plots_are_deterministic_clean_svg(journal: dict[str, Any]) -> None:
    inc = next(i for i in build_run_report(journal)["incidents"] if i["category"] == "fault")
    a, b = plots.timeline_svg(inc, "x"), plots.timeline_svg(inc, "x")
    assert a == b and a.startswith("<svg") and "<metadata" not in a and "<!DOCTYPE" not in a
    assert "isolate_link" in a  # text stays text: searchable, small
    assert plots.timeline_svg(inc, "y") != a  # salted ids: plots can share a page


def test_topology_parts_of_links_and_chips() -> None:
    (a, b) = plots.parse("pod0/node36/l1sw2~pod0/l2plane2/sw05")
    assert (a["node"], a["l1"]) == (36, 2) and (b["plane"], b["l2"]) == (2, 5)
    (h,) = plots.parse("pod0/node12/npu3/hbm")
    assert (h["node"], h["npu"], h["sub"]) == (12, 3, "npu3/hbm")
    assert plots.parse("unknown") == []
