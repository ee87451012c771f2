"""Diagnosis reports for operators: one run (or a campaign of runs) as HTML with plots, Markdown or JSON.

``build`` turns journals into a report model (the facts), ``html``/``markdown`` render it, ``json`` is the model
itself. :func:`make_report` is what ``opsbrain report`` calls: load, build, render, validate the path, write
atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.fsio import strict_json
from opsbrain.report.build import build_run_report
from opsbrain.report.output import as_journals, check_journal, check_out_path, is_journal, load_source, write_atomic

FORMATS = ("html", "md", "json")
SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}

__all__ = ["FORMATS", "build_campaign_report", "build_run_report", "make_report", "render", "render_campaign_report",
           "render_run_report"]


def render_run_report(journal: dict[str, Any], fmt: str, baseline: dict[str, Any] | None = None) -> str:
    """One run's report as text in ``fmt`` (html, md or json)."""
    model = build_run_report(journal, baseline=baseline)
    return render(model, fmt, journal.get("series"))


def build_campaign_report(journals: list[dict[str, Any]], summary: dict[str, Any] | None = None) -> dict[str, Any]:
    from opsbrain.report.campaign import build_campaign_report as build

    return build(journals, summary)


def render_campaign_report(journals: list[dict[str, Any]], fmt: str, summary: dict[str, Any] | None = None) -> str:
    """A campaign report (several journals) as text in ``fmt``."""
    return render(build_campaign_report(journals, summary), fmt)


def render(model: dict[str, Any], fmt: str, series: dict[str, Any] | None = None) -> str:
    """A report model as html, md or json text."""
    if fmt == "json":
        return strict_json(model, indent=2, sort_keys=False, default=str) + "\n"
    campaign = model.get("kind") == "campaign"
    if model.get("kind") == "superpod" and fmt in ("md", "html"):  # issue 21: bounds, figures, a page per tenant
        from opsbrain.report import superpod

        return superpod.render_md(model) if fmt == "md" else superpod.render_html(model)
    if fmt == "md":
        from opsbrain.report import markdown

        return markdown.render_campaign(model) if campaign else markdown.render_run(model)
    if fmt == "html":
        from opsbrain.report import html

        return html.render_campaign(model) if campaign else html.render_run(model, series)
    raise InputError(f"unknown format {fmt!r} (use one of {', '.join(FORMATS)})", path="--format")


def guess_format(out: str, fmt: str | None) -> str:
    """The explicit format, else the one the output name's suffix implies, else html."""
    if fmt:
        return fmt
    return SUFFIXES.get(Path(out).suffix.lower(), "html") if out != "-" else "md"


def make_report(sources: list[str], out: str, fmt: str | None = None, baseline: str | None = None,
                campaign: bool = False, data_dir: Path | None = None, force: bool = False) -> dict[str, Any]:
    """Build and write a report. ``sources``: run ids or journal files (several, a list of journals or a campaign
    summary make a campaign report). ``out`` ``-`` returns the text instead of writing it (not for html).
    Returns what was done: path, url, format, kind, bytes, incidents, and ``text`` for ``-``."""
    if not sources:
        raise InputError("give a run id or a journal file")
    fmt = guess_format(out, fmt)
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (use one of {', '.join(FORMATS)})", path="--format")
    path = None
    if out == "-":
        if fmt == "html":
            raise InputError("an HTML report needs a file: give --out FILE.html", path="--out")
    else:
        path = check_out_path(out, force=force)
        _not_an_input(path, [*sources, *([baseline] if baseline else [])], force)
        _suffix_agrees(path, fmt)
    loaded = [(s, load_source(s, data_dir)) for s in sources]
    try:
        return _build_and_write(loaded, path, fmt, baseline, campaign, data_dir, force)
    except InputError:
        raise
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, ZeroDivisionError, OverflowError,
            RecursionError) as exc:  # a field of a type check_journal does not cover: still one line, the file
        raise InputError(f"malformed journal: {type(exc).__name__}: {exc}", file=", ".join(sources)) from None


def _suffix_agrees(path: Path, fmt: str) -> None:
    """InputError when ``--out``'s suffix names another report format than the one asked for (``--format md --out
    r.json``: Markdown in a file every tool takes for JSON; session 44). A suffix that names no report format
    (``.txt``, none) is the operator's choice."""
    implied = SUFFIXES.get(path.suffix.lower())
    if implied is not None and implied != fmt:
        raise InputError(f"--format {fmt} does not fit --out {path.name} ({path.suffix} means {implied}): drop "
                         f"--format, or write to {path.stem}.{fmt}", path="--out")


def _not_an_input(path: Path, inputs: list[str], force: bool) -> None:
    """InputError when the report would replace one of its own input files (``report J.json --out J.json``: the
    journal was lost to its report; session 41, review41), unless ``--force``."""
    if force or not path.exists():
        return
    for source in inputs:
        try:
            same = Path(source).is_file() and Path(source).samefile(path)
        except OSError:
            same = False
        if same:
            raise InputError(f"refusing to write the report over its input {source!r}; give another --out (or "
                             "--force)", path="--out")


def _build_and_write(loaded: list[tuple[str, Any]], path: Path | None, fmt: str, baseline: str | None,
                     campaign: bool, data_dir: Path | None, force: bool) -> dict[str, Any]:
    for s, data in loaded:
        for k, j in enumerate(as_journals(data, s) if not is_journal(data) else [data]):
            check_journal(j, s, "" if is_journal(data) else f"journals[{k}].")
    single = len(loaded) == 1 and is_journal(loaded[0][1]) and not campaign
    if single:
        journal = loaded[0][1]
        base = None
        if baseline is not None:
            try:
                base = load_source(baseline, data_dir)
                if not is_journal(base):
                    raise InputError("the baseline must be one run journal", file=baseline)
                check_journal(base, baseline)
            except InputError as exc:  # name the option: the sources and the baseline are read alike
                raise InputError(exc.reason, file=exc.file, path="--baseline" + (f": {exc.path}" if exc.path else "")
                                 ) from None
        from opsbrain.report.superpod import build_superpod_report, is_superpod

        if is_superpod(journal) and base is None:
            model = build_superpod_report(journal)
            incidents = len(journal["incidents"])
        else:
            model = build_run_report(journal, baseline=base)
            incidents = len(model["incidents"])
        body = render(model, fmt, journal.get("series"))
    else:
        if baseline is not None:
            raise InputError("--baseline applies to one run; put manual runs into the campaign instead")
        journals = [j for s, data in loaded for j in as_journals(data, s)]
        first = loaded[0][1]
        summary = None
        if len(loaded) == 1 and isinstance(first, dict) and not is_journal(first):
            summary = {k: v for k, v in first.items()  # runs: the journals, or the campaign's counts (kept)
                       if k != "journals" and not (k == "runs" and not isinstance(v, dict))}
        model = build_campaign_report(journals, summary)
        body = render(model, fmt)
        incidents = model["accuracy"]["faults"]
    data = body.encode("utf-8")
    result: dict[str, Any] = {"format": fmt, "kind": model["kind"], "bytes": len(data), "incidents": incidents,
                              "path": None, "url": None}
    if path is None:
        result["text"] = body
        return result
    write_atomic(path, data, force=force)
    result["path"] = str(path)
    result["url"] = path.resolve().as_uri()
    return result
