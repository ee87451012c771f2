"""A Prometheus server's HTTP API as a source (``--source prometheus-api --url http://PROM:9090``): the history
a one-off sweep needs, read from the server's TSDB instead of kept by opsbrain.

One sweep asks for every npu-exporter series of :data:`~opsbrain.sources.exporter.METRIC_TABLE` with instant
queries (``GET /api/v1/query?query={__name__=~"..."}&time=T``, the Prometheus HTTP API) at the times the twin's
cold sweep reads its own store: now, the windowed checks' window starts (10 min, 1 h) and the trend re-read points
(every 20 min over 2 h), plus ``timestamp(npu_chip_info_temperature)`` for each chip's sample age. Each answer
becomes one collection; the newest is swept with the others as its history, so windowed counts and the Rx trend
are there at the first sweep. A chip with no series now (its exporter stopped) is aged from its last sample as the
server holds it (:func:`last_seen_query`), not from the last query time that saw it.

Link-down events are counted on the server, over every sample it kept in the link-down window (24 h), not from the
link state at those query times (a port that flapped between two of them was not seen): one more instant query,
:func:`link_downs_query`, counts each port's UP (1) -> DOWN (0) changes between consecutive samples, with
npu-exporter's -1 (not read) left out, so a missing or unread sample is neither UP nor DOWN. The count is still a
lower bound: a down and up again between two evaluation steps is not seen.
"""

from __future__ import annotations

import math
import re
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from opsbrain.errors import InputError
from opsbrain.sources.base import ReadingsSource, connection
from opsbrain.sources.exporter import METRIC_TABLE, SAME_CLOCK_S, port_link, readings_of_samples
from opsbrain.sources.httpauth import NO_AUTH, HttpAuth
from opsbrain.sources.httpget import fetch, shown_url
from opsbrain.sources.pagetext import PageParser, Sample
from opsbrain.sources.readings import CollectionHistory, Readings, read_anything, snapshot_from
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot
from opsbrain.yamlio import json_or_none

MAX_ANSWER_BYTES = 256 << 20


_RE_RANGE = re.compile(r"_(\d)\.\.(\d)$")


def _names() -> list[str]:
    out = []
    for row in METRIC_TABLE:
        if row.metric[0] == "(":  # not a metric (the sample time stamp)
            continue
        if row.metric.endswith("_0..3"):
            out += [row.metric[:-4] + str(k) for k in range(4)]
        elif row.metric.endswith("_Z_X_Y"):  # the legacy names: lane, udie and port in the name (a regex)
            out.append(row.metric[:-5] + r"[0-3]_[0-9]+_[0-9]+")
        elif m := _RE_RANGE.search(row.metric):  # a number range in the name: _1..9, _1..7
            out.append(row.metric[:m.start()] + f"_[{m.group(1)}-{m.group(2)}]")
        elif row.metric.endswith("_X_Y"):  # udie and port in the name
            out.append(row.metric[:-3] + r"[0-9]+_[0-9]+")
        else:
            out.append(row.metric)
    return out


SELECTOR = '{__name__=~"' + "|".join(_names()) + '"}'
AGE_QUERY = "timestamp(npu_chip_info_temperature)"
LINK_STATUS = [n for n in _names() if n.startswith("npu_chip_info_link_status")]
"""npu-exporter's link-status names (METRIC_TABLE: the plain one and the legacy ``_X_Y`` ones): 1 UP, 0 DOWN, -1 not
read."""
NAME_LABEL = "opsbrain_metric"
"""The label :func:`link_downs_query` keeps each series' metric name in (``resets`` drops ``__name__``, and two legacy
names of one NPU would then collide)."""


def link_downs_query(window_s: float) -> str:
    """Each port's link-down events over the last ``window_s``, counted by the server: ``resets`` (any decrease between
    two consecutive samples; for a 0/1 state, UP -> DOWN) over a subquery of the state with every sample that is not
    0 or 1 left out (npu-exporter's -1, not read: unknown; unfiltered, 1 -> -1 and 0 -> -1 count as resets, a read that
    failed taken for a down). A step with no sample in the server's look-back is absent too, so a gap between two
    readings is no change either way (UP, gap, DOWN: one down). The subquery steps at the server's global evaluation
    interval (Prometheus docs, "Subquery": the resolution's default; 1 min unless configured, the sample config's 15 s
    as its scrape interval). Checked against Prometheus 2.42's ``promtool test rules``
    (tests/test_promapi_link_downs.py)."""
    sel = '{__name__=~"' + "|".join(LINK_STATUS) + '"}'
    return f'resets(label_replace({sel} >= 0 <= 1, "{NAME_LABEL}", "$1", "__name__", "(.+)")[{int(window_s)}s:])'


