"""The hosts of a collective job's processes (:mod:`.ranks`): each worker directory's server address where its
processes print none of their own, and the name the rank table shows each worker by."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from opsbrain.ingest.asys import host_dirs, job_log_host
from opsbrain.ingest.hostnames import real_names
from opsbrain.ingest.rankrecords import RankProcess, _ip
from opsbrain.ingest.workers import env_folds, env_worker, names_no_host, shared_head, short_names, unarchived


def fill_servers(procs: list[RankProcess], device_ips: dict[str, dict[int, str]],
                 rank_tables: Iterable[list[str]], rank_dirs: set[str]) -> None:
    """The server (host) address of a worker directory's processes that print none of their own, where the input
    shows it another way: a rank table (``server_list[].server_id`` over its devices' ``device_ip``) listing an
    address the worker's npu_info (``hccn_tool -i N -ip -g``) or its processes give their devices, or the
    root-info host address (``host ip[...]``) of a communicator whose root process (the one that printed
    ``HcclGetRootInfo success`` for it, else its rank 0) is the worker's. A heartbeat or transport line names a
    peer by its server address; with it the peer's processes are found by it, so one host keeps one name in the
    chain. Only a worker whose evidence names one address, and not a container directory (a job's, holding
    several hosts' ranks: ``rank_dirs`` are those with a rank's directory right below) nor the unnamed worker of
    pasted text. Sets ``server`` on the processes in place."""
    by_worker: dict[str, list[RankProcess]] = {}
    for p in procs:
        by_worker.setdefault(p.worker, []).append(p)
    found: dict[str, set[str]] = {}
    server_of_ip = rank_table_servers(rank_tables)
    if server_of_ip:
        for w in set(by_worker) | set(device_ips):
            ips = set(device_ips.get(w, {}).values()) | {p.device_ip for p in by_worker.get(w, ()) if p.device_ip}
            found.setdefault(w, set()).update(server_of_ip[ip] for ip in ips if ip in server_of_ip)
    roots: dict[str, str] = {}
    for p in procs:
        for ident, host in p.root_host.items():
            roots.setdefault(ident, host)
    for ident, host in roots.items():
        root = next((p for p in procs if ident in p.root_of), None) or next(
            (p for p in procs if p.ranks.get(ident, (None, None))[0] == 0), None)
        if root is not None:
            found.setdefault(root.worker, set()).add(host)
    for w, servers in found.items():
        mine = by_worker.get(w, [])
        own = {p.server for p in mine if p.server}
        if not w or not servers or len(servers | own) != 1 or names_no_host(w, w in rank_dirs):
            continue
        for p in mine:
            p.server = p.server or next(iter(servers))


def rank_table_servers(rank_tables: Iterable[list[str]]) -> dict[str, str]:
    """Device address -> server id of every rank table (its lines) fed (HCCL's rank table, hicann/hccl
    docs/zh/user_guide/cluster_info_config/rank_table_config_a2.md: ``server_list`` of ``server_id`` and ``device``
    rows with ``device_id``, ``device_ip``, ``rank_id``); a file that is not one is left out."""
    from opsbrain.yamlio import json_or_none

    out: dict[str, str] = {}
    for lines in rank_tables:
        ok, doc = json_or_none("\n".join(lines))  # (nested too deep, a 5000-digit number: not a rank table)
        if not ok:
            continue
        servers = doc.get("server_list") if isinstance(doc, dict) else None
        for srv in servers if isinstance(servers, list) else ():
            sid = srv.get("server_id") if isinstance(srv, dict) else None
            devs = srv.get("device") if isinstance(srv, dict) else None
            if not isinstance(sid, str) or not isinstance(devs, list):
                continue
            for d in devs:
                if isinstance(d, dict) and isinstance(d.get("device_ip"), str) and _ip(d["device_ip"]):
                    out.setdefault(d["device_ip"], sid)
    return out


def rank_table_listing(rank_tables: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Address -> where a rank table lists it (the same HCCL rank table as :func:`rank_table_servers` reads): a
    server address -> ``{"file", "server", "devices", "ranks"}``, a device address -> the same of its one device.
    So a peer whose logs are missing is said to be one the job's rank table holds (session 33)."""
    from opsbrain.yamlio import json_or_none

    out: dict[str, dict[str, Any]] = {}
    for file, lines in sorted(rank_tables.items()):
        ok, doc = json_or_none("\n".join(lines))
        servers = doc.get("server_list") if ok and isinstance(doc, dict) else None
        for srv in servers if isinstance(servers, list) else ():
            sid = srv.get("server_id") if isinstance(srv, dict) else None
            devs = [d for d in (srv.get("device") if isinstance(srv, dict) else None) or () if isinstance(d, dict)]
            if not isinstance(sid, str) or not _ip(sid):
                continue
            rows = [(str(d.get("device_id")), str(d.get("rank_id")), d.get("device_ip")) for d in devs]
            out.setdefault(sid, {"file": file, "server": sid, "devices": [r[0] for r in rows],
                                 "ranks": [r[1] for r in rows]})
            for dev, rank, ip in rows:
                if isinstance(ip, str) and _ip(ip):
                    out.setdefault(ip, {"file": file, "server": sid, "devices": [dev], "ranks": [rank]})
    return out


def rank_in_table(rank: int, listed: dict[str, dict[str, Any]], ranks: int | None
                  ) -> tuple[str, int, str] | None:
    """(server address, device, file) a rank table of the input gives rank ``rank`` (its ``rank_id``), where the
    communicator the rank is of has as many ranks as the table lists (``ranks``; None: its size is not known, as for
    torch_npu's RankID, the job's global rank), else None (session 60, probe60b)."""
    rows = [row for key, row in listed.items() if row["server"] == key]
    if ranks is not None and ranks != sum(len(row["ranks"]) for row in rows):
        return None
    for row in rows:
        for dev, rid in zip(row["devices"], row["ranks"], strict=False):
            if rid == str(rank) and dev.isdecimal():  # (int() refuses a superscript digit)
                return row["server"], int(dev), row["file"]
    return None


def listed_words(address: str, listed: dict[str, dict[str, Any]]) -> str | None:
    """``the rank table F lists server 10.0.0.40 (devices 0-7, ranks 56-63)`` (a device address: ``... lists device
    192.168.39.1 (server 10.0.0.40, device 0, rank 56)``), None where no rank table lists the address."""
    row = listed.get(address)
    if row is None:
        return None
    what = "device" if row["server"] != address else "server"

    def span(xs: list[str]) -> str:
        if len(xs) > 2 and all(x.isdigit() for x in xs) and [int(x) for x in xs] == list(
                range(int(xs[0]), int(xs[0]) + len(xs))):
            return f"{xs[0]}-{xs[-1]}"
        return ", ".join(xs)

    many = "s" if len(row["devices"]) > 1 else ""
    where = f"server {row['server']}, " if what == "device" else ""
    return (f"the rank table {row['file']} lists {what} {address} ({where}device{many} {span(row['devices'])}, "
            f"rank{many} {span(row['ranks'])})")


def shown_names(alias: dict[str, set[str]], procs: list[RankProcess], ip_workers: set[str],
                other_workers: set[str], rank_dirs: set[str], syslog_hosts: dict[str, Counter[str]],
                root_name: str) -> Callable[[str], str]:
    """Worker directory -> the name the table gives it: its host's directory (:func:`asys.host_dirs`), its
    ``environment_check/<name>/`` where it has one (``alias``: worker directory -> its folders' names), from where
    the workers' paths differ (the processes', ``ip_workers``' and ``other_workers``'), cut to a host-like last
    directory (:func:`~opsbrain.ingest.workers.short_names`), ``root_name`` for the root given; where that only
    numbers the host (``worker-1``, the root), the one host its syslog names (``syslog_hosts``,
    :func:`~opsbrain.ingest.hostnames.real_names`). A container directory (a job's,
    :func:`~opsbrain.ingest.workers.names_no_host`) names no host: its processes' one server address where they
    print one, else ``""``."""
    fold = env_folds(alias)
    names = {w: next(iter(a)) for w, a in alias.items() if len(a) == 1}
    names |= {env_worker(w, sub): sub for w, a in alias.items() if len(a) > 1 for sub in a}
    host_of = host_dirs({fold.get(w, w) for w in ({p.worker for p in procs} | ip_workers | other_workers)})
    hosts = set(host_of.values())
    cut = shared_head([names.get(h, h) for h in hosts])
    container = {h for h in hosts if h not in names and names_no_host(h, h in rank_dirs)}
    full = {h: job_log_host(h) or unarchived(names.get(h, h)[cut:]) for h in hosts - container}
    shown = short_names(full)
    for h in container:
        servers = {p.server for p in procs if host_of.get(p.worker) == h and p.server}
        shown[h] = servers.pop() if len(servers) == 1 else ""

    seen: dict[str, Counter[str]] = {}
    for w, count in syslog_hosts.items():
        if (h := host_of.get(fold.get(w, w), w)) in hosts:
            seen.setdefault(h, Counter()).update(count)
    label = {h: shown[h] or root_name for h in hosts - container}
    shown |= real_names({h: (label[h], seen.get(h)) for h in hosts - container})

    def name(w: str) -> str:
        w = fold.get(w, w)
        h = host_of.get(w, w)
        if h in shown:
            return shown[h] or ("" if h in container else root_name)
        return unarchived(names.get(h, h)[cut:]) or root_name
    return name
