"""Which processes of a bundle belong to one job, and which run (attempt) of it: a bundle may hold the plogs of two
jobs that ran on the same hosts at other times, or of two runs of one job (a failed job restarted on its devices).

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

A restart is not another job (session 34): a run that began after the job's latest run ended, within
:data:`RESTART_S` of its last line, on the same devices with the same ranks (each host's device holding the same rank
of a communicator of the same size: the same rank table; the communicator's identifier may differ, as HCCL's
root-info identifier ends in the time it was made) is the job's next attempt. The verdict is about the latest
attempt that logged an error (:func:`read_attempt`): the earlier one's fault when the restart ran clean, the
later one's when it failed again. So is a rescheduling off a failed host (:func:`moved_ranks`): MindCluster's pod- and
process-level rescheduling start the faulty node's pods on a spare node, the rest again on their devices; a run of
the same rank count whose ranks that changed device all left one host (which runs none of the later run's) for
devices the earlier run did not use is the next attempt, the moved ranks and the host that left (the earlier
attempt's suspect) said in :func:`describe_attempts`. The rank tables are compared on what both runs name: a rank
whose plog one run lacks (a partial collection) is no difference. Another rank table (another rank count, ranks
moved off two hosts or among the job's own hosts) or a start more than :data:`RESTART_S` after the earlier run is
another job, as before.

Where the files say which MindCluster job they are of (:func:`job_marker`, session 35), that decides: MindCluster's
job-level rescheduling stops every pod of the job and re-creates them, its ranks possibly re-placed on other hosts
(MindCluster docs, "Job-Level Rescheduling", "Rescheduling Mode"), so the rank tables need not match; but the job
object stays, and with it its UID, which Ascend Operator gives each pod as ``MINDX_TASK_ID`` and MindCluster's
training scripts name the job's log folder by (``/job/code/alllogs/$MINDX_TASK_ID/plogs/$XDL_IP``), and its pods keep
their names (``<job>-worker-<i>``, the folder kubelet keeps a pod's console in, with the new pod's UID). A run that
began after the latest attempt of a job of the same marker ended is that job's next attempt, whatever its rank
table; runs of two different markers are two jobs, never merged (neither as a restart nor as one run).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from opsbrain.ingest.rankconsole import CONSOLE_GROUP
from opsbrain.ingest.rankrecords import RankProcess
from opsbrain.lazyre import lazy_compile

APART_S = 3600.0
"""Seconds between the last line of one group and the first of another beyond which two groups that share no
communicator are two jobs: the detector's horizon, beyond which it groups no signals into one incident."""


RESTART_S = APART_S
"""Seconds after the last line of a job's latest run within which a run on the same devices with the same ranks is its
restart (its next attempt). A restart by MindCluster's process-, pod- or job-level rescheduling, or by an operator
at the alarm, starts within minutes; later than the detector's horizon the runs are read as two jobs (each its own
verdict), as before session 34."""


Slot = tuple[str, int | None, str]
"""A device a process ran on (:func:`_slot`)."""

Moved = list[tuple[int, Slot, Slot]]
"""The ranks a rescheduling moved: (rank, its device in the earlier attempt, its device in the later), by rank."""


TASK_DIR = lazy_compile(r"(?:^|/)alllogs/([^/]+)/")
"""MindCluster's job log folder, named by the job's UID (``MINDX_TASK_ID``, which Ascend Operator sets in each pod):
its training-script samples write ``/job/code/alllogs/$MINDX_TASK_ID/{plogs,trainlogs,ttplogs,...}`` (MindCluster
docs: resumable-training configuration; FAQ "Training Logs Are Overwritten After Task Rescheduling")."""
POD_DIR = lazy_compile(r"(?:^|/)pods/([^/_]+)_([^/_]+)-(?:master|worker|scheduler|chief)-\d+_[0-9a-f-]{36}/", re.I)
"""kubelet's folder of a pod's logs, ``pods/<namespace>_<pod>_<pod UID>/``, of a pod Ascend Operator named
``<job>-<replica type>-<index>`` (its replica types Master, Scheduler, Chief, Worker): the job is namespace and name."""


