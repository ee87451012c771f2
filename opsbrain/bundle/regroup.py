"""Who a bundle's files belong to, decided again once the walk has found them all (split out of walk.py in session
42): a note above the worker folders is no worker, a host's sub-folder is that host's, and each
``environment_check/<name>/`` folder of a directory that holds several is a worker of its own. Each pass changes the
walk's list of files in place (a file's kind replaced, or the file moved to the skipped ones)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from opsbrain.bundle import layout as L
from opsbrain.ingest.workers import ENV_CHECK, env_worker, host_root

if TYPE_CHECKING:
    from opsbrain.bundle.walk import _File


def root_consoles(files: list[_File], consoles: list[str], skipped: list[dict[str, str]]) -> None:
    """A text log of no known name at the root of a bundle whose other files are in worker directories is not a
    host's console (a note, a README): skipped, as unknown files are, rather than made a worker of its own. So is
    one in a folder above two workers or more that holds no other file (``job/collect.log`` beside ``job/worker-0/``,
    ``job/worker-1/``: a host's folder holds no other hosts'; session 42, before ``job`` was a worker)."""
    if not any(f.kind.worker for f in files if f.kind.tag != L.UNNAMED_CONSOLE):
        return
    unnamed = [f for f in files if f.kind.tag == L.UNNAMED_CONSOLE]
    own = {f.kind.worker for f in files if f.kind.tag != L.UNNAMED_CONSOLE}
    workers = {f.kind.worker for f in files if f.kind.worker}
    for f in unnamed:
        w = f.kind.worker
        if w and (w in own or sum(x.startswith(f"{w}/") for x in workers) < 2):
            continue
        files.remove(f)
        consoles.remove(f.rel)
        where = "above" if w else "at the root, beside"
        skipped.append({"path": f.rel, "reason": f"unknown file {where} worker directories"})


def fold_nested_workers(files: list[_File]) -> None:
    """A worker directory inside a host's (``node-a/tools/x/`` below ``node-a/``, whose ``messages`` made it a
    worker) is that host's: one host's logs in a sub-directory the layout does not know do not make a second
    host. Only a host's own system log (messages, dmesg, sysmonitor, a crash dump) makes a directory such a host:
    a job folder with a console of its own beside its workers' folders does not swallow them. The bundle root is
    none (a bundle of hosts may hold a file of its own)."""
    workers = {f.kind.worker for f in files if f.kind.worker and f.kind.kind in L.HOST_LOG_KINDS}
    for k, f in enumerate(files):
        w = f.kind.worker
        if not w or "/" not in w:
            continue
        parts = w.split("/")
        outer = next(("/".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)
                      if "/".join(parts[:n]) in workers), None)
        if outer is not None:
            files[k] = replace(f, kind=replace(f.kind, worker=outer))


def split_env_checks(files: list[_File]) -> None:
    """Each ``environment_check/<name>/`` folder of a worker directory that holds several is a worker of its own
    (:func:`~opsbrain.ingest.workers.env_worker`: ``out/environment_check/worker-5/``, ``.../worker-6/``, each
    host's check), as the multi-rank analysis reads them; a directory with one such folder stays one worker. A folder
    named as a worker directory beside it (ascend-fd's collection: ``environment_check/worker-1/`` and ``worker-1/``)
    is that worker's (session 60, probe59b: before, two hosts of one name, a port's link record and its CQE error in
    two incidents)."""
    subs: dict[str, set[str]] = {}
    found: list[tuple[int, str, str]] = []
    for k, f in enumerate(files):
        if f.kind.worker is not None and f"{ENV_CHECK}/" in f.rel and (sub := host_root(f.rel)[1]):
            subs.setdefault(f.kind.worker, set()).add(sub)
            found.append((k, f.kind.worker, sub))
    workers = {f.kind.worker for f in files if f.kind.worker is not None and f"{ENV_CHECK}/" not in f.rel}
    for k, w, sub in found:
        same = f"{w}/{sub}" if w else sub  # a worker directory of the folder's name beside it: that host's check
        if same in workers or len(subs[w]) > 1:
            f = files[k]
            files[k] = replace(f, kind=replace(f.kind, worker=same if same in workers else env_worker(w, sub)))
