"""The run store: SQLite in WAL mode holding runs, incidents, actions, whole journals and campaigns.

Campaigns (``opsbrain chaos campaign``) live beside their runs: ``campaigns`` (id, spec, the last summary),
``campaign_runs`` (one compact record per seed and policy, the resume marker) and ``runs.campaign_id`` (which
campaign a run belongs to). Stores written before campaigns had a ``runs.campaign_id`` column are migrated in
place when opened (``PRAGMA user_version`` 0 -> :data:`STORE_VERSION`; the column added, filled from
``campaign_runs``), under one immediate transaction so two processes opening an old store do not race.

A run is inserted as ``running`` when it starts and completed in one transaction when it ends, so a killed run
leaves a consistent store: its row stays ``running`` until a later open notices its process is gone and marks it
``interrupted``. The default location is ``$OPSBRAIN_HOME`` or ``$XDG_DATA_HOME/opsbrain`` (``~/.local/share``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.store_sweeps import SweepTables
from opsbrain.store_sweeps import now_iso as _now
from opsbrain.verdict import is_noise

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, scenario TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL,
    status TEXT NOT NULL, verdict TEXT, pid INTEGER, started_at TEXT NOT NULL, finished_at TEXT, journal TEXT
);
CREATE TABLE IF NOT EXISTS incidents (
    run_id TEXT NOT NULL REFERENCES runs(id), id TEXT NOT NULL, kind TEXT, component TEXT, at_s REAL,
    diagnosis TEXT, correct INTEGER, ttd_s REAL, ttdiag_s REAL, ttr_s REAL, PRIMARY KEY (run_id, id)
);
CREATE TABLE IF NOT EXISTS actions (
    run_id TEXT NOT NULL REFERENCES runs(id), incident_id TEXT NOT NULL, seq INTEGER NOT NULL, action TEXT,
    target TEXT, status TEXT, start_s REAL, end_s REAL, PRIMARY KEY (run_id, incident_id, seq)
);
CREATE TABLE IF NOT EXISTS sweeps (
    id INTEGER PRIMARY KEY AUTOINCREMENT, schedule_id TEXT, scenario TEXT NOT NULL, source TEXT NOT NULL,
    at TEXT NOT NULL, t_s REAL NOT NULL, duration_ms REAL, severity TEXT NOT NULL, counts TEXT NOT NULL,
    findings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_schedules (
    id TEXT PRIMARY KEY, scenario TEXT NOT NULL, trigger TEXT NOT NULL, next_run TEXT, last_run TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_collections (
    schedule_id TEXT NOT NULL, source TEXT NOT NULL, t REAL NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (schedule_id, t)
);
CREATE TABLE IF NOT EXISTS campaigns (
    id TEXT PRIMARY KEY, spec TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS campaign_runs (
    campaign_id TEXT NOT NULL, seed INTEGER NOT NULL, policy TEXT NOT NULL, run_id TEXT, record TEXT NOT NULL,
    finished_at TEXT NOT NULL, PRIMARY KEY (campaign_id, seed, policy)
);
"""
STORE_VERSION = 5  # 1 (implicit, user_version 0); 2: runs.campaign_id, campaigns.summary, incidents.false_positive;
# 3: incidents.noise (verdict.is_noise: no injected fault and no fault's consequence), filled from stored journals;
# 4: incidents.noise refilled: a workload down, failed restarts or escalations are never noise (verdict.trouble);
# 5: incidents.detection (the journal's: detected, missed, censored), filled from stored journals
MIGRATIONS = (
    ("runs", "campaign_id", "ALTER TABLE runs ADD COLUMN campaign_id TEXT",
     "UPDATE runs SET campaign_id = (SELECT r.campaign_id FROM campaign_runs r WHERE r.run_id = runs.id) "
     "WHERE campaign_id IS NULL"),
    ("campaigns", "summary", "ALTER TABLE campaigns ADD COLUMN summary TEXT", None),
    ("incidents", "false_positive", "ALTER TABLE incidents ADD COLUMN false_positive INTEGER", None),
    ("incidents", "noise", "ALTER TABLE incidents ADD COLUMN noise INTEGER",
     "UPDATE incidents SET noise = (kind IS NULL) WHERE noise IS NULL"),  # then corrected from the journals
    ("incidents", "detection", "ALTER TABLE incidents ADD COLUMN detection TEXT", None),  # filled from the journals
)


