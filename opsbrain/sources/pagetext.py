"""Prometheus text-format pages -> samples (name, labels, value, time stamp), for
:mod:`opsbrain.sources.exporter`, which maps them to readings.

Every label set and every line that is not a plain ``name{labels} value [timestamp]`` sample is parsed by
prometheus_client's ``text_string_to_metric_families``; :class:`PageParser` remembers its answer per label string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

Sample = tuple[str, "str | None", dict[str, str], float, "float | None"]
"""(name, raw label string or None, labels, value, time stamp in s or None): one sample of a page or a query API."""


STAMP_MIN_S = 978307200.0
"""2001-01-01T00:00:00Z. A sample's time stamp is milliseconds since the epoch (Prometheus docs, "Exposition
formats": text format, ``timestamp`` an int64 of milliseconds; npu-exporter's pages as its metrics reference shows
them, ``... 1000 1723621883587``). One that reads before this as milliseconds is not one: a page stamped in seconds
(npu-exporter's own test page, collector/testdata/prometheus_metrics, stamps ``1606402000``: as milliseconds
1970-01-19) is read in seconds where that gives a time in range, and said; else the stamp is no read time (session
42; before, such a page was read on a clock of its own in January 1970, without a word)."""
STAMP_MAX_S = 4102444800.0
"""2100-01-01T00:00:00Z: a stamp after it as milliseconds (microseconds, nanoseconds?) is no read time, said."""


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class PageParser:
    """Parses exporter pages; keeps the label sets it has seen (a scheduled source re-reads the same series every
    collection), so only new series cost a full parse."""

    def __init__(self, max_cached: int = 1_000_000) -> None:
        self.labels: dict[str, dict[str, str]] = {}
        self.ids: dict[tuple[str, str | None], tuple[str, tuple[str, str]]] = {}
        """(label string, default host) -> (NPU id, (module id, link id)) of the series (kept by
        :func:`opsbrain.sources.exporter.readings_of_samples`)."""
        self.max_cached = max_cached
        self.stamp_notes: dict[str, tuple[int, str]] = {}
        """What the last page's time stamps needed (read as seconds, or no time): reason -> [count, first example]."""

    def stamp(self, ms: float, name: str) -> float | None:
        """A sample's time stamp (milliseconds, the text format's unit) in seconds; one out of range as milliseconds
        (:data:`STAMP_MIN_S`, :data:`STAMP_MAX_S`) read as seconds where that is in range, else None; each said in
        :attr:`stamp_notes`."""
        t = ms / 1000.0
        if STAMP_MIN_S <= t <= STAMP_MAX_S:
            return t
        got: float | None = None
        if t < STAMP_MIN_S and STAMP_MIN_S <= ms <= STAMP_MAX_S:
            got = ms
            why, ex = ("sample time stamps in seconds, not the text format's milliseconds (as milliseconds before "
                       "2001): read as seconds", f"{name} {ms:.0f} = {_iso(ms)}")
        else:
            why, ex = ("sample time stamps that are no time in milliseconds or seconds (before 2001 or after 2100): "
                       "not used as read times", f"{name} {ms:.0f}")
        n, first = self.stamp_notes.get(why, (0, ex))
        self.stamp_notes[why] = (n + 1, first)
        return got

    def stamp_lines(self) -> list[str]:
        """The last page's :attr:`stamp_notes` as ``Readings.notes`` lines (``<count> <reason> (first: <ex>)``)."""
        return [f"{n} {why} (first: {ex})" for why, (n, ex) in self.stamp_notes.items()]

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
        self.stamp_notes = {}
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
                if ts is not None and not STAMP_MIN_S <= ts <= STAMP_MAX_S:  # not milliseconds (session 42)
                    ts = self.stamp(float(rest[1]), name)
            except ValueError:
                for nm, lb, v, t in _parse_with_prometheus_client(line):  # the library's verdict (or ValueError)
                    yield nm, None, lb, v, None if t is None else self.stamp(t * 1000.0, nm)
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
