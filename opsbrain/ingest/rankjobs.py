"""Which processes of a bundle belong to one job: a bundle may hold the plogs of two jobs (or of two runs of one
job) that ran on the same hosts at other times.

A process tells its job by the communicators it joined (HCCL's init line: ``identifier[...]`` and ``rankNum[...]``,
``opsbrain.ingest.ranks.RankCollector._identity``) and by when it ran. Two groups of processes are two jobs only
where the logs show it, never on a guess from the spread of their errors alone (a job's files can hold first errors
months apart: ascend-fd's st_testcase):

- one device of one host ran a process of each, one group's lines all before the other's (a device runs one rank of
  one job at a time: the later process is another job's, or the same job's restart; processes that ran on one device
  at the same time, single-rank inference instances sharing an NPU, are not told apart so), or
- they joined no communicator in common and their lines are more than :data:`APART_S` apart.

Processes are first grouped by the communicators they share (identifier and rank count; the console's own rank
numbering, :data:`opsbrain.ingest.rankconsole.CONSOLE_GROUP`, is no communicator); a group in which two processes
claim one device, or one rank of one communicator, is cut where a later process claims again what an earlier one
held. A process that names no communicator goes with the group whose time span holds its first line (else the
nearest). Groups that are not two jobs by the rules above are one job. One job: the table is read as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from opsbrain.ingest.rankconsole import CONSOLE_GROUP
from opsbrain.ingest.rankrecords import RankProcess

APART_S = 3600.0
"""Seconds between the last line of one group and the first of another beyond which two groups that share no
communicator are two jobs: the detector's horizon, beyond which it groups no signals into one incident."""


def _slot(p: RankProcess) -> tuple[str, int | None, str]:
    """The device a process ran on (its worker and device; its pid where no device is known)."""
    return (p.worker, p.device, "" if p.device is not None else p.pid)


def _claims(p: RankProcess) -> set[tuple[Any, ...]]:
    """What only one process of a job holds at a time: its device, and its rank in each communicator."""
    out: set[tuple[Any, ...]] = {("slot", *_slot(p))}
    out |= {("rank", ident, total, rank) for ident, (rank, total) in p.ranks.items() if ident != CONSOLE_GROUP}
    return out


def _comms(p: RankProcess) -> set[tuple[str, int | None]]:
    return {(ident, total) for ident, (_rank, total) in p.ranks.items() if ident != CONSOLE_GROUP}


def _span(group: Iterable[RankProcess]) -> tuple[float, float] | None:
    ts = [t for p in group for t in (p.first_t, p.last_t) if t is not None]
    return (min(ts), max(ts)) if ts else None


def _by_communicator(procs: list[RankProcess]) -> tuple[list[list[RankProcess]], list[RankProcess]]:
    """Groups of the processes that share a communicator (transitively), and the processes that name none."""
    parent = list(range(len(procs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, int | None], int] = {}
    for i, p in enumerate(procs):
        for c in sorted(_comms(p), key=str):
            if c in first:
                parent[find(i)] = find(first[c])
            else:
                first[c] = i
    groups: dict[int, list[RankProcess]] = {}
    loose = []
    for i, p in enumerate(procs):
        if _comms(p):
            groups.setdefault(find(i), []).append(p)
        else:
            loose.append(p)
    return list(groups.values()), loose


def _cut(group: list[RankProcess]) -> list[list[RankProcess]]:
    """A group cut in time where a later process claims a device or a rank an earlier one of the run holds."""
    runs: list[list[RankProcess]] = []
    held: set[tuple[Any, ...]] = set()
    for p in sorted(group, key=lambda p: (p.first_t if p.first_t is not None else float("-inf"), p.worker, p.pid)):
        mine = _claims(p)
        if not runs or mine & held:
            runs.append([])
            held = set()
        runs[-1].append(p)
        held |= mine
    return runs


def _two_jobs(a: list[RankProcess], b: list[RankProcess]) -> bool:
    """Whether two groups are two jobs by the rules of the module docstring."""
    sa, sb = _span(a), _span(b)
    if sa is None or sb is None:
        return False
    gap = max(sb[0] - sa[1], sa[0] - sb[1])  # > 0: one ended before the other began
    if gap > 0 and {_slot(p) for p in a} & {_slot(p) for p in b}:
        return True
    return gap > APART_S and not set().union(*map(_comms, a)) & set().union(*map(_comms, b))


def part_jobs(procs: list[RankProcess]) -> list[list[RankProcess]]:
    """The processes parted into jobs, earliest first; ``[procs]`` where the logs show one job (the usual case)."""
    groups, loose = _by_communicator(procs)
    runs = [run for g in groups for run in _cut(g)]
    if len(runs) < 2:
        return [procs]
    runs.sort(key=lambda r: (_span(r) or (float("inf"), 0.0))[0])
    jobs: list[list[RankProcess]] = []
    for run in runs:  # a run joins the first job it is not shown apart from
        home = next((j for j in jobs if not _two_jobs(j, run)), None)
        if home is None:
            jobs.append(list(run))
        else:
            home.extend(run)
    if len(jobs) < 2:
        return [procs]
    for p in loose:  # a process that names no communicator: the job whose time span holds it, else the nearest
        t = p.first_t if p.first_t is not None else p.first_error_t

        def gap(job: list[RankProcess], t: float | None = t) -> float:
            s = _span(job)
            return float("inf") if s is None or t is None else max(s[0] - t, t - s[1], 0.0)

        min(jobs, key=gap).append(p)
    return jobs


def _when(t: float | None) -> str | None:
    # (the collector's times are the logged local times read as this machine's: read back the same way)
    return None if t is None else datetime.fromtimestamp(t).isoformat(timespec="seconds")


def describe(n: int, procs: list[RankProcess]) -> dict[str, Any]:
    """A job as the report lists it: its number, communicators (identifier, rank count), hosts, devices, first and
    last line and first error (as logged, local time)."""
    span = _span(procs)
    errs = [p.first_error_t for p in procs if p.first_error_t is not None]
    comms = sorted({(ident, total) for p in procs for ident, (_r, total) in p.ranks.items()}, key=str)
    return {"job": n, "communicators": [{"identifier": i, "ranks": t} for i, t in comms],
            "hosts": sorted({p.worker for p in procs if p.worker}),
            "processes": [p.name for p in procs],
            "servers": sorted({p.server for p in procs if p.server}),
            "first_line": _when(span[0] if span else None), "last_line": _when(span[1] if span else None),
            "first_error": _when(min(errs) if errs else None)}