class StoreError(InputError):
    """The run store cannot be opened or written (corrupt, not a database, full, locked); one line with a hint."""


log = logging.getLogger(__name__)
MAX_ID_TRIES = 1000  # reason: same scenario, seed and second; far more concurrent starts than a host can run


def _detection(inc: dict[str, Any]) -> str | None:
    """An injected fault's ``detection`` in its journal (``detected``, ``missed``, ``censored``), else None."""
    d = inc.get("detection") if inc.get("injected") else None
    return d if isinstance(d, str) else None


_GIVEN_HOME: Path | None = None
"""The data directory the running command was given (``--data-dir``; :func:`use_home`): every store and cache that
would go under the default directory goes there instead. Session 36: the compiled knowledge base, the line screen's
plans and the text model's cache were written under ``~/.local/share/opsbrain`` whatever ``--data-dir`` said."""


def use_home(path: Path) -> Callable[[], None]:
    """Make ``path`` the default data directory until the returned function is called (the command's end)."""
    global _GIVEN_HOME
    before, _GIVEN_HOME = _GIVEN_HOME, path

    def restore() -> None:
        global _GIVEN_HOME
        _GIVEN_HOME = before

    return restore


def default_home() -> Path:
    """The data directory: the command's ``--data-dir``, else ``$OPSBRAIN_HOME``, else ``~/.local/share/opsbrain``
    (``$XDG_DATA_HOME/opsbrain``)."""
    if _GIVEN_HOME is not None:
        return _GIVEN_HOME
    env = os.environ.get("OPSBRAIN_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "opsbrain"


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


WAL_RETRY_S = 30.0  # reason: the same bound as the connection's busy timeout


def _enter_wal(db: sqlite3.Connection) -> None:
    """Switch a connection to WAL. On a new store two processes can race for it, and SQLite answers the loser
    "database is locked" at once (the busy handler is not used for a journal-mode change): retry until the
    bound, then let the error through."""
    deadline = time.monotonic() + WAL_RETRY_S
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class RunStore(SweepTables):
    """The run store (module docstring); its health-sweep tables: :class:`~opsbrain.store_sweeps.SweepTables`."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = Path(home) if home else default_home()
        self.path = self.home / "runs.sqlite"
        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the run store directory: {exc.strerror or exc}",
                             file=str(self.home)) from None
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
            raise StoreError("the run store is not a regular file; move it aside to start a new store",
                             file=str(self.path))
        with self._db() as db:
            db.executescript(SCHEMA)
            if db.execute("PRAGMA user_version").fetchone()[0] < STORE_VERSION:
                self._migrate(db)
                log.info("run store at schema version", extra={"path": str(self.path), "version": STORE_VERSION})
            stale = [r[0] for r in db.execute("SELECT id, pid FROM runs WHERE status='running'")
                     if not _alive(r[1])]
            for rid in stale:
                db.execute("UPDATE runs SET status='interrupted', verdict='aborted' WHERE id=?", (rid,))

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        """Bring an older store to :data:`STORE_VERSION` (see module docstring); idempotent."""
        db.execute("BEGIN IMMEDIATE")  # one migrating process at a time; the others see the result
        for table, column, alter, fill in MIGRATIONS:
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                db.execute(alter)
            if fill:
                db.execute(fill)
        RunStore._fill_from_journals(db)
        db.execute(f"PRAGMA user_version={STORE_VERSION}")

    @staticmethod
    def _fill_from_journals(db: sqlite3.Connection) -> None:
        """Mark the noise incidents of stored runs as :func:`~opsbrain.verdict.is_noise` decides from their
        journals (a run stored without a journal keeps ``kind IS NULL``: nothing says what caused its incidents),
        and copy each incident's ``detection`` (a journal without one leaves NULL: scored as before)."""
        for run_id, text in db.execute("SELECT id, journal FROM runs WHERE journal IS NOT NULL").fetchall():
            try:
                incidents = json.loads(text).get("incidents") or []
            except (ValueError, AttributeError):
                continue
            rows = [(int(is_noise(i)), _detection(i), run_id, i["id"]) for i in incidents
                    if isinstance(i, dict) and "id" in i]
            db.executemany("UPDATE incidents SET noise=?, detection=? WHERE run_id=? AND id=?", rows)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection in one transaction; SQLite failures other than a constraint become one StoreError line
        with a recovery hint (a corrupt file, a full disk, a lock held too long)."""
        try:
            db = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        try:
            _enter_wal(db)
            db.execute("PRAGMA synchronous=NORMAL")
            with db:
                yield db
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        finally:
            db.close()

    def _error(self, exc: sqlite3.Error) -> StoreError:
        msg = str(exc)
        if "full" in msg:
            hint = "free disk space and run the command again"
        elif "locked" in msg or "busy" in msg:
            hint = "another opsbrain process holds the store; wait for it or stop it"
        elif "readonly" in msg or "read-only" in msg or "unable to open" in msg or not self.path.exists():
            # nothing damaged: the store (or its directory) cannot be written or created here
            hint = (f"the run store cannot be {'written' if self.path.exists() else 'created'} in {self.home}: make "
                    "it writable, or point OPSBRAIN_HOME (or --data-dir) at a writable directory")
        else:
            hint = (f"the file is damaged or not a run store: move it aside (mv {self.path} {self.path}.broken) "
                    "to start a new store, or restore a backup")
        return StoreError(f"run store error: {msg[:200]}; {hint}", file=str(self.path))

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` (``"ok"`` for a sound store)."""
        with self._db() as db:
            return str(db.execute("PRAGMA integrity_check").fetchone()[0])

    def new_run_id(self, scenario: str, seed: int, policy: str | None = None) -> str:
        """A run id not yet in the store (only a guess under concurrency: :meth:`begin_run` allocates atomically)."""
        base = self._id_base(scenario, seed, policy)
        with self._db() as db:
            n = db.execute("SELECT COUNT(*) FROM runs WHERE id LIKE ?", (base + "%",)).fetchone()[0]
        return base if n == 0 else f"{base}-{n + 1}"

    @staticmethod
    def _id_base(scenario: str, seed: int, policy: str | None = None) -> str:
        """``<UTC stamp>-<scenario>-s<seed>-<policy>``: runs of one seed under different policies (a campaign's
        auto and manual runs start in the same second) differ by their policy, not by a ``-2`` suffix. Ids stored
        before the policy was part of them (``...-s<seed>[-N]``) stay as they are and are looked up as before."""
        return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{scenario}-s{seed}" + (f"-{policy}" if policy else "")

    def begin_run(self, scenario: str, seed: int, policy: str, campaign_id: str | None = None) -> str:
        """Allocate a run id and insert the run as ``running`` in one step: the primary key decides, and a
        conflict (another process took the id) retries with the next suffix."""
        base = self._id_base(scenario, seed, policy)
        with self._db() as db:
            n = db.execute("SELECT COUNT(*) FROM runs WHERE id LIKE ?", (base + "%",)).fetchone()[0]
        for k in range(n, n + MAX_ID_TRIES):
            run_id = base if k == 0 else f"{base}-{k + 1}"
            try:
                self.start(run_id, scenario, seed, policy, campaign_id)
            except sqlite3.IntegrityError:
                continue
            return run_id
        raise StoreError(f"no free run id for {base} after {MAX_ID_TRIES} tries", file=str(self.path))

    def start(self, run_id: str, scenario: str, seed: int, policy: str, campaign_id: str | None = None) -> None:
        with self._db() as db:
            db.execute("INSERT INTO runs (id, scenario, seed, policy, status, pid, started_at, campaign_id) "
                       "VALUES (?, ?, ?, ?, 'running', ?, ?, ?)",
                       (run_id, scenario, seed, policy, os.getpid(), _now(), campaign_id))

    def finish(self, run_id: str, journal: dict[str, Any]) -> None:
        """Store the complete journal, its incidents and actions, in one transaction."""
        with self._db() as db:
            for inc in journal.get("incidents", []):
                diag = inc.get("diagnosis") or {}
                inj = inc.get("injected") or {}
                db.execute("INSERT OR REPLACE INTO incidents (run_id, id, kind, component, at_s, diagnosis, correct, "
                           "ttd_s, ttdiag_s, ttr_s, false_positive, noise, detection) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           (run_id, inc["id"], inj.get("kind"), inj.get("component"), inj.get("at_s"),
                            diag.get("fault_class"), int(bool(inc.get("correct"))), inc.get("ttd_s"),
                            inc.get("ttdiag_s"), inc.get("ttr_s"),
                            None if inj else int(bool(inc.get("false_positive"))), int(is_noise(inc)),
                            _detection(inc)))
                for seq, act in enumerate(inc.get("actions", [])):
                    db.execute("INSERT OR REPLACE INTO actions VALUES (?,?,?,?,?,?,?,?)",
                               (run_id, inc["id"], seq, act.get("action"), act.get("target"), act.get("status"),
                                act.get("start_s"), act.get("end_s")))
            status = "interrupted" if journal.get("status") == "interrupted" else "finished"
            db.execute("UPDATE runs SET status=?, verdict=?, finished_at=?, journal=? WHERE id=?",
                       (status, journal.get("verdict"), _now(), json.dumps(journal, sort_keys=True), run_id))

    def mark_interrupted(self, run_id: str) -> None:
        """A run stopped before it had a journal: ``interrupted``, verdict ``aborted`` (as a dead run's would be)."""
        with self._db() as db:
            db.execute("UPDATE runs SET status='interrupted', verdict='aborted', finished_at=? WHERE id=? "
                       "AND status='running'", (_now(), run_id))

    _COLS = ("id", "scenario", "seed", "policy", "status", "verdict", "started_at", "finished_at", "campaign_id")

    def list_runs(self, limit: int = 50, campaign: str | None = None) -> list[dict[str, Any]]:
        """Stored runs, newest first; ``campaign``: only that campaign's runs."""
        where, args = ("WHERE campaign_id=?", [campaign]) if campaign is not None else ("", [])
        with self._db() as db:
            rows = db.execute(f"SELECT {', '.join(self._COLS)} FROM runs {where} "
                              "ORDER BY started_at DESC, id DESC LIMIT ?", (*args, limit)).fetchall()
        return [dict(zip(self._COLS, r, strict=True)) for r in rows]

    def get_journal(self, run_id: str) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute("SELECT journal, status FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None or row[0] is None:
            return None
        return dict(json.loads(row[0]))

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        with self._db() as db:
            row = db.execute(f"SELECT {', '.join(self._COLS)} FROM runs WHERE id=?", (run_id,)).fetchone()
        return dict(zip(self._COLS, row, strict=True)) if row else None

    # ---- campaigns (issue 10; stored with their runs since issue 19) -------------------------------------------
    def register_campaign(self, campaign_id: str, spec: dict[str, Any]) -> None:
        now = _now()
        with self._db() as db:
            db.execute("INSERT INTO campaigns (id, spec, created_at, updated_at) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT(id) DO UPDATE SET updated_at=excluded.updated_at",
                       (campaign_id, json.dumps(spec, sort_keys=True), now, now))

    def save_campaign_summary(self, campaign_id: str, summary: dict[str, Any]) -> None:
        """Keep the campaign's last summary (what ``chaos campaign --json`` printed) for ``report CAMPAIGN_ID``."""
        with self._db() as db:
            db.execute("UPDATE campaigns SET summary=?, updated_at=? WHERE id=?",
                       (json.dumps(summary, sort_keys=True, default=str), _now(), campaign_id))

    def campaign_records(self, campaign_id: str) -> dict[tuple[int, str], dict[str, Any]]:
        """The finished runs' compact records by (seed, policy)."""
        with self._db() as db:
            rows = db.execute("SELECT seed, policy, record, run_id FROM campaign_runs WHERE campaign_id=?",
                              (campaign_id,)).fetchall()
        return {(int(s), str(p)): json.loads(r) | {"run_id": rid} for s, p, r, rid in rows}

    def save_campaign_run(self, campaign_id: str, record: dict[str, Any], journal: dict[str, Any] | None,
                          scenario: str) -> str | None:
        """One finished campaign run: its journal as a run of the campaign (when kept), then its record (the
        resume marker, written last). Returns the run id (None without a journal)."""
        run_id = None
        if journal is not None:
            run_id = self.begin_run(scenario, record["seed"], record["policy"], campaign_id=campaign_id)
            self.finish(run_id, dict(journal, run_id=run_id, campaign_id=campaign_id))
        record["run_id"] = run_id
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO campaign_runs VALUES (?, ?, ?, ?, ?, ?)",
                       (campaign_id, record["seed"], record["policy"], run_id, json.dumps(record, sort_keys=True),
                        _now()))
        return run_id

    def get_campaign(self, campaign_id: str) -> dict[str, Any] | None:
        """A campaign: spec, last summary (or None), its run ids in (seed, policy) order."""
        with self._db() as db:
            row = db.execute("SELECT id, spec, summary, created_at, updated_at FROM campaigns WHERE id=?",
                             (campaign_id,)).fetchone()
            if row is None:
                return None
            runs = db.execute("SELECT run_id FROM campaign_runs WHERE campaign_id=? ORDER BY seed, policy",
                              (campaign_id,)).fetchall()
        return {"id": row[0], "spec": json.loads(row[1]), "summary": json.loads(row[2]) if row[2] else None,
                "created_at": row[3], "updated_at": row[4], "run_ids": [r[0] for r in runs if r[0]],
                "runs": len(runs)}

    def list_campaigns(self) -> list[dict[str, Any]]:
        with self._db() as db:
            rows = db.execute("SELECT c.id, c.spec, c.updated_at, COUNT(r.seed) FROM campaigns c LEFT JOIN "
                              "campaign_runs r ON r.campaign_id = c.id GROUP BY c.id ORDER BY c.updated_at DESC"
                              ).fetchall()
        return [{"id": i, "spec": json.loads(s), "updated_at": u, "runs": n} for i, s, u, n in rows]

    # ---- figures for the metrics endpoint (opsbrain.service.metrics.RunStoreCollector) --------------------------
    def run_figures(self) -> dict[str, Any]:
        """Counts over the stored runs for Prometheus: runs by (status, verdict, policy), faults by diagnosis
        outcome (``diagnosed_correctly``, ``misdiagnosed``, ``missed``, and ``censored``: undiagnosed and injected too
        late in its run to be detected, journal ``detection``, never counted as missed, as
        :func:`~opsbrain.verdict.incident_outcome` scores it), noise incidents by whether they were false positives,
        final diagnoses by class, (count, sum) of time to recover by injected class, campaigns, and the Unix time the
        last run finished. A noise incident is one :func:`~opsbrain.verdict.is_noise` counts (column ``noise``: no
        injected fault, no fault's consequence, as run summaries and campaign figures count it), ``false_positive``
        as its journal scored it ("unknown" for runs stored before the column existed)."""
        with self._db() as db:
            runs = {(s, v or "none", p): n for s, v, p, n in db.execute(
                "SELECT status, verdict, policy, COUNT(*) FROM runs GROUP BY status, verdict, policy")}
            faults = {(o,): n for o, n in db.execute(
                "SELECT CASE WHEN correct=1 THEN 'diagnosed_correctly' WHEN diagnosis IS NULL AND "
                "detection='censored' THEN 'censored' WHEN diagnosis IS NULL THEN 'missed' "
                "ELSE 'misdiagnosed' END AS o, COUNT(*) FROM incidents WHERE kind IS NOT NULL GROUP BY o")}
            noise = {("true" if fp else "false" if fp is not None else "unknown",): n for fp, n in db.execute(
                "SELECT false_positive, COUNT(*) FROM incidents WHERE noise = 1 GROUP BY false_positive")}
            diagnoses = {(c,): n for c, n in db.execute(
                "SELECT diagnosis, COUNT(*) FROM incidents WHERE diagnosis IS NOT NULL GROUP BY diagnosis")}
            ttr = {(k,): (n, s) for k, n, s in db.execute(
                "SELECT kind, COUNT(*), SUM(ttr_s) FROM incidents WHERE kind IS NOT NULL AND ttr_s IS NOT NULL "
                "GROUP BY kind")}
            campaigns = db.execute("SELECT COUNT(*) FROM campaigns").fetchone()[0]
            last = db.execute("SELECT MAX(finished_at) FROM runs WHERE finished_at IS NOT NULL").fetchone()[0]
        last_ts = datetime.fromisoformat(last).timestamp() if last else None
        return {"runs": runs, "faults": faults, "noise": noise, "diagnoses": diagnoses, "ttr": ttr,
                "campaigns": campaigns, "last_finished": last_ts}
