"""Run a campaign: every (seed, policy) of a :class:`CampaignSpec` as a full chaos run, in parallel, resumably.

Each run is the chaos runner's ``run_plan`` on a campaign plan (faults, noise, detector, diagnosis, runbooks), so a
campaign's figures are the same measurements ``chaos run`` makes. Runs execute in worker processes
(``concurrent.futures``) or on a Dask cluster (:mod:`opsbrain.campaign.dask_exec`); only the parent writes the
store: each finished run's journal goes into the run store (``runs`` table, tagged with the campaign id) and its
compact record into the ``campaign_runs`` table of the same SQLite file, keyed by (campaign id, seed, policy); the
last summary is kept in ``campaigns`` (``opsbrain report CAMPAIGN_ID``). A campaign started again
with the same set-up (after a kill, or with more seeds) reuses the finished runs and runs only the missing ones.

Each worker process loads the diagnosis engine and builds the topology once (cached per process) and reuses them
for every run it is given; nothing a run changes lives in them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from faultlib.topology import Topology, TopologyParams
from opsbrain.campaign.spec import CampaignSpec, campaign_plan, sim_params
from opsbrain.campaign.summary import seed_record, summarize
from opsbrain.diagnosis.engine import Engine
from opsbrain.stophold import held
from opsbrain.store import RunStore
from opsbrain.workers import init_worker

Say = Callable[[str], None]
Progress = Callable[[int, int, "dict[str, Any] | None"], None]
"""``progress(done, total, record_just_finished_or_None)``."""

# ---- worker side ---------------------------------------------------------------------------------------------
# Per-process caches of read-only objects (the diagnosis engine, the topology): loaded once per worker, never
# mutated by a run, so results do not depend on them being cached.
@lru_cache(maxsize=2)
def _engine(home: str | None) -> Engine:
    from opsbrain.kb.training import load_engine

    return load_engine(Path(home) if home else None)


@lru_cache(maxsize=2)
def _topology(pods: int, topology_params_json: str) -> Topology:
    return Topology.build(TopologyParams.model_validate_json(topology_params_json), pods)


def run_task(spec_json: str, seed: int, policy: str, home: str | None = None,
             progress: Callable[[float, float], None] | None = None) -> dict[str, Any]:
    """One campaign run: plan, simulate with the controller, score; returns ``{"record", "journal"}``.

    A module-level function of plain arguments, so process pools and Dask can ship it.
    """
    from opsbrain.runner.run import run_plan

    t0 = time.perf_counter()
    spec = CampaignSpec.model_validate_json(spec_json)
    topo = _topology(spec.pods, sim_params(spec).topology.model_dump_json())
    plan = campaign_plan(spec, seed, policy, topology=topo)
    setup_s = time.perf_counter() - t0
    journal = run_plan(plan, _engine(home), progress=progress)
    record = seed_record(journal, plan.timeline, spares=len(plan.spares))
    record["wall_s"] = round(time.perf_counter() - t0, 3)
    record["setup_s"] = round(setup_s, 3)
    record["worker_pid"] = os.getpid()
    return {"record": record, "journal": journal}


def run_task_packed(args: tuple[str, int, str, str | None]) -> dict[str, Any]:
    return run_task(*args)


# ---- store -----------------------------------------------------------------------------------------------------
class CampaignStore:
    """A campaign's view of the run store (its ``campaigns`` / ``campaign_runs`` tables, :mod:`opsbrain.store`)."""

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs
        self.path = runs.path

    def register(self, spec: CampaignSpec) -> None:
        self.runs.register_campaign(spec.campaign_id, spec.identity())

    def finished(self, campaign_id: str) -> dict[tuple[int, str], dict[str, Any]]:
        return self.runs.campaign_records(campaign_id)

    def save(self, spec: CampaignSpec, result: dict[str, Any], keep_journal: bool = True) -> str | None:
        """Store one finished run: its journal in the run store, then its record (the resume marker)."""
        journal = result.get("journal") if keep_journal else None
        return self.runs.save_campaign_run(spec.campaign_id, result["record"], journal, spec.name)

    def campaigns(self) -> list[dict[str, Any]]:
        return self.runs.list_campaigns()


# ---- the campaign ------------------------------------------------------------------------------------------------
@dataclass
class Options:
    workers: int = 1
    executor: str = "local"  # local | dask
    scheduler: str | None = None  # dask scheduler address; None = a LocalCluster of ``workers`` processes
    keep_journals: bool = True


def default_workers(tasks: int) -> int:
    return max(1, min(tasks, os.cpu_count() or 1))


