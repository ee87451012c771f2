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
    return (f"job {job['job']}: communicator {comms}{more} on {', '.join(job['hosts']) or 'no host named'}, "
            f"{job['first_line']} to {job['last_line']}{incs}"
            + ("; the verdict's root cluster" if job.get("verdict") else ""))


def busiest_job(table: RankTable) -> int:
    """The job an answer on the whole input (``diagnose --logs``, which has no incidents) builds its root cluster
    of: the one whose processes logged the most collective errors, the earliest of equals (the bundle's verdict is
    the incident with the most errors, the earliest of equals: the two modes pick alike)."""
    errs = [sum(len(p.errors) for p in job.processes) for job in table.jobs]
    return errs.index(max(errs))


def jobs_listed(table: RankTable, chosen: int) -> list[dict[str, Any]]:
    """Each job described (:func:`opsbrain.ingest.rankjobs.describe`) and whether the verdict's root cluster is its."""
    from opsbrain.ingest.rankjobs import describe

    return [describe(k + 1, job.processes) | {"verdict": k == chosen} for k, job in enumerate(table.jobs)]
