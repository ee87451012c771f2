"""Telemetry sources behind one interface: each gives the sweep checks a
:class:`~opsbrain.sweeps.snapshot.Snapshot` (and says which checks its data can feed).

- :class:`TwinSource`: the simulated pod (``take_snapshot``, as the twin's own sweeps);
- :class:`PrometheusSource`: npu-exporter pages over HTTP (``--source prometheus --url ...``; several URLs: one
  exporter per node, or one Prometheus ``/federate`` page);
- :class:`~opsbrain.sources.commands.CommandDirSource`: a directory of collected ``npu-smi`` / ``hccn_tool``
  outputs (``--source commands --dir ...``).

A source keeps its own collection history, so a scheduled service that sweeps it every few minutes gets windowed
counts and the Rx trend (and keeps that history in the run store across restarts: :mod:`opsbrain.sources.keep`;
``sweep once`` of the same schedule shares it); a source's first sweep has no history (those checks then find
nothing, and ``coverage`` says why).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import SplitResult, urlsplit

from opsbrain.errors import InputError, SourceAuthError
from opsbrain.sources.exporter import COVERS, parse_page
from opsbrain.sources.exporter_metrics import metrics_feeding
from opsbrain.sources.httpauth import NO_AUTH, HttpAuth
from opsbrain.sources.httpget import fetch, shown_url
from opsbrain.sources.pagefile import SavedPages, file_host, file_path, is_file_url, read_page_file
from opsbrain.sources.pagetext import PageParser, page_problem
from opsbrain.sources.readings import CollectionHistory, Readings, fed_checks, merge, read_anything, snapshot_from
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot, SweepHistory, take_snapshot
from opsbrain.sweeps.sweep import CHECK_NAMES, SweepReport, sweep_snapshot

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from opsbrain.sources.keep import KeptHistory
    from opsbrain.store import RunStore

MAX_PAGE_BYTES = 64 << 20
"""An exporter page bigger than this is refused (a 384-NPU page is a few MB)."""


class TelemetrySource(Protocol):
    """Anything a sweep can read: a name, the checks it can feed, and a snapshot now."""

    name: str

    def covers(self) -> frozenset[str]:
        """Names of the checks this source has data for."""
        ...

    def snapshot(self, params: SweepParams) -> Snapshot:
        """Collect now and build the snapshot (updates the source's history). Raises InputError when the source
        cannot be read."""
        ...


class TwinSource:
    """The simulated pod, read as its own sweeps read it."""

    def __init__(self, sim: Simulation, history: SweepHistory | None = None, name: str = "twin") -> None:
        self.sim = sim
        self.history = history
        self.name = name

    def covers(self) -> frozenset[str]:
        return frozenset(CHECK_NAMES)

    def snapshot(self, params: SweepParams) -> Snapshot:
        return take_snapshot(self.sim, None, params, self.history)


class ReadingsSource:
    """A real source: collect :class:`Readings`, keep the last ones, build snapshots from them."""

    name = "readings"

    def __init__(self) -> None:
        self.history = CollectionHistory()
        self.collections = 0
        self.not_read: list[str] = []
        """What the last collection could not read (a URL down, a file refused), its other parts swept."""
        self.dropped: list[str] = []
        """What the last collection read but did not use (:attr:`Readings.notes`: implausible values, ...)."""
        self.kept: KeptHistory | None = None
        """The run-store copy of :attr:`history` (``sweep run``: :meth:`keep_in`), else None."""

    def keep_in(self, store: RunStore, schedule_id: str) -> int:
        """Keep the history in ``store`` under ``schedule_id`` from now on, after reloading what it holds there
        (:mod:`opsbrain.sources.keep`); returns the collections reloaded."""
        from opsbrain.sources.keep import KeptHistory

        self.kept = KeptHistory(store, schedule_id, self.name)
        return self.kept.restore(self.history)

    def collect(self) -> Readings:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def covers(self) -> frozenset[str]:
        return frozenset(COVERS)

    def snapshot(self, params: SweepParams) -> Snapshot:
        r = self.collect()
        self.collections += 1
        self.dropped = list(r.notes)
        snap = snapshot_from(r, self.history, params)
        if self.kept is not None:
            self.kept.save(self.history)
        return snap

    def feeding(self, check: str) -> list[str]:
        """What feeds ``check`` on this source (metric names), for ``coverage.not_fed``."""
        return metrics_feeding(check)

    def unfed_reason(self, check: str) -> str:
        """Why ``check`` read nothing, in this source's terms (``coverage.not_fed``): the exporter series that feed
        it; a source of other inputs names those (session 42: a collection of command outputs was told of
        npu-exporter series)."""
        names = self.feeding(check)
        return "no reading for it in this collection" + (f": no {', '.join(names)} series with a value"
                                                         if names else "")

    def not_fed(self) -> dict[str, str]:
        """Checks this source can feed that the last collection read nothing for (:func:`fed_checks`), each with what
        would have fed it: an older npu-exporter (no HBM ECC series before MindCluster v6.0.0) or a card without
        them is said, not swept as OK on 0 components."""
        return _not_fed(self)

    def coverage(self) -> dict[str, Any]:
        """What the kept history lets the windowed checks see (for reports)."""
        n = len(self.history.items)
        span = self.history.items[-1].t - self.history.items[0].t if n > 1 else 0.0
        extra = {"link_downs": link_downs_note(self.history)} if "link_downs" in self.covers() else {}
        return {"source": self.name, "collections_kept": n, "history_s": round(span, 3), **extra,
                "checks": sorted(self.covers()), "not_covered": sorted(set(CHECK_NAMES) - self.covers()),
                **({"history_kept": self.kept.describe(self.history)} if self.kept is not None else {}),
                "not_read": list(self.not_read[:20]), "not_fed": self.not_fed(),
                "dropped": _capped(self.dropped, MAX_DROPPED_LINES),
                "note": "windowed checks (hbm_ce, link_crc, hbm_rows growth, link_downs from link states) and "
                        "dom_trend need earlier collections of this source; a first collection feeds the "
                        "point-in-time checks only" if n < 2 else ""}


def _not_fed(source: ReadingsSource) -> dict[str, str]:
    """Checks ``source`` can feed that its last collection read nothing for, each with what would feed it."""
    if not source.history.items:
        return {}
    fed = fed_checks(source.history.items[-1])
    out = {}
    for check in sorted(source.covers() - fed):
        out[check] = source.unfed_reason(check)
    return out


def link_downs_note(history: CollectionHistory) -> str:
    """How the link_downs counts were read, for ``coverage.link_downs``: a port's down records (``hccn_tool -link_stat
    -g``) are every down the tool kept; a port's link state (npu-exporter's ``npu_chip_info_link_status``, ``hccn_tool
    -link -g``) gives only its UP->DOWN changes between kept collections
    (:func:`~opsbrain.sources.readings.state_downs`), or between the samples a Prometheus server kept
    (``Readings.link_states_counted``). A missing or unread state is neither UP nor DOWN."""
    states = [x for x in history.items if x.link_oper_down]
    records = bool(history.items and history.items[-1].link_down_times)
    span = states[-1].t - states[0].t if states else 0.0
    out = ("ports' down records (hccn_tool -link_stat -g) within 24 h; " if records else "")
    if history.items and history.items[-1].link_states_counted:
        return out + history.items[-1].link_states_counted
    if len(states) < 2:
        return out + (f"the link state was read in {len(states)} collection(s): link-down events from its changes "
                      "need two or more (sweep run)")
    return out + (f"link-down events from the link state's UP->DOWN changes across {len(states)} collections over "
                  f"{span / 3600:.1f} h (a collection that did not read a port, or read -1, is neither UP nor DOWN "
                  "for it): a port that went down and up again between two collections is not seen, so the count is "
                  "a lower bound")


MAX_DROPPED_LINES = 100
"""Lines of ``coverage.dropped`` shown (one per reason, or per chip metric not read: npu-exporter publishes fewer than
a hundred chip metric names); the rest are counted in a last line."""


def _capped(lines: list[str], n: int) -> list[str]:
    return list(lines[:n]) + ([f"... and {len(lines) - n} more lines"] if len(lines) > n else [])


class PrometheusSource(ReadingsSource):
    """npu-exporter pages fetched over HTTP (one or more URLs, merged into one collection)."""

    def __init__(self, urls: Sequence[str], timeout_s: float = 10.0, auth: HttpAuth = NO_AUTH) -> None:
        super().__init__()
        self.auth = auth
        if not urls:
            raise InputError("give at least one --url", path="--url")
        for u in urls:
            parts = urlsplit(u)
            if is_file_url(u):  # a saved page (opsbrain.sources.pagefile)
                file_path(u)
                continue
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise InputError(f"not an http(s) URL (or file:///path of a saved page): {shown_url(u)!r}",
                                 path="--url")
            try:
                parts.port  # noqa: B018 (urllib checks the port when it is read: ':99999', ':abc')
            except ValueError as exc:
                raise InputError(f"bad port in {shown_url(u)!r}: {exc}", path="--url") from None
        self.urls = list(urls)
        self.timeout_s = float(timeout_s)
        self.server_time: float | None = None
        self.deadline_s = 3 * self.timeout_s
        """The whole page's time (reason: three reads' timeouts; a 384-NPU page of a few MB takes well under 1 s)."""
        self.name = "prometheus " + " ".join(shown_url(u) for u in self.urls)
        self.binary = ""
        """Why the last page fetched is no text (empty when it is UTF-8)."""
        self.parsers: dict[str, PageParser] = {}
        """One per URL: label sets parsed once, reused by every later collection."""
        self.saved = SavedPages()
        """When the saved pages (``file:`` URLs) were written, per node: their stale findings are marked."""

    def fetch(self, url: str) -> str:
        """The page at ``url`` as text (:func:`opsbrain.sources.httpget.fetch`; a ``file:`` URL's saved page,
        :mod:`opsbrain.sources.pagefile`); :attr:`server_time` keeps the server's clock when it answered (a saved
        page's modification time)."""
        if is_file_url(url):  # a saved page: collected when the file was written
            body, self.server_time = read_page_file(url, MAX_PAGE_BYTES)
        else:
            page = fetch(url, self.timeout_s, self.deadline_s, MAX_PAGE_BYTES, self.auth)
            body, self.server_time = page.body, page.server_time
        try:
            self.binary = ""
            return body.decode("utf-8")
        except UnicodeDecodeError:  # the text format is UTF-8: say so if the page does not parse either
            head = body[:8].hex(" ")
            self.binary = f"{len(body):,} bytes that are not UTF-8 text (the first: {head})"
            return body.decode("utf-8", "replace")

    def finish(self, report: SweepReport, params: SweepParams) -> SweepReport:
        """Findings from saved pages older than ``params.outputs_stale_s`` marked stale (:class:`SavedPages`)."""
        return self.saved.finish(report, params)

    def coverage(self) -> dict[str, Any]:
        """As :meth:`ReadingsSource.coverage`, with the saved pages' collection times (``collected``)."""
        return {**super().coverage(), **self.saved.coverage(), **connection(self.auth)}

    def collect(self) -> Readings:
        """One collection of every URL. A URL that cannot be read is listed in :attr:`not_read` and the others are
        swept (one node's exporter down is the common case, and must not blind the cluster); InputError when none
        can be read, or when the pages hold no npu-exporter series at all."""
        parts = []
        self.not_read = []
        failed: list[InputError] = []
        hosts = page_hosts(self.urls)
        for url in self.urls:
            text = ""
            try:
                text = self.fetch(url)
                parser = self.parsers.setdefault(url, PageParser())
                now = self.server_time if self.server_time is not None else time.time()  # the server's clock:
                parts.append(parse_page(text, default_host=hosts[url], now=now, parser=parser))  # ours may be off
                if is_file_url(url) and self.server_time is not None:
                    self.saved.add(parts[-1], self.server_time)
            except ValueError as exc:
                why = self.binary or shown_text(self.auth.redact(page_problem(text) or str(exc)))  # may echo it
                failed.append(InputError(f"not a Prometheus text page: {why}", file=shown_url(url), path="--url"))
            except InputError as exc:
                failed.append(exc)
            else:
                continue
            self.not_read.append(str(failed[-1]))
        if not parts:
            if len(failed) > 1:
                why = f"none of the {len(failed)} URLs could be read; the first: {failed[0]}"
                if all(isinstance(e, SourceAuthError) for e in failed):  # unauthorized everywhere, not down
                    raise failed[0].reworded(why)
                raise InputError(why)
            raise failed[0]
        merged = merge(parts)
        if not read_anything(merged):
            raise InputError("no npu-exporter series on the page(s) (another exporter's port, or an empty page?)",
                             file=shown_url(self.urls[0]) if len(self.urls) == 1 else None, path="--url")
        return merged