def job_marker(path: str, root: str = "") -> str | None:
    """The MindCluster job a file's path says it is of (:data:`TASK_DIR`'s UID, else :data:`POD_DIR`'s job name),
    None where it says none. ``root``: the directory given, which ``path`` is below; where the path alone names no
    job, the folders above it may (``--logs /job/code/alllogs/<uid>/``: the job's own folder given, or ``alllogs/``;
    session 36: before, no job was found then, and a rescheduled job read as two jobs)."""
    for where in (path, f"{root.rstrip('/')}/{path}" if root else None):
        if where is None:
            continue
        if m := TASK_DIR.search(where):
            return f"MINDX_TASK_ID {m[1]}"
        if m := POD_DIR.search(where):
            return f"job {m[1]}/{m[2]}"
    return None


def _marker(runs: Iterable[Iterable[RankProcess]]) -> str | None:
    """The one job marker the files of these processes name (:func:`job_marker`, below their ``root``); None for
    none, or several."""
    found = {m for run in runs for p in run for f in p.files if (m := job_marker(f, p.root))}
    return found.pop() if len(found) == 1 else None


def _slot(p: RankProcess) -> Slot:
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


def _placement(run: list[RankProcess]) -> dict[Slot, tuple[int, int | None]] | None:
    """Each device of a run with its rank in the run's widest communicator (rank, rank count): the rank table the run
    was started with (a process that names no communicator is in none). None where a process names no device."""
    out = {}
    for p in run:
        ranks = [(rank, total) for ident, (rank, total) in p.ranks.items() if ident != CONSOLE_GROUP]
        if not ranks:
            continue
        if p.device is None:
            return None
        out[_slot(p)] = max(ranks, key=lambda rt: (rt[1] or 0, -rt[0]))
    return out


def _by_rank(pl: dict[Slot, tuple[int, int | None]]) -> dict[tuple[int, int | None], Slot] | None:
    """A placement read by rank (None where two devices hold one rank: sub-communicators of one size)."""
    out = {rt: slot for slot, rt in pl.items()}
    return out if len(out) == len(pl) else None


def moved_ranks(last: list[RankProcess], run: list[RankProcess]) -> Moved | None:
    """How ``run``'s rank table differs from ``last``'s where it is the same job's (the module docstring): ``[]`` the
    same devices with the same ranks, else the ranks a rescheduling moved off the one host that left the job; None
    where it is another rank table. A rank whose plog one run lacks (a partial collection) is no difference."""
    pa, pb = _placement(last), _placement(run)
    if not pa or not pb or max(t or 0 for _r, t in pa.values()) != max(t or 0 for _r, t in pb.values()):
        return None  # (another rank count)
    if any(pa[s] != pb[s] for s in pa.keys() & pb.keys()):
        return None  # a device that holds another rank
    ra, rb = _by_rank(pa), _by_rank(pb)
    if ra is None or rb is None:
        return [] if pa == pb else None
    common = ra.keys() & rb.keys()
    moved = sorted((rt[0], ra[rt], rb[rt]) for rt in common if ra[rt] != rb[rt])
    left = {a[0] for _r, a, _b in moved}
    if not common or len(left) > 1 or left & {s[0] for s in pb}:
        return None  # no rank to compare; more than one host's ranks moved; the host they left still runs ranks
    return moved


def _restart(last: list[RankProcess], run: list[RankProcess]) -> bool:
    """Whether ``run`` is the next attempt of the job whose latest attempt is ``last`` (the module docstring)."""
    sa, sb = _span(last), _span(run)
    if sa is None or sb is None or not 0 < sb[0] - sa[1] <= RESTART_S:
        return False
    return moved_ranks(last, run) is not None


def _after(last: list[RankProcess], run: list[RankProcess]) -> bool:
    """Whether ``run`` began after ``last`` ended (a job-level rescheduling's new pods start after the old stop)."""
    sa, sb = _span(last), _span(run)
    return sa is not None and sb is not None and sb[0] > sa[1]


def _gap(group: list[RankProcess], t: float | None) -> float:
    """How far ``t`` lies outside the group's time span (0 within it; infinite without a time)."""
    s = _span(group)
    return float("inf") if s is None or t is None else max(s[0] - t, t - s[1], 0.0)