LAST_SEEN_STEP = "1m"
"""The step of :func:`last_seen_query`'s subquery: below Prometheus's 5-min look-back (``--query.lookback-delta``), so
every sample is in some step's look-back and the last one is found."""


def last_seen_query(window_s: float) -> str:
    """Each chip's last sample time within ``window_s``, by the server: ``timestamp()`` of an instant vector selector
    is each sample's own time (Prometheus docs, "Functions": ``timestamp(v instant-vector)``), not the evaluation's,
    and ``last_over_time`` of a subquery (``[<range>:<resolution>]``, Prometheus docs, "Subquery") of it is the time of
    the newest sample any step saw. An NPU whose series stopped is so aged to its exporter's own stamp, where the
    sweep's query times (20 min apart) read it up to 20 min too old. Checked with ``promtool test rules``
    (tests/test_promapi_last_seen.py)."""
    return f"last_over_time({AGE_QUERY}[{int(window_s)}s:{LAST_SEEN_STEP}])"


CLOCK_RESOLUTION_S = 2.0
"""An HTTP ``Date`` header counts whole seconds: a smaller difference from our clock is no offset."""


def read_times(t: float, p: SweepParams) -> list[float]:
    """The times a sweep at ``t`` reads (oldest first): the trend re-read points and the window starts."""
    n = p.trend_reread_points
    return sorted({t - p.trend_window_s * k / (n - 1) for k in range(n)}
                  | {t - p.hbm_ce_window_s, t - p.crc_window_s, t - p.hbm_rows_rate_window_s})


