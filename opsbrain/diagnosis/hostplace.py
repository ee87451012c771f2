"""Placing a one-click diagnosis's signals on the hosts a collection names (split from
:mod:`opsbrain.diagnosis.oneclick`): signals of a worker's files on that worker, a host's switch chips on that host,
and the aliases under which one host is written."""

from __future__ import annotations

from collections.abc import Callable

from opsbrain.ingest import Signal
from opsbrain.ingest.hostnames import SWITCH_LOG, chip_host, switch_file, switch_folder
from opsbrain.ingest.ranks import RankCollector
from opsbrain.ingest.where import (
    on_host_chip,
    renamed,
    twin_node,
    with_host,
)
from opsbrain.ingest.workers import host_root


def on_workers(signals: list[Signal], ranks: RankCollector,
               origins: dict[tuple[str | None, int], str] | None = None) -> list[Signal]:
    """Signals of a directory's files on the worker whose directory holds them, where their line names no host
    (``worker-0/device_log/...``'s ``npu3/hbm`` is ``worker-0/npu3/hbm``, as the bundle reader places it): the
    workers named as the multi-rank analysis names them; device 3 of two workers stays two devices. ``origins``:
    the file a line was first written to, for an input that holds several files' lines (``grep -r``)."""
    origins = origins or {}

    def written_to(s: Signal) -> str | None:
        return origins.get((s.file, s.line_no or 0)) or s.file

    # a switch's folder (its chip log, its display dump) is no host's directory: its lines are the switch's, by the
    # folder's name, as the bundle reader places them (session 45: before, a dump's lines were the directory given's
    # or the folder's ``lcne_log/<switch>``)
    signals = [with_host(s, sw) if s.host is None and (sw := switch_folder(written_to(s))) else s for s in signals]
    where = {f: "" if switch_file(f) else ranks.worker_of(f)
             for f in {written_to(s) for s in signals if s.host is None} if f}
    ranks.other_workers |= {w for w in where.values() if w}
    for f, w in where.items():
        ranks.note_file(f, w)
    if not ranks.other_workers and not ranks.root_name:
        return _chips_on_hosts(signals, ranks, written_to)
    shown = ranks.shown()
    alias = _host_aliases(signals, written_to, ranks.root_archive)
    # a container directory names no host (shown ""): a plog's lines are its process's server's, others keep the
    # host they name, or none. The root given holds one node's files where it names a host (``ranks.root_name``,
    # :func:`~opsbrain.ingest.hostnames.root_names_host`): its own files are that node's, named as the rank table
    # and the bundle reader name it (its syslog's host; session 34: before, a node's collection given at its top
    # left every line of no host of its own on no host, where the root cluster and --bundle named the host)
    host = {f: shown(w) or ranks.server_of(f) or "" for f, w in where.items()}
    placed = [with_host(s, h) if s.host is None and (src := written_to(s)) and (where[src] or ranks.root_name)
              and (h := host[src]) else
              renamed(s, h) if s.host in alias and (h := shown(alias[s.host])) else s for s in signals]
    return _chips_on_hosts(placed, ranks, written_to)


def _chips_on_hosts(signals: list[Signal], ranks: RankCollector,
                    written_to: Callable[[Signal], str | None]) -> list[Signal]:
    """A switch chip's lines (its LCNE log, :data:`~opsbrain.ingest.hostnames.SWITCH_LOG`, whose folder names the
    chip) whose chip is named after a worker's host (``gz-a3-r07-n36-l1sw2``): that host's, as the bundle reader
    places them (the one rule, :func:`~opsbrain.ingest.hostnames.chip_host`); before session 33 ``--logs DIR``
    named the chip's folder as a host."""
    chips = {f for s in signals if (f := written_to(s)) and SWITCH_LOG.search(f)}
    if not chips:
        return signals
    shown = ranks.shown()
    workers = ranks.other_workers | {p.worker for p in ranks.procs.values()} | {
        ranks.worker_of(f) for f in ranks.files_read() if not SWITCH_LOG.search(f)}  # (a host without signals too)
    names = {n for w in workers if (n := shown(w))}
    found: dict[str, tuple[str, str] | None] = {}
    out = []
    for s in signals:
        if (f := written_to(s)) in chips and (m := SWITCH_LOG.search(f or "")) and (
                chip := m.group(1) or (s.component or "").split("~")[0].split("/")[0]):
            if chip not in found:
                found[chip] = chip_host(chip, names - {chip})
            if (at := found[chip]) is not None:
                s = on_host_chip(s, chip, *at)
        out.append(s)
    return out


def _host_aliases(signals: list[Signal], written_to: Callable[[Signal], str | None], root: str = ""
                  ) -> dict[str, str]:
    """Host names that lines give (a syslog head's ``ascend-a01``) -> the worker directory they stand for: the one
    directory that holds every line naming the host, where no line of it names another host (the bundle reader maps
    a worker to its syslog's host alike). A file of many hosts' lines (a fan-out tool's paste) names none, nor does
    the twin's node id (``pod0-node7``), which is the node's own name; nor the root given (``root``: the label of
    an archive given, which stands for it), as the root directory given names none."""
    hosts_in: dict[str, set[str]] = {}
    dirs_of: dict[str, set[str]] = {}
    for s in signals:
        if s.host is not None and twin_node(s.host) is None and (f := written_to(s)) and not switch_file(f) and (
                w := host_root(f)[0]) and w != root:
            hosts_in.setdefault(w, set()).add(s.host)
            dirs_of.setdefault(s.host, set()).add(w)
    return {h: w for h, ws in dirs_of.items() if len(ws) == 1 and len(hosts_in[w := next(iter(ws))]) == 1}