def part_runs(procs: list[RankProcess]) -> list[list[list[RankProcess]]]:
    """The processes parted into jobs and each job into its attempts (runs), earliest first; ``[[procs]]`` where the
    logs show one job run once (the usual case)."""
    groups, loose = _by_communicator(procs)
    runs = [run for g in groups for run in _cut(g)]
    if len(runs) < 2:
        return [[procs]]
    runs.sort(key=lambda r: (_span(r) or (float("inf"), 0.0))[0])
    jobs: list[list[list[RankProcess]]] = []
    for run in runs:  # a run is a job's next attempt, or joins the first job it is not shown apart from
        mine = _marker([run])
        marks = [_marker(j) for j in jobs]
        same = [j for j, m in zip(jobs, marks, strict=True) if mine is not None and m == mine]
        other = [j for j, m in zip(jobs, marks, strict=True) if mine is not None and m is not None and m != mine]
        again = next((j for j in same if _after(j[-1], run)), None) if same else next(
            (j for j in jobs if not any(j is o for o in other) and _restart(j[-1], run)), None)
        home = again or (same[0] if same else next(
            (j for j in jobs if not any(j is o for o in other) and not _two_jobs([p for a in j for p in a], run)),
            None))
        if home is None:
            jobs.append([list(run)])
        elif again is not None:
            again.append(list(run))
        else:
            home[-1].extend(run)
    if len(jobs) < 2 and len(jobs[0]) < 2:
        return [[procs]]
    for p in loose:  # a process that names no communicator: the job (attempt) whose time span holds it, else nearest
        t = p.first_t if p.first_t is not None else p.first_error_t
        job = min(jobs, key=lambda j, t=t: _gap([q for a in j for q in a], t))  # type: ignore[misc]
        min(job, key=lambda a, t=t: _gap(a, t)).append(p)  # type: ignore[misc]
    return jobs


def part_jobs(procs: list[RankProcess]) -> list[list[RankProcess]]:
    """The processes parted into jobs (every attempt's together), earliest first; ``[procs]`` for one job."""
    return [[p for a in job for p in a] for job in part_runs(procs)]


def _failed(run: list[RankProcess]) -> bool:
    """Whether an attempt failed: one of its processes logged an error."""
    return any(p.errors or p.first_error is not None for p in run)


def read_attempt(attempts: list[list[RankProcess]]) -> int:
    """The attempt a verdict is about: the latest that logged an error (the restart's when it failed again, the
    earlier one's when the restart ran clean); the latest where none did."""
    failed = [k for k, a in enumerate(attempts) if _failed(a)]
    return failed[-1] if failed else len(attempts) - 1


def _when(t: float | None) -> str | None:
    # (the collector's times are the logged local times read as this machine's: read back the same way)
    return None if t is None else datetime.fromtimestamp(t).isoformat(timespec="seconds")


def describe(n: int, procs: list[RankProcess]) -> dict[str, Any]:
    """A job as the report lists it: its number, communicators (identifier, rank count), hosts, devices, first and
    last line and first error (as logged, local time), and the MindCluster job its files name (``marker``:
    :func:`job_marker`), if one."""
    span = _span(procs)
    errs = [p.first_error_t for p in procs if p.first_error_t is not None]
    comms = sorted({(ident, total) for p in procs for ident, (_r, total) in p.ranks.items()}, key=str)
    return {"job": n, "communicators": [{"identifier": i, "ranks": t} for i, t in comms],
            "hosts": sorted({p.worker for p in procs if p.worker}),
            "processes": [p.name for p in procs],
            "servers": sorted({p.server for p in procs if p.server}),
            "first_line": _when(span[0] if span else None), "last_line": _when(span[1] if span else None),
            "first_error": _when(min(errs) if errs else None)} | ({"marker": m} if (m := _marker([procs])) else {})


def _device(s: Slot) -> str:
    return f"{s[0]} device {s[1]}"


