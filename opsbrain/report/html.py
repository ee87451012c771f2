"""Render a report model as one self-contained HTML file (jinja2, autoescaped; plots as inline SVG)."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from opsbrain import __version__
from opsbrain.report import plots, text


def environment() -> Environment:
    """The template environment: package templates, autoescape on, the formatting filters of :mod:`text`."""
    env = Environment(loader=PackageLoader("opsbrain.report", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(seconds=text.seconds, human=text.human, both=text.both, conf=text.conf, pct=text.pct,
                       num=text.num, rel=text.rel, short=plots.short, utc=text.utc)
    env.globals.update(diff=text.diff, lower=text.lower, version=__version__)
    env.filters["impact_label"] = text.impact_label
    return env


def run_figures(model: dict[str, Any], series: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The inline SVG plots of each detailed incident: timeline, affected workloads, topology."""
    end = text.run_end(model["run"])
    figs: dict[str, dict[str, Any]] = {}
    topo: dict[str, Markup] = {}  # one picture per set of parts: repeated incidents on a part share it
    for k, inc in enumerate(i for i in model["incidents"] if i["detailed"]):
        salt = f"{k}-{inc['id']}"
        names = inc["affected_workloads"] or inc["affected_inferred"]
        key = json.dumps(inc["components"], sort_keys=True)
        wl = [(w, Markup(plots.workload_svg(series[w], inc, w, end, f"{salt}-w{w}"))) for w in names
              if w in series and series[w].get("points")]
        figs[inc["id"]] = {"timeline": Markup(plots.timeline_svg(inc, f"{salt}-t")), "workloads": wl,
                           "topology": topo.get(key) or topo.setdefault(key, Markup(plots.topology_svg(
                               inc["components"], f"{salt}-g")))}
    return figs


def render_run(model: dict[str, Any], series: dict[str, Any] | None = None) -> str:
    """The HTML report of one run (``series``: the journal's per-workload rate histories, for the plots)."""
    series = series or {}
    kinds = {name: s.get("kind") for name, s in series.items()}
    return environment().get_template("run.html.j2").render(m=model, figs=run_figures(model, series), kinds=kinds)


def render_campaign(model: dict[str, Any]) -> str:
    """The HTML report of a campaign (several runs)."""
    from opsbrain.report.campaign import campaign_figures

    return environment().get_template("campaign.html.j2").render(m=model, figs=campaign_figures(model))