def run_campaign(spec: CampaignSpec, store: RunStore | None = None, options: Options | None = None,
                 home: Path | None = None, progress: Progress | None = None, say: Say | None = None,
                 sim_progress: Callable[[int, str, float, float], None] | None = None) -> dict[str, Any]:
    """Run the missing (seed, policy) pairs of ``spec``, store each as it finishes, return the summary.

    ``store=None`` keeps nothing (no resume). An interrupt (Ctrl-C) keeps what finished and returns a summary of
    it with ``"complete": False``. ``sim_progress(seed, policy, now, total)`` reports simulated time of in-process
    runs (``workers == 1``, local executor).
    """
    opts = options or Options()
    t0 = time.perf_counter()
    from opsbrain.kb.training import load_engine

    load_engine(home, say=say)  # train and cache a model once here, not in every worker
    cstore = CampaignStore(store) if store is not None else None
    done: dict[tuple[int, str], dict[str, Any]] = {}
    if cstore is not None:
        cstore.register(spec)
        mine = {k: v for k, v in cstore.finished(spec.campaign_id).items()
                if k[0] in spec.seed_list and k[1] in spec.policies}
        done = {k: v for k, v in mine.items() if v.get("run_id") or not opts.keep_journals}
        if say and len(done) < len(mine):  # kept with --no-journals: run again to store the journals (session 43)
            say(f"{len(mine) - len(done)} finished run(s) were kept without their journal (--no-journals): "
                "running them again to store their journals")
    todo = [(s, p) for s in spec.seed_list for p in spec.policies if (s, p) not in done]
    reused = len(done)
    total = reused + len(todo)
    spec_json = spec.model_dump_json()
    hs = str(home) if home else None
    records = dict(done)
    interrupted = False

    def finish(result: dict[str, Any]) -> None:
        rec = result["record"]
        if rec.get("status") != "finished":
            raise KeyboardInterrupt  # a run cut short is no result: it runs again on resume
        with held("the finished run"):  # its journal, run row and resume marker all stored, or none (a stop waits)
            if cstore is not None:
                cstore.save(spec, result, keep_journal=opts.keep_journals)
            records[(rec["seed"], rec["policy"])] = rec
        if progress:
            progress(len(records), total, rec)

    if progress:
        progress(len(records), total, None)
    try:
        if not todo:
            pass
        elif opts.executor == "dask":
            from opsbrain.campaign.dask_exec import run_on_dask

            for result in run_on_dask([(spec_json, s, p, hs) for s, p in todo], opts.workers, opts.scheduler):
                finish(result)
        elif opts.workers <= 1 or len(todo) == 1:
            for s, p in todo:
                cb = (lambda now, tot, s=s, p=p: sim_progress(s, p, now, tot)) if sim_progress else None
                finish(run_task(spec_json, s, p, hs, progress=cb))
        else:
            _run_pool(spec_json, todo, hs, min(opts.workers, len(todo)), finish)
    except KeyboardInterrupt:
        interrupted = True
    ordered = [records[k] for k in sorted(records)]
    out = summarize(spec, ordered)
    out["runs"] = {"total": len(spec.seed_list) * len(spec.policies), "finished": len(records),
                   "reused": reused, "ran_now": len(records) - reused}
    out["complete"] = not interrupted and len(records) == out["runs"]["total"]
    out["execution"] = {"executor": opts.executor, "workers": opts.workers, "scheduler": opts.scheduler,
                        "wall_s": round(time.perf_counter() - t0, 3),
                        "run_wall_s": round(sum(float(r.get("wall_s") or 0.0) for r in ordered
                                                if (r["seed"], r["policy"]) not in done), 3)}
    if store is not None:
        store.save_campaign_summary(spec.campaign_id, out)  # for 'opsbrain report CAMPAIGN_ID'
    return out


STOP_JOIN_S = 2.0  # reason: a killed worker is reaped at once; the bound keeps a stop under the 5 s promise


def _run_pool(spec_json: str, todo: Sequence[tuple[int, str]], home: str | None, workers: int,
              finish: Callable[[dict[str, Any]], None]) -> None:
    ex = ProcessPoolExecutor(max_workers=workers, initializer=init_worker, initargs=(os.getpid(),))
    try:
        pending: set[Future[dict[str, Any]]] = {ex.submit(run_task, spec_json, s, p, home) for s, p in todo}
        while pending:
            ready, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in ready:
                finish(f.result())
    except BaseException:
        # interrupted: stop the runs in flight now (they run again on resume) rather than wait for them
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.join(STOP_JOIN_S)
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
