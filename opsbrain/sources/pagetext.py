"""Prometheus text-format pages -> samples (name, labels, value, time stamp), for
:mod:`opsbrain.sources.exporter`, which maps them to readings.

Every label set and every line that is not a plain ``name{labels} value [timestamp]`` sample is parsed by
prometheus_client's ``text_string_to_metric_families``; :class:`PageParser` remembers its answer per label string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Sample = tuple[str, "str | None", dict[str, str], float, "float | None"]
"""(name, raw label string or None, labels, value, time stamp in s or None): one sample of a page or a query API."""


class PageParser:
    """Parses exporter pages; keeps the label sets it has seen (a scheduled source re-reads the same series every
    collection), so only new series cost a full parse."""

    def __init__(self, max_cached: int = 1_000_000) -> None:
        self.labels: dict[str, dict[str, str]] = {}
        self.ids: dict[tuple[str, str | None], tuple[str, tuple[str, str]]] = {}
        """(label string, default host) -> (NPU id, (module id, link id)) of the series (kept by
        :func:`opsbrain.sources.exporter.readings_of_samples`)."""
        self.max_cached = max_cached

    def _labels(self, text: str) -> dict[str, str]:
        got = self.labels.get(text)
        if got is None:
            got = _parse_with_prometheus_client("x" + text + " 0")[0][1]
            if len(self.labels) < self.max_cached:
                self.labels[text] = got
        return got

    def samples(self, text: str) -> Iterator[tuple[str, dict[str, str], float, float | None]]:
        """(name, labels, value, timestamp in s or None) of every sample of the page."""
        for name, _key, labels, value, ts in self.keyed_samples(text):
            yield name, labels, value, ts

    def keyed_samples(self, text: str) -> Iterator[tuple[str, str | None, dict[str, str], float, float | None]]:
        """As :meth:`samples`, with the raw label string of each sample (None where the library parsed the line)."""
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line[0] == "#":
                continue
            brace = line.find("{")
            try:
                if brace > 0:
                    close = line.rindex("}")
                    key = line[brace:close + 1]
                    name, labels, rest = line[:brace], self._labels(key), line[close + 1:].split()
                else:
                    name, *rest = line.split()
                    key, labels = "", {}
                if not 1 <= len(rest) <= 2 or not _NAME.match(name):
                    raise ValueError(f"not a sample line: {line[:80]!r}")
                value = float(rest[0])
                ts = float(rest[1]) / 1000.0 if len(rest) == 2 else None
            except ValueError:
                for nm, lb, v, t in _parse_with_prometheus_client(line):  # the library's verdict (or ValueError)
                    yield nm, None, lb, v, t
                continue
            yield name, key, labels, value, ts


_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")


def _parse_with_prometheus_client(text: str) -> list[tuple[str, dict[str, str], float, float | None]]:
    from prometheus_client.parser import text_string_to_metric_families

    out = []
    for fam in text_string_to_metric_families(text + "\n"):
        for smp in fam.samples:
            ts = float(smp.timestamp) if smp.timestamp is not None else None
            out.append((smp.name, dict(smp.labels), float(smp.value), ts))
    return out


_RE_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)  # the title's spaces are joined below (session 42:
# ``\s*(.*?)\s*`` split a run of spaces three ways, seconds on a page's 8 KB head)


def page_problem(text: str) -> str | None:
    """What is wrong with a page the text parser refused, where it can be told (session 41; before, the parser's
    own words only: ``invalid metric name:<html>``): an HTML page (a proxy's error page, a login page: its title
    said), or a page that ends inside a line (a download or copy cut short), its last line shown. None: the
    parser's message says it."""
    head = text[:1024].lstrip().lower()
    if head.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in head[:200]:
        m = _RE_TITLE.search(text[:8192])
        title = " ".join(m.group(1).split())[:40] if m else ""
        return f"an HTML page{f' ({title!r})' if title else ''}, not metrics: is this the exporter's /metrics address?"
    if head.startswith("{") and '"resulttype"' in head:  # a saved /api/v1/query answer (session 41)
        return "a Prometheus query answer (JSON), not a page: read it with --source prometheus-api"
    body, sep, last = text.rpartition("\n")
    if sep and last.strip() and not text.endswith("\n"):
        try:
            list(PageParser().keyed_samples(body + "\n"))
        except ValueError:
            return None
        return f"it ends inside its last line (cut short?): {last[:40]!r}"
    return None
