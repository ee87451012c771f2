"""The other jobs of an input whose processes are of several jobs (:mod:`opsbrain.ingest.rankjobs`): each one's
root cluster listed apart from the verdict's, never merged into it (``diagnose --bundle`` and ``--logs``)."""

from __future__ import annotations

from typing import Any

from opsbrain.ingest.rankrecords import RankTable


def other_jobs(diagnosis: dict[str, Any], table: RankTable, chosen: int, placed: list[Any], engine: Any, now: float,
               names: dict[str, str] | None = None) -> None:
    """Each other job's root cluster in ``diagnosis["other_jobs"]`` with one evidence line: listed, not merged."""
    from opsbrain.diagnosis.multirank import multirank_verdict

    for k, job in enumerate(table.jobs):
        if k == chosen or (mr := multirank_verdict(job, placed, engine, now, names)) is None:
            continue
        diagnosis.setdefault("other_jobs", []).append({"job": k + 1, "root_cluster": mr})
        cls = mr.get("fault_class")
        diagnosis["evidence"].append(
            f"job {k + 1} of the input (not this verdict's): its own root cluster ({mr.get('what')}): "
            + (f"root {mr['root']}" if mr.get("root") else "root unknown")
            + (f"; chain {mr['chain']}" if mr.get("chain") else "") + (f"; class {cls}" if cls else ""))


def job_words(job: dict[str, Any]) -> str:
    """One job in a line: ``job 1: communicator X (3 ranks) on h1, h2, 2025-01-24T11:10:27 to ...; incidents ...``."""
    comms = ", ".join(f"{c['identifier']}" + (f" ({c['ranks']} ranks)" if c.get("ranks") else "")
                      for c in job["communicators"][:3]) or "no communicator named"
    more = f" and {len(job['communicators']) - 3} more" if len(job["communicators"]) > 3 else ""
    incs = f"; incidents {', '.join(job['incidents']) or 'none'}" if "incidents" in job else ""
    runs = job.get("attempts") or []
    how = ("a job-level rescheduling" if any(a.get("rescheduled") for a in runs)
           else "a rescheduling" if any(a.get("moved") for a in runs) else "a restart")
    again = (f"; ran {len(runs)} times ({how}), the evidence from attempt "
             + str(next(a["attempt"] for a in runs if a["read"]))) if runs else ""
    mark = f" ({job['marker']})" if job.get("marker") else ""
    return (f"job {job['job']}{mark}: communicator {comms}{more} on {', '.join(job['hosts']) or 'no host named'}, "
            f"{job['first_line']} to {job['last_line']}{incs}{again}"
            + ("; the verdict's root cluster" if job.get("verdict") else ""))


def attempt_line(a: dict[str, Any]) -> str:
    """One attempt of a job in a line: ``attempt 1: pids 501, 502, 2026-01-24T08:00:01 to ..., first error ...``
    (and the ranks a rescheduling moved before it)."""
    from opsbrain.ingest.rankjobs import move_words

    pids = ", ".join(a["pids"][:4]) + (f" and {len(a['pids']) - 4} more" if len(a["pids"]) > 4 else "")
    return (f"attempt {a['attempt']}: pid {pids}, {a['first_line']} to {a['last_line']}, "
            + (f"first error {a['first_error']}" if a["first_error"] else "failed" if a["failed"] else "no error")
            + ("; the verdict's evidence is from it" if a["read"] else "")
            + (f"; {w}" if (w := move_words(a)) else ""))


def busiest_job(table: RankTable) -> int:
    """The job an answer on the whole input (``diagnose --logs``, which has no incidents) builds its root cluster
    of: the one whose processes logged the most collective errors, the earliest of equals (the bundle's verdict is
    the incident with the most errors, the earliest of equals: the two modes pick alike)."""
    errs = [sum(len(p.errors) for p in job.every) for job in table.jobs]
    return errs.index(max(errs))


def jobs_listed(table: RankTable, chosen: int, read: int | None = None) -> list[dict[str, Any]]:
    """Each job described (:func:`opsbrain.ingest.rankjobs.describe`), whether the verdict's root cluster is its, and
    a job run more than once its ``attempts`` (the verdict's job's read attempt ``read`` where given)."""
    from opsbrain.ingest.rankjobs import describe

    rows = []
    for k, job in enumerate(table.jobs):
        row = describe(k + 1, job.every) | {"verdict": k == chosen}
        if job.attempts:
            row["attempts"] = attempts_listed(job, read if k == chosen and read is not None else job.attempt)
        rows.append(row)
    return rows


def attempts_listed(job: RankTable, read: int) -> list[dict[str, Any]]:
    """A job's attempts (:func:`opsbrain.ingest.rankjobs.describe_attempts`), ``read`` the verdict's."""
    from opsbrain.ingest.rankjobs import describe_attempts

    return describe_attempts([a.processes for a in job.attempts], read)


def say_attempt(diagnosis: dict[str, Any], job: RankTable, read: int) -> list[dict[str, Any]]:
    """A verdict on a job run more than once: ``diagnosis["attempt"]`` (the attempt its evidence is from, of how
    many) and one evidence line saying which and why; the attempts listed (empty for a job run once)."""
    from opsbrain.ingest.rankjobs import attempt_words

    if not job.attempts:
        return []
    rows = attempts_listed(job, read)
    diagnosis["attempt"] = {"attempt": read + 1, "of": len(rows), "failed": rows[read]["failed"]}
    diagnosis.setdefault("evidence", []).insert(0, attempt_words(rows))
    return rows
