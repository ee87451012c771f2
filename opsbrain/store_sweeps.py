"""The run store's health-sweep tables (issue 7): stored sweeps, sweep schedules and the collections a real
source keeps. A part of :class:`opsbrain.store.RunStore` (its base class), split from store.py in session 44."""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any


def now_iso() -> str:
    """The wall-clock time as the store writes it (UTC, ISO 8601, whole seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class SweepTables:
    """The sweep tables' reads and writes, on the connection :meth:`opsbrain.store.RunStore._db` opens."""

    def _db(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # RunStore's: one connection in one transaction

    _SWEEP_COLS = ("id", "schedule_id", "scenario", "source", "at", "t_s", "duration_ms", "severity", "counts",
                   "findings")

    def add_sweep(self, scenario: str, report: dict[str, Any], source: str = "service",
                  schedule_id: str | None = None) -> int:
        """Store one sweep (a ``SweepReport.as_dict()``); returns its row id."""
        with self._db() as db:
            cur = db.execute(
                "INSERT INTO sweeps (schedule_id, scenario, source, at, t_s, duration_ms, severity, counts, findings) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (schedule_id, scenario, source, now_iso(), report["t_s"], report.get("duration_ms"),
                 report["severity"], json.dumps(report["counts"]), json.dumps(report["findings"])))
            return int(cur.lastrowid or 0)

    def list_sweeps(self, limit: int = 50, scenario: str | None = None) -> list[dict[str, Any]]:
        """Stored sweeps, newest first (``counts`` and ``findings`` decoded)."""
        where, args = ("WHERE scenario=?", [scenario]) if scenario else ("", [])
        with self._db() as db:
            rows = db.execute(f"SELECT {', '.join(self._SWEEP_COLS)} FROM sweeps {where} ORDER BY id DESC LIMIT ?",
                              (*args, limit)).fetchall()
        out = [dict(zip(self._SWEEP_COLS, r, strict=True)) for r in rows]
        for r in out:
            r["counts"], r["findings"] = json.loads(r["counts"]), json.loads(r["findings"])
        return out

    _SCHEDULE_COLS = ("id", "scenario", "trigger", "next_run", "last_run", "created_at")

    def save_schedule(self, schedule_id: str, scenario: str, trigger: str, next_run: str | None = None) -> None:
        """Create or replace a sweep schedule (``trigger``: ``interval:SECONDS`` or ``cron:EXPR``); a new trigger
        forgets the old next run, the last run is kept."""
        with self._db() as db:
            db.execute("INSERT INTO sweep_schedules (id, scenario, trigger, next_run, created_at) VALUES (?,?,?,?,?) "
                       "ON CONFLICT(id) DO UPDATE SET scenario=excluded.scenario, trigger=excluded.trigger, "
                       "next_run=excluded.next_run", (schedule_id, scenario, trigger, next_run, now_iso()))

    def update_schedule_runs(self, schedule_id: str, last_run: str | None, next_run: str | None) -> None:
        with self._db() as db:
            db.execute("UPDATE sweep_schedules SET last_run=COALESCE(?, last_run), next_run=? WHERE id=?",
                       (last_run, next_run, schedule_id))

    def get_schedule(self, schedule_id: str) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute(f"SELECT {', '.join(self._SCHEDULE_COLS)} FROM sweep_schedules WHERE id=?",
                             (schedule_id,)).fetchone()
        return dict(zip(self._SCHEDULE_COLS, row, strict=True)) if row else None

    def list_schedules(self) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute(f"SELECT {', '.join(self._SCHEDULE_COLS)} FROM sweep_schedules ORDER BY id").fetchall()
        return [dict(zip(self._SCHEDULE_COLS, r, strict=True)) for r in rows]

    def delete_schedule(self, schedule_id: str) -> bool:
        with self._db() as db:
            db.execute("DELETE FROM sweep_collections WHERE schedule_id=?", (schedule_id,))
            return db.execute("DELETE FROM sweep_schedules WHERE id=?", (schedule_id,)).rowcount > 0

    def save_collections(self, schedule_id: str, source: str, add: list[tuple[float, bytes]], keep: set[float]
                         ) -> int:
        """A real source's kept collections (``opsbrain.sources.keep``), in one transaction: store ``add`` (time,
        body), delete the schedule's other rows not at a time in ``keep`` or of another source; return the bytes its
        rows now hold."""
        with self._db() as db:
            db.executemany("INSERT OR REPLACE INTO sweep_collections (schedule_id, source, t, body) VALUES (?,?,?,?)",
                           [(schedule_id, source, t, body) for t, body in add])
            gone = [(schedule_id, t) for t, src in db.execute(
                "SELECT t, source FROM sweep_collections WHERE schedule_id=?", (schedule_id,))
                if src != source or t not in keep]
            db.executemany("DELETE FROM sweep_collections WHERE schedule_id=? AND t=?", gone)
            row = db.execute("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM sweep_collections WHERE schedule_id=?",
                             (schedule_id,)).fetchone()
            return int(row[0])

    def load_collections(self, schedule_id: str) -> list[tuple[str, float, bytes]]:
        """(source, time, body) of a schedule's kept collections, oldest first."""
        with self._db() as db:
            return [(str(src), float(t), bytes(body)) for src, t, body in db.execute(
                "SELECT source, t, body FROM sweep_collections WHERE schedule_id=? ORDER BY t", (schedule_id,))]
