"""A bundle of several jobs (:mod:`opsbrain.ingest.rankjobs`): which incident is whose, which job's root cluster
the verdict takes (the primary incident's), and each other job's root cluster listed apart, never merged.

Before session 33 the processes of two jobs on the same hosts were one table (a device's later process kept): the
root cluster of one job stood under the verdict, times and evidence lines of the other, and the other job's own
failure was not reported."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from opsbrain.diagnosis.jobs import jobs_listed, other_jobs  # noqa: F401 (other_jobs: the bundle's answer uses it)
from opsbrain.ingest.rankrecords import RankTable


def _own_lines(inc: Any, where: dict[int, int], lines: list[Any]) -> list[Any]:
    return [s.at(file=lines[k].file, line_no=lines[k].line) for s in inc.signals if (k := where.get(id(s))) is not None]


def tag_incidents(incidents: list[Any], out_incs: list[dict[str, Any]], where: dict[int, int], lines: list[Any],
                  table: RankTable) -> None:
    """Each incident row's ``job``: the job (1, 2, ...) most of whose processes' own lines the incident holds;
    nothing where it holds none (a host's or a device's own lines)."""
    from opsbrain.diagnosis.multirank import signals_of as own_signals

    for inc, row in zip(incidents, out_incs, strict=True):
        mine = _own_lines(inc, where, lines)
        counts = [sum(1 for p in job.processes if own_signals([p], mine)) for job in table.jobs]
        if counts and max(counts) > 0:
            row["job"] = counts.index(max(counts)) + 1


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


def jobs_report(table: RankTable, out_incs: list[dict[str, Any]], chosen: int) -> list[dict[str, Any]]:
    """The report's ``jobs`` (:func:`opsbrain.diagnosis.jobs.jobs_listed`) with each job's incidents."""
    return [row | {"incidents": [i["id"] for i in out_incs if i.get("job") == row["job"]]}
            for row in jobs_listed(table, chosen)]