def connection(auth: HttpAuth) -> dict[str, str]:
    """``coverage.connection``: how the source's URLs were read (credentials' kind, CA, a TLS check skipped), where
    told; said in the sweep's output, not in the source's name (the kept history is keyed by that name)."""
    said = auth.describe()
    return {"connection": said} if said else {}


MAX_SHOWN_CHARS = 120
"""Characters of a page's offending line shown in an error (reason: enough to recognise an HTML page or a wrong
exporter's line; a page of garbage echoed whole hid the error and its control bytes garbled the terminal)."""


def shown_text(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """``text`` safe for one error line: control and replacement characters escaped (``\\x1b``, ``\\ufffd``), cut
    to ``limit`` characters saying how much more there was."""
    out = "".join(c if c.isprintable() and c != "\ufffd" else c.encode("unicode_escape").decode("ascii")
                  for c in text[:limit])
    return out + (f"... ({len(text) - limit} more characters)" if len(text) > limit else "")


def page_hosts(urls: Sequence[str]) -> dict[str, str | None]:
    """The host each URL's series belong to where they name none: the URL's host name, with its port where two
    URLs share the name (two exporters behind one address, ``kubectl port-forward`` or an SSH tunnel each: they
    overwrote each other's series), and the path where they share the port too (:func:`_path_names`). A name a
    path gives that another page's name also is (two gateways each with a ``node-1``) takes ``@`` and its gateway
    after it (session 39). Web pages that still share a name, as pages of one host and path under two schemes
    (``http://gw/node-1`` and ``https://gw/node-1``), each take a digest of their own address after it
    (:func:`_distinct`, session 40)."""
    parts = {u: urlsplit(u) for u in urls}
    names = Counter(p.hostname for p in parts.values())
    addrs = Counter((p.hostname, p.port) for p in parts.values())
    by_path = _path_names([u for u, p in parts.items() if addrs[(p.hostname, p.port)] > 1 and not is_file_url(u)],
                          parts)
    own = {u: f"{p.hostname}:{p.port}" if names[p.hostname] > 1 and p.port else p.hostname for u, p in parts.items()}
    out = {u: file_host(u) if is_file_url(u) else by_path.get(u) or own[u] for u in parts}
    return _distinct(_per_gateway(out, by_path, own), parts)


def _per_gateway(out: dict[str, str | None], by_path: dict[str, str], gateways: dict[str, str | None]
                 ) -> dict[str, str | None]:
    """Names unique across gateways: a page named by its path (:func:`_path_names`, unique within its own address)
    whose name another page also goes by, behind another gateway (``http://gw1/node-1/metrics`` and
    ``http://gw2/node-1/metrics``: two clusters' API servers) or as its own host, is ``<name>@<gateway>``, the
    gateway as :func:`page_hosts` names a page of its own (``node-1@gw1``; ``node-1@gw:8081`` where two gateways
    share a host name). Session 39: before, both were ``node-1``, and one gateway's page overwrote the other's series
    and findings. Names no other page gives stay as they were, the same on every run and in any order of the URLs."""
    shared = Counter(out.values())
    return {u: f"{name}@{gateways[u]}" if u in by_path and shared[name] > 1 else name for u, name in out.items()}


def _path_names(urls: list[str], parts: dict[str, SplitResult]) -> dict[str, str]:
    """Pages behind one address and port (a reverse proxy's ``http://gw/node-1/metrics``; the Kubernetes API
    server's proxy, ``/api/v1/nodes/<node>:8082/proxy/metrics`` or ``.../pods/<pod>:8082/proxy/metrics``, Kubernetes
    docs "Proxies in Kubernetes"): each named by the path segments where it differs from the others of its address
    (a ``:port`` after a name dropped), which is what the proxy tells them apart by. Session 36: before, all were
    ``<address>:<port>``, and the last page's series overwrote the others' (a node's 98 C chip swept OK). Session 37:
    paths whose segments join to one name (``/a/b/m`` and ``/a-b/m``, or a name under two ports) each take a digest
    of their own path after it (6 hex digits, the same on every run and in any order of the URLs)."""
    groups: dict[tuple[str | None, int | None], list[str]] = {}
    for u in urls:
        groups.setdefault((parts[u].hostname, parts[u].port), []).append(u)
    out: dict[str, str] = {}
    for group in groups.values():
        segs = {u: parts[u].path.strip("/").split("/") for u in group}
        width = max(len(s) for s in segs.values())
        differ = [i for i in range(width) if len({s[i] if i < len(s) else None for s in segs.values()}) > 1]
        names = {u: "-".join(_unported(s[i]) for i in differ if i < len(s) and s[i]) for u, s in segs.items()}
        shared = Counter(names.values())
        pages: dict[str, set[str]] = {}  # path -> the pages it is the path of (two under two schemes)
        for u in group:
            pages.setdefault(parts[u].path, set()).add(page_address(parts[u]))
        for u, name in names.items():
            if name and shared[name] > 1:  # two paths joined alike (``/a/b/m``, ``/a-b/m``; ``n:8082``, ``n:8083``)
                path = parts[u].path  # (one path of two pages: the page's whole address, session 40)
                name += "-" + _digest(path if len(pages[path]) == 1 else page_address(parts[u]))
            if name:
                out[u] = name
    return out


def page_address(part: SplitResult) -> str:
    """A web page's address without its credentials and query, the scheme's default port written out
    (``http://gw/m`` and ``http://gw:80/m`` are one page): what tells two pages apart. A query does not (two URLs
    that differ only in it keep one name, as since session 36: ``?x=1`` may as well be a cache-buster)."""
    port = part.port or {"http": 80, "https": 443}.get(part.scheme)
    host = f"[{part.hostname}]" if part.hostname and ":" in part.hostname else part.hostname  # (an IPv6 address)
    return f"{part.scheme}://{host}:{port}{part.path or '/'}"


def _digest(text: str) -> str:
    """6 hex digits of ``text``'s digest: the same on every run."""
    return hashlib.blake2s(text.encode(), digest_size=3).hexdigest()


def _distinct(out: dict[str, str | None], parts: dict[str, SplitResult]) -> dict[str, str | None]:
    """Names unique across web pages: a name that two pages still go by (one host and path under two schemes:
    ``http://gw/node-1/metrics`` and ``https://gw/node-1/metrics``, both ``gw``) takes ``-`` and 6
    hex digits of the page's own address (:func:`page_address`) after it, the same on every run and in any order of
    the URLs. Session 40: before, both were ``gw`` (or, with a third page, ``node-1-<digest of the path>@gw``), and
    one page overwrote the other's series. URLs of one page (:func:`page_address`: credentials, a query or a default
    port written out apart) keep their shared name; saved pages (``file:``) keep the name their file gives."""
    address = {u: page_address(p) for u, p in parts.items() if not is_file_url(u) and out.get(u)}
    pages: dict[str | None, set[str]] = {}
    for u, a in address.items():
        pages.setdefault(out[u], set()).add(a)
    return {u: f"{name}-{_digest(address[u])}" if u in address and len(pages[name]) > 1 else name
            for u, name in out.items()}


def _unported(segment: str) -> str:
    """A path segment without the port the Kubernetes proxy appends to a node's or pod's name (``node-1:8082``)."""
    name, _, port = segment.rpartition(":")
    return name if name and port.isdigit() else segment


def sweep_source(source: TelemetrySource, params: SweepParams | None = None) -> SweepReport:
    """One sweep of ``source`` with the checks it covers (the collection counts into the duration)."""
    p = params or SweepParams()
    start = time.perf_counter()
    snap = source.snapshot(p)
    report = sweep_snapshot(snap, p, [c for c in CHECK_NAMES if c in source.covers()], start)
    finish = getattr(source, "finish", None)  # a source's own say on its findings (stale outputs)
    return finish(report, p) if finish is not None else report