class PrometheusQuerySource(ReadingsSource):
    """Instant queries to a Prometheus server (see module docstring)."""

    def __init__(self, base_url: str, timeout_s: float = 10.0, clock: Callable[[], float] = time.time,
                 auth: HttpAuth = NO_AUTH) -> None:
        super().__init__()
        self.auth = auth
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"not an http(s) URL: {shown_url(base_url)!r}", path="--url")
        self.base = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.clock = clock
        self.name = f"prometheus-api {shown_url(self.base)}"
        self.parser = PageParser()
        self._server_offset: float | None = None
        self.last_seen_note = ""

    def query(self, expr: str, t: float) -> list[dict[str, Any]]:
        """``data.result`` of an instant query at ``t`` (a vector)."""
        url = f"{self.base}/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": f"{t:.3f}"})
        try:
            page = fetch(url, self.timeout_s, 3 * self.timeout_s, MAX_ANSWER_BYTES, self.auth)
            body = page.body
            self._server_offset = None if page.server_time is None else page.server_time - self.clock()
        except InputError as exc:  # its kind kept (SourceAuthError: the server refused the credentials)
            raise exc.reworded(f"cannot query: {exc.reason.removeprefix('cannot fetch: ')}", file=shown_url(self.base),
                               path="--url") from None
        try:
            ok, data = json_or_none(body)
            if not ok:
                raise ValueError("not JSON (or nested too deeply)")
            if data.get("status") != "success" or data["data"]["resultType"] != "vector":
                raise ValueError(data.get("error") or "not a vector")
            result: list[dict[str, Any]] = data["data"]["result"]
            return result
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"not a Prometheus query answer: {self.auth.redact(str(exc))}", file=shown_url(self.base),
                             path="--url") from None

    def _items(self, expr: str, t: float) -> list[tuple[str, dict[str, str], float]]:
        """(metric name, other labels, value) of each element of an instant query's vector. An element that is not
        the API's ``{"metric": {labels}, "value": [time, "number"]}`` (a proxy's or another server's answer) is
        refused with one line naming it, not a crash (before: exit 70 on an element without ``value``)."""
        out = []
        for item in self.query(expr, t):
            try:
                metric, value = item["metric"], item["value"]
                labels = {str(k): str(v) for k, v in metric.items()}
                out.append((labels.pop("__name__", ""), labels, float(value[1])))
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                raise InputError(f"not a Prometheus query answer: a vector element that is not "
                                 f"{{\"metric\": {{...}}, \"value\": [time, \"number\"]}}: "
                                 f"{self.auth.redact(str(item)[:120])!r}",
                                 file=shown_url(self.base), path="--url") from None
        return out

    def readings_at(self, t: float) -> Readings:
        samples: list[Sample] = [(name, None, labels, value, None)
                                 for name, labels, value in self._items(SELECTOR, t) if name]
        r = readings_of_samples(samples, None, t, self.parser)
        r.t = t
        ages = readings_of_samples(
            [("npu_chip_info_temperature", None, labels, 0.0, value)
             for _name, labels, value in self._items(AGE_QUERY, t)], None, t, self.parser)
        r.npu_sample_t = ages.npu_sample_t
        return r

    def last_seen(self, t: float, window_s: float) -> Readings | None:
        """Each NPU's last sample time at ``t`` within ``window_s`` (:func:`last_seen_query`), its die with it; a time
        the query cannot give (before the window, after ``t``) is left out. None, noted in ``self.last_seen_note``,
        where the server refuses the query (a Prometheus before 2.26 has no ``last_over_time``)."""
        try:
            items = self._items(last_seen_query(window_s), t)
        except InputError as exc:
            self.last_seen_note = (f"the server did not give the chips' last sample times ({exc.reason}): a chip with "
                                   "no series now is aged from the sweep's query times, up to 20 min too old")
            return None
        self.last_seen_note = ""
        return readings_of_samples(
            [("npu_chip_info_temperature", None, labels, 0.0, value) for _name, labels, value in items
             if t - window_s - 60.0 <= value <= t + 60.0], None, t, self.parser)

    def now(self) -> float:
        """The time to query at: our clock, corrected by the server's (its ``Date`` header, read with one cheap
        query) where they differ by more than the header's 1 s resolution and less than a day (our host's clock off:
        5 minutes ahead, every chip's sample looked 5 minutes old; a day or more apart is another clock, as for a
        page: :data:`opsbrain.sources.exporter.SAME_CLOCK_S`)."""
        t = self.clock()
        self.query(AGE_QUERY, t)
        off = self._server_offset
        return t + off if off is not None and CLOCK_RESOLUTION_S < abs(off) <= SAME_CLOCK_S else t

    def collect(self) -> Readings:
        return self.readings_at(self.now())

    def count_link_downs(self, r: Readings, t: float, window_s: float) -> None:
        """Fill ``r.link_state_downs`` with the server's count (:func:`link_downs_query`) at ``t``; where the server
        refuses the query, say so in ``r.link_states_counted`` (the link state at the query times still counts)."""
        try:
            result = self.query(link_downs_query(window_s), t)
        except InputError as exc:
            r.link_states_counted = (f"the server did not count link-state changes ({exc.reason}); link-down events "
                                     "are the link state's UP->DOWN changes between the sweep's query times only")
            return
        for item in result:
            try:
                labels = {str(k): str(v) for k, v in item["metric"].items()}
                n = float(item["value"][1])
            except (AttributeError, KeyError, IndexError, TypeError, ValueError):
                continue
            link = port_link(labels.pop(NAME_LABEL, ""), labels)
            if link is not None and math.isfinite(n) and n >= 0:  # a federated copy: the larger count
                r.link_state_downs[link] = max(n, r.link_state_downs.get(link, 0.0))
        r.link_states_counted = (
            f"link-down events counted by the Prometheus server over every link-state sample it kept in the last "
            f"{window_s / 3600:.1f} h (UP->DOWN changes between consecutive samples at its evaluation interval; a "
            "missing or unread (-1) sample is neither UP nor DOWN): a port that went down and up again between two "
            "samples is not seen, so the count is a lower bound")

    def coverage(self) -> dict[str, Any]:
        """As :meth:`ReadingsSource.coverage`, with how the server was read (``connection``)."""
        return {**super().coverage(), **connection(self.auth)}

    def snapshot(self, params: SweepParams) -> Snapshot:
        t = self.now()
        self.history = CollectionHistory()
        for x in read_times(t, params)[:-1]:
            self.history.add(self.readings_at(x))
        self.collections += 1
        cur = self.readings_at(t)
        if not read_anything(cur) and not any(read_anything(x) for x in self.history.items):
            raise InputError("the server holds no npu-exporter series over the last "
                             f"{params.trend_window_s / 3600:g} h (is npu-exporter scraped by this Prometheus?)",
                             file=shown_url(self.base), path="--url")
        self.count_link_downs(cur, t, params.link_down_window_s)
        seen = self.last_seen(t, params.trend_window_s)
        self.dropped = list(cur.notes) + ([self.last_seen_note] if self.last_seen_note else [])  # what the answer
        return snapshot_from(cur, self.history, params, seen)  # held but was not used (before: never said)
