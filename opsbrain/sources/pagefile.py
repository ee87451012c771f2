"""Saved exporter pages as ``--url file:///path/node-1.prom`` (session 33): what ``curl -s node-1:8082/metrics >
node-1.prom`` or a support bundle keeps, swept as the page it was. Its collection time is the file's modification
time (when it was saved; the page's samples, stamped by the exporter, are aged against it as a live page's are
against the moment it is read), and its series that name no host belong to the host its name gives (``node-1``). A
page saved longer ago than ``SweepParams.outputs_stale_s`` is stale, as collected command outputs are."""

from __future__ import annotations

import gzip
import io
import os
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from opsbrain.errors import InputError
from opsbrain.sources.freshness import Collected, iso, mark_stale, node_of
from opsbrain.sources.readings import Readings
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.sweep import SweepReport

_SUFFIXES = re.compile(r"(\.(prom|metrics|txt|text|gz))+$")
"""Endings a saved page's name carries that are not its host's (``node-1.prom``, ``node-1.metrics.gz``)."""


def is_file_url(url: str) -> bool:
    return urlsplit(url).scheme == "file"


def file_path(url: str) -> Path:
    """The path of a ``file:`` URL (``file:///abs/path``; ``file://localhost/abs/path``)."""
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        raise InputError(f"a file URL names a path on this host (file:///path), not {parts.netloc!r}", file=url,
                         path="--url")
    return Path(unquote(parts.path))


def file_host(url: str) -> str:
    """The host a saved page's name gives: its file name without the page endings (``node-1.prom`` -> ``node-1``)."""
    return _SUFFIXES.sub("", file_path(url).name) or file_path(url).name


def read_page_file(url: str, max_bytes: int) -> tuple[bytes, float]:
    """The page's bytes (gunzipped when it is gzip, told by its first bytes) and the file's modification time.
    InputError for a file that cannot be read or is larger than ``max_bytes``."""
    path = file_path(url)
    try:
        with path.open("rb") as fh:
            st = os.fstat(fh.fileno())
            if not path.is_file():
                raise InputError("not a file", file=url, path="--url")
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=url, path="--url") from None
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                data = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise InputError(f"a broken gzip file: {exc}", file=url, path="--url") from None
    if len(data) > max_bytes:
        raise InputError(f"page larger than {max_bytes} bytes", file=url, path="--url")
    return data, st.st_mtime


def nodes_of(r: Readings) -> set[str]:
    """The nodes a page's readings name (a saved ``/federate`` page names several)."""
    keys: set[str] = set()
    for name in ("npu_temp_c", "npu_sample_t", "npu_health", "npu_fault_codes", "hbm_temp_c", "hbm_ce_total",
                 "hbm_ue_total", "hbm_rows", "optics", "link_crc_total", "link_oper_down", "link_net_unhealthy"):
        keys |= getattr(r, name).keys()
    return {node_of(k) for k in keys}


class SavedPages:
    """When each saved page was written, per node it names; findings from pages older than
    ``SweepParams.outputs_stale_s`` are marked stale as collected command outputs are (at most a Warning, the age in
    the evidence: :func:`~opsbrain.sources.freshness.mark_stale`), and ``coverage.collected`` lists them."""

    def __init__(self) -> None:
        self.collected: dict[str, Collected] = {}
        self.stale_after_s = 600.0

    def add(self, r: Readings, mtime: float) -> None:
        for n in nodes_of(r):
            got = self.collected.get(n)
            if got is None or mtime > got.t:
                self.collected[n] = Collected(mtime, "the saved page's modification time")

    def finish(self, report: SweepReport, params: SweepParams) -> SweepReport:
        now = time.time()
        self.stale_after_s = params.outputs_stale_s
        stale = {n: c for n, c in self.collected.items() if now - c.t > params.outputs_stale_s}
        return mark_stale(report, stale, params.outputs_stale_s, now)

    def coverage(self) -> dict[str, Any]:
        if not self.collected:
            return {}
        now = time.time()
        return {"collected": [{"node": n or None, "at": iso(c.t), "age_s": round(now - c.t, 1), "from": c.how,
                               "stale": now - c.t > self.stale_after_s}
                              for n, c in sorted(self.collected.items())][:MAX_SHOWN],
                "stale_after_s": self.stale_after_s}


MAX_SHOWN = 1000
