"""A bundle of several jobs (:mod:`opsbrain.ingest.rankjobs`): which incident is whose, which job's root cluster
the verdict takes (the primary incident's), and each other job's root cluster listed apart, never merged.

Before session 33 the processes of two jobs on the same hosts were one table (a device's later process kept): the
root cluster of one job stood under the verdict, times and evidence lines of the other, and the other job's own
failure was not reported."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from opsbrain.diagnosis.jobs import jobs_listed, other_jobs, say_attempt  # noqa: F401 (the bundle's answer uses them)
from opsbrain.ingest.rankrecords import RankTable


def _own_lines(inc: Any, where: dict[int, int], lines: list[Any]) -> list[Any]:
    return [s.at(file=lines[k].file, line_no=lines[k].line) for s in inc.signals if (k := where.get(id(s))) is not None]


def tag_incidents(incidents: list[Any], out_incs: list[dict[str, Any]], where: dict[int, int], lines: list[Any],
                  table: RankTable) -> None:
    """Each incident row's ``job``: the job (1, 2, ...) most of whose processes' own lines the incident holds, and in
    a job run more than once its ``attempt`` alike; nothing where it holds none (a host's or a device's own lines)."""
    from opsbrain.diagnosis.multirank import signals_of as own_signals

    def most(groups: list[list[Any]], mine: list[Any]) -> int | None:
        counts = [sum(1 for p in g if own_signals([p], mine)) for g in groups]
        return counts.index(max(counts)) + 1 if counts and max(counts) > 0 else None

    for inc, row in zip(incidents, out_incs, strict=True):
        mine = _own_lines(inc, where, lines)
        if table.jobs and (k := most([job.every for job in table.jobs], mine)) is not None:
            row["job"] = k
        job = table.jobs[row["job"] - 1] if row.get("job") else None if table.jobs else table
        if job is not None and job.attempts and (a := most([t.processes for t in job.attempts], mine)) is not None:
            row["attempt"] = a


def stale(out_incs: list[dict[str, Any]], table: RankTable) -> set[str]:
    """The incidents of an attempt before the one their job's verdict is about (:func:`.rankjobs.read_attempt`:
    the restart failed again): not the primary where another is."""
    def read(row: dict[str, Any]) -> int:
        job = table.jobs[row["job"] - 1] if row.get("job") and table.jobs else table
        return job.attempt + 1

    return {row["id"] for row in out_incs if row.get("attempt") and row["attempt"] < read(row)}


def verdict_attempt(job: RankTable, primary: dict[str, Any] | None) -> int:
    """The attempt of a job run more than once the verdict's root cluster is built of: the primary incident's, else
    the job's read attempt."""
    tagged = (primary or {}).get("attempt")
    return int(tagged) - 1 if tagged and tagged <= len(job.attempts) else job.attempt


def verdict_job(table: RankTable, primary: dict[str, Any] | None, out_incs: list[dict[str, Any]],
                origin: datetime) -> int:
    """The index of the job the verdict's root cluster is built of: the primary incident's job, else the job whose
    lines span the primary's opening (else the nearest in time; else the last job)."""
    if primary is not None and primary.get("job"):
        return int(primary["job"]) - 1
    at = primary.get("opened_at_s") if primary is not None else None
    if at is None:
        return len(table.jobs) - 1
    t = origin.timestamp() + float(at)

    def gap(job: RankTable) -> float:
        ts = [x for p in job.processes for x in (p.first_t, p.last_t) if x is not None]
        return float("inf") if not ts else max(min(ts) - t, t - max(ts), 0.0)

    return min(range(len(table.jobs)), key=lambda k: gap(table.jobs[k]))


def jobs_report(table: RankTable, out_incs: list[dict[str, Any]], chosen: int, read: int | None = None
                ) -> list[dict[str, Any]]:
    """The report's ``jobs`` (:func:`opsbrain.diagnosis.jobs.jobs_listed`) with each job's incidents."""
    return [row | {"incidents": [i["id"] for i in out_incs if i.get("job") == row["job"]]}
            for row in jobs_listed(table, chosen, read)]
