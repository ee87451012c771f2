"""A real source's collection history kept in the run store, so ``sweep run`` restarted on the same schedule (and
``sweep once`` of it: :func:`opsbrain.sources.service.sweep_once_kept`) keeps its 24-h windows (two new HBM UCEs
in 24 h stay Critical, a link's downs stay counted, the Rx trend keeps its points) instead of starting again from
one collection.

Table ``sweep_collections`` of ``<data dir>/runs.sqlite`` (:meth:`opsbrain.store.RunStore.save_collections`): one
row per kept collection (schedule id, source name, time, body), written after every sweep in one SQLite
transaction (atomic: a killed service leaves the rows of the last complete write), reloaded when the schedule
starts. A body is what the windowed checks read of a collection (counters, link states, optical readings; not
temperatures or health, which only the newest collection gives), JSON compressed with zlib. Bounds: what the
in-memory history keeps (:class:`~opsbrain.sources.readings.CollectionHistory`: 24 h, at most
:data:`~opsbrain.sources.readings.MAX_KEPT` collections, older ones thinned beyond that), and at most
:data:`MAX_BYTES` stored per schedule, the oldest collections dropped first (the windows then cover less, and say
so). Rows of another source under the same schedule id (``--name`` reused for other URLs) are not reloaded and
are replaced.
"""

from __future__ import annotations

import json
import logging
import math
import zlib
from typing import TYPE_CHECKING, Any

from opsbrain.errors import InputError
from opsbrain.sources.readings import KEEP_RECENT, CollectionHistory, Readings

if TYPE_CHECKING:
    from opsbrain.store import RunStore

log = logging.getLogger(__name__)
MAX_BYTES = 64 << 20
"""Stored bytes per schedule at most (reason: a 384-NPU page's windowed readings compress to tens of kB, so a day at
5 min is a few MB; the bound keeps a fast schedule of a large cluster from filling the data directory)."""
FIELDS = ("hbm_ce_total", "hbm_ue_total", "hbm_rows", "link_crc_total", "link_oper_down", "module_link", "optics",
          "npu_sample_t", "npu_die")
"""The :class:`Readings` fields the windowed checks, the Rx trend and the lane confirmation read of an earlier
collection (``opsbrain.sources.readings.snapshot_from``, ``state_downs``), and the NPUs' last sample times and die ids
(``readings.vanished``: an NPU with no series now is aged from its last sample, also across ``sweep once`` runs)."""


def encode(r: Readings) -> bytes:
    """The kept part of a collection (:data:`FIELDS`), compressed."""
    doc = {"t": r.t, **{f: getattr(r, f) for f in FIELDS if getattr(r, f)}}
    return zlib.compress(json.dumps(doc, separators=(",", ":"), allow_nan=True).encode(), 6)


def decode(body: bytes) -> Readings:
    """A kept collection back (ValueError when the body is not one)."""
    try:
        doc = json.loads(zlib.decompress(body))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a kept collection: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("t"), int | float):
        raise ValueError("not a kept collection")
    r = Readings(float(doc["t"]))
    for f in FIELDS:
        if isinstance(doc.get(f), dict):
            setattr(r, f, doc[f])
    return r


class KeptHistory:
    """The run-store copy of one schedule's :class:`CollectionHistory` (module docstring)."""

    def __init__(self, store: RunStore, schedule_id: str, source: str) -> None:
        self.store, self.schedule_id, self.source = store, schedule_id, source
        self.saved: dict[float, int] = {}
        """Time -> stored bytes of each row written (or reloaded) for this source."""
        self.restored = 0
        self.restored_span_s = 0.0
        self.other_source = 0
        self.dropped_for_size = 0
        self.error = ""

    def restore(self, history: CollectionHistory) -> int:
        """Load the stored collections of this schedule and source into ``history`` (oldest first, those older than
        its window left out at its next collection); returns how many."""
        rows = self.store.load_collections(self.schedule_id)
        got = []
        for src, t, body in rows:
            if src != self.source:
                self.other_source += 1
                continue
            try:
                got.append(decode(body))
            except ValueError as exc:
                log.warning("kept collection not read", extra={"schedule": self.schedule_id, "t": t, "error": str(exc)})
                continue
            self.saved[t] = len(body)
        if self.other_source:
            log.warning("kept collections of another source not used", extra={
                "schedule": self.schedule_id, "rows": self.other_source, "source": self.source})
        got.sort(key=lambda r: r.t)
        newest = history.items[0].t if history.items else math.inf
        history.items = [r for r in got if r.t < newest] + history.items
        self.restored = len(got)
        self.restored_span_s = got[-1].t - got[0].t if len(got) > 1 else 0.0
        return self.restored

    def save(self, history: CollectionHistory) -> None:
        """Write the collections not yet stored (and the newest, which a collection at its time replaces), delete
        those the history no longer keeps; past :data:`MAX_BYTES`, drop the oldest from both. A store error is kept
        in :attr:`error` and logged: the sweep itself goes on."""
        items = history.items
        add = [(x.t, encode(x)) for i, x in enumerate(items) if x.t not in self.saved or i == len(items) - 1]
        for t, body in add:
            self.saved[t] = len(body)
        try:
            total = self.store.save_collections(self.schedule_id, self.source, add, {x.t for x in items})
            if total > MAX_BYTES:
                total = self._shrink(history, total)
        except InputError as exc:  # StoreError: a full disk, a locked or damaged store
            for t, _body in add:  # not stored: written again at the next save
                self.saved.pop(t, None)
            self.error = str(exc)
            log.warning("kept collections not saved", extra={"schedule": self.schedule_id, "error": self.error})
            return
        self.error = ""
        self.saved = {t: n for t, n in self.saved.items() if t in {x.t for x in history.items}}

    def _shrink(self, history: CollectionHistory, total: int) -> int:
        items = history.items
        drop = 0
        while total > MAX_BYTES and len(items) - drop > KEEP_RECENT:
            total -= self.saved.get(items[drop].t, 0)
            drop += 1
        self.dropped_for_size += drop
        history.items = items[drop:]
        return self.store.save_collections(self.schedule_id, self.source, [], {x.t for x in history.items})

    def describe(self, history: CollectionHistory) -> dict[str, Any]:
        """For ``coverage.history_kept``: where, what was restored, what is kept and the bounds."""
        return {"store": f"{self.store.path} (table sweep_collections, schedule {self.schedule_id})",
                "restored": self.restored, "restored_span_s": round(self.restored_span_s, 3),
                "kept": len(history.items), "stored_bytes": sum(self.saved.values()),
                "bounds": f"{history.max_age_s / 3600:g} h; at most {history.max_items:,} collections (beyond them "
                          f"the older ones thinned, all but the last {KEEP_RECENT}); at most "
                          f"{MAX_BYTES >> 20} MiB stored (the oldest dropped first)",
                "thinned_to_s": round(history.thinned_s, 3) or None, "dropped_for_size": self.dropped_for_size,
                "other_source_rows": self.other_source, "error": self.error or None}