def describe_attempts(attempts: list[list[RankProcess]], read: int) -> list[dict[str, Any]]:
    """Each attempt (run) of a job as the report lists it: its number, pids, first and last line, first error,
    whether it failed (logged an error) and whether the verdict's evidence is from it (``read``); an attempt a
    rescheduling moved ranks for its ``moved`` (the host they left, the hosts they went to, each rank's devices), the
    attempt before it its ``suspect_host`` (the host that left: the one the rescheduling took out of the job); an
    attempt re-placed as a whole its ``rescheduled``, where the files name the job (:func:`job_marker`)."""
    out: list[dict[str, Any]] = []
    job = _marker(attempts)
    for k, procs in enumerate(attempts):
        span = _span(procs)
        errs = [p.first_error_t for p in procs if p.first_error_t is not None]
        out.append({"attempt": k + 1, "pids": sorted({p.pid for p in procs}, key=lambda x: (len(x), x)),
                    "first_line": _when(span[0] if span else None), "last_line": _when(span[1] if span else None),
                    "first_error": _when(min(errs) if errs else None),
                    "failed": _failed(procs), "read": k == read})
        if k and (moved := moved_ranks(attempts[k - 1], procs)) is None:
            if job is not None:  # re-placed: the same job by its marker (without one: a restart's words, as before)
                out[-1]["rescheduled"] = {"job": job, "hosts_before": _hosts(attempts[k - 1]), "hosts": _hosts(procs)}
        elif k and moved:
            left = moved[0][1][0]
            out[-1]["moved"] = {"from_host": left, "to_hosts": sorted({b[0] for _r, _a, b in moved}),
                                "ranks": [{"rank": r, "from": _device(a), "to": _device(b)} for r, a, b in moved]}
            out[-2]["suspect_host"] = left
    return out


def _hosts(procs: list[RankProcess]) -> list[str]:
    return sorted({p.worker for p in procs if p.worker})


def ran_words(attempts: list[dict[str, Any]], runs: str = "") -> str:
    """How a job ran more than once: ``the job ran 2 times on the same devices with the same ranks (a restart)``,
    with the ranks of a host that left moved to another (a rescheduling), or re-placed (a job-level rescheduling, the
    same job by its files' marker: :func:`job_marker`); ``runs`` said within the brackets."""
    moves = [a["moved"] for a in attempts if a.get("moved")]
    more = f": {runs}" if runs else ""
    if whole := [a for a in attempts if a.get("rescheduled")]:
        job = whole[0]["rescheduled"]["job"]
        placed = "; ".join(f"attempt {a['attempt'] - 1} on {', '.join(a['rescheduled']['hosts_before'])}, attempt "
                           f"{a['attempt']} on {', '.join(a['rescheduled']['hosts'])}" for a in whole)
        return (f"the job ran {len(attempts)} times, rescheduled as a whole (one job by its files' {job}: its pods "
                f"re-created, its ranks re-placed: {placed}{more})")
    if not moves:
        return f"the job ran {len(attempts)} times on the same devices with the same ranks (a restart{more})"
    hosts = "; ".join(f"{m['from_host']}'s ranks to {', '.join(m['to_hosts'])}" for m in moves)
    return (f"the job ran {len(attempts)} times with the same ranks, all but one host's on the same devices "
            f"(a rescheduling, {hosts}{more})")


def move_words(a: dict[str, Any]) -> str:
    """The ranks a rescheduling moved before attempt ``a``: ``attempt 2 moved rank 1 from node-b device 1 to node-d
    device 1; node-b left the job: attempt 1's suspect``; empty where none moved."""
    m = a.get("moved")
    if not m:
        return ""
    ranks = ", ".join(f"rank {x['rank']} from {x['from']} to {x['to']}" for x in m["ranks"][:4])
    more = f" and {len(m['ranks']) - 4} more" if len(m["ranks"]) > 4 else ""
    return (f"attempt {a['attempt']} moved {ranks}{more}; {m['from_host']} left the job: attempt "
            f"{a['attempt'] - 1}'s suspect")


def attempt_words(attempts: list[dict[str, Any]]) -> str:
    """Why the verdict's evidence is from the attempt it is from (``attempts``: :func:`describe_attempts`), and
    which ranks a rescheduling moved from which host to which."""
    read = next(a for a in attempts if a["read"])
    later = [a for a in attempts if a["attempt"] > read["attempt"]]
    why = ("no attempt logged an error" if not read["failed"]
           else "the restart ran clean (no error logged after it began)" if later
           else "the latest attempt failed too" if read["attempt"] > 1 else "the only failing attempt")
    runs = "; ".join(f"attempt {a['attempt']} (pid {', '.join(a['pids'][:3])}"
                     + (" ..." if len(a["pids"]) > 3 else "") + f") {a['first_line']} to {a['last_line']}"
                     + (f", first error {a['first_error']}" if a["first_error"] else ", no error")
                     for a in attempts)
    moves = "".join(f"; {w}" for a in attempts if (w := move_words(a)))
    return f"{ran_words(attempts, runs)}{moves}; the evidence is from attempt {read['attempt']}: {why}"
