"""Multi-rank root cause: from every process's identity and errors (:mod:`opsbrain.ingest.ranks`), the device(s)
the others waited for and the wait chain, as Huawei's ascend-fd root-cluster analysis does (its checker order and
result meanings are described in our own words in the project notes; this is our implementation).

1. The erroring processes are ordered by their first error.
2. The failure kind decides the wait edges, in ascend-fd's order of precedence: RDMA completion errors (``cqe``:
   device -> the device at the address named), HCCL's exception-spreading line (``cluster``: the device named is the
   root), transport set-up (``transport``: device -> the device at ``server/device``), then the timeouts of the
   first erroring process: socket set-up (device -> the device holding the dest_ip address, or the physical
   device on the same worker), notify wait (device -> the device holding the remote rank of that communicator;
   ``local`` is a wait on itself), root-info exchange.
3. Timing rules first: when every device of the communicator reported the timeout and they are spread over more
   than the timeout (``HCCL_CONNECT_TIMEOUT``, 120 s by default; ``HCCL_EXEC_TIMEOUT``, 1800 s, for notify), the
   last reporter came late and is the root; for notify, devices of the communicator that never reported are
   the roots.
4. Otherwise the wait graph: its terminal groups (a device that waits for nobody, a device waiting on itself, or
   a cycle of devices waiting for each other) are the candidates; the one most erroring devices lead to is the
   root (ties: the earliest error). The chain shown follows each device's earliest wait, as ascend-fd draws it
   (the shortest path where that walk does not reach the root). A remote that resolves to no process is a dead end.
   One rule for a wait on a peer (:data:`PEER_WAITS`; a root-info exchange timeout too where a line names the ranks
   that never connected, :func:`_peer_wait`, session 41) whose logs are absent (no process of the input is it, and
   its host is not one of the input's): the peer, by the address or rank its waiters' lines name, is the root,
   said to be absent, and the erroring device is the one that waited; where no line names the peer, the root is
   unknown and the waiting devices are named as waiting (:func:`_silent_peer`). A remote whose host is in the
   input but which never came up leaves the erroring device the root. A link-table row whose
   address no process has is resolved by the remote's rank in the process's communicator, as ascend-fd does.
5. Where the first error is no timeout, the devices that logged errors but no timeout are the suspects; the others'
   waits that end at one give the chain and the failure kind (an AI CPU notify wait: ascend-fd's code 109).
6. Without any wait edge the erroring devices are the possible roots, earliest first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from opsbrain.diagnosis.waitgraph import first_waits, path_in, sccs, wait_path
from opsbrain.ingest.rankconsole import CONSOLE_GROUP
from opsbrain.ingest.ranks import LineRef, RankError, RankProcess, RankTable

CONNECT_TIMEOUT_S = 120
"""HCCL_CONNECT_TIMEOUT default (CANN HCCL environment variables reference; ascend-fd uses the same default)."""
EXEC_TIMEOUT_S = 1800
"""HCCL_EXEC_TIMEOUT default (same sources)."""
WAIT_KINDS = ("socket", "notify", "rootinfo")
KIND_WORDS = {"socket": "link set-up (socket) timeout", "notify": "notify wait timeout",
              "transport": "transport init error", "cqe": "RDMA completion error (retransmission exceeded)",
              "cluster": "HCCL exception-spreading log", "rootinfo": "root-info exchange timeout",
              "ffts": "FFTS+ task failure", "normal": "errors without a wait relation",
              "killed": "a process killed by the kernel's OOM killer"}


@dataclass
class RootCluster:
    """The answer: root processes, the wait chain, what it rests on, and why."""

    kind: str                               # the failure kind the roots were found from ("none" without errors)
    roots: list[RankProcess]
    chain: list[str]                        # names along the wait chain, the root last (a cycle repeats its entry)
    cycle: bool = False
    rule: str = ""                          # which rule decided (in words)
    edges: list[tuple[str, str, LineRef]] = field(default_factory=list)   # waiter -> waited-for, the line
    dead_ends: list[dict[str, Any]] = field(default_factory=list)         # remotes that resolve to no process
    error_devices: list[RankProcess] = field(default_factory=list)
    other_roots: list[list[str]] = field(default_factory=list)            # lesser terminal groups
    notes: list[str] = field(default_factory=list)

    @property
    def evidence(self) -> list[LineRef]:
        """The lines behind the answer: the roots' first errors, then every edge's line, deduplicated."""
        out: list[LineRef] = []
        for p in self.roots:
            if p.first_error is not None:
                out.append(p.first_error)
        out += [ref for _a, _b, ref in self.edges]
        out += [d["ref"] for d in self.dead_ends if d.get("ref") is not None]
        seen: set[tuple[str | None, int]] = set()
        uniq = []
        for r in out:
            if (r.file, r.line) not in seen:
                seen.add((r.file, r.line))
                uniq.append(r)
        return uniq

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "what": KIND_WORDS.get(self.kind, self.kind), "rule": self.rule,
            "roots": [{"host": p.worker, "device": p.device, "chip": p.chip, "pid": p.pid, "name": p.name,
                       "server": p.server, "device_ip": p.device_ip, "ranks": {k: r for k, (r, _n) in p.ranks.items()}}
                      | ({"peer": True} if p.label else {}) for p in self.roots],
            "root": ", ".join(p.name for p in self.roots) or None,
            "chain": " -> ".join(self.chain), "chain_nodes": self.chain, "cycle": self.cycle,
            "waits": [{"waiter": a, "waits_for": b, "file": r.file, "line": r.line} for a, b, r in self.edges],
            "dead_ends": [{k: v for k, v in d.items() if k != "ref"} | (
                {"file": d["ref"].file, "line": d["ref"].line} if d.get("ref") else {}) for d in self.dead_ends],
            "error_devices": [p.name for p in self.error_devices], "other_roots": self.other_roots,
            "evidence_lines": [{"file": r.file, "line": r.line, "text": r.text[:300]} for r in self.evidence[:12]],
            "notes": self.notes,
        }


WORLD_GROUP = "hccl_world_group"
"""The world communicator's name (MindSpore's and HCCL's ``HCCL_WORLD_GROUP``), which a rank-table job's ``hcom init by
file`` line does not print (its communicator is ``identifier-NA``)."""


class _Index:
    """Ways a line names a device: its address, (server, device), (worker, device), rank of a communicator."""

    def __init__(self, procs: list[RankProcess]) -> None:
        self.by_ip = {p.device_ip: p for p in procs if p.device_ip}
        self.by_server = {(p.server, p.device): p for p in procs if p.server and p.device is not None}
        self.by_worker = {(p.worker, p.device): p for p in procs if p.device is not None}
        self.by_rank: dict[tuple[str, int], RankProcess] = {}
        self.size: dict[str, int] = {}
        for p in procs:
            for ident, (rank, n) in p.ranks.items():
                self.by_rank.setdefault((ident, rank), p)
                if n:
                    self.size[ident] = max(self.size.get(ident, 0), n)
        self.servers = {p.server for p in procs if p.server}
        self.groups = {ident for ident, _rank in self.by_rank}

    def group_of(self, e: RankError, p: RankProcess) -> str | None:
        """The communicator a line of ``p`` names: as written, unless it is the world group (:data:`WORLD_GROUP`),
        which no process of the input registered by that name, and ``p`` has one communicator, which it is: a
        rank-table job, whose ``hcom init by file`` line names no identifier (``identifier-NA``; session 60,
        probe60b: every wait of such a job was a dead end, and the first waiter's remote the root)."""
        if e.group == WORLD_GROUP and e.group not in self.groups and len(p.ranks) == 1:
            return next(iter(p.ranks))
        return e.group  # (another name no process registered, a sub-group MindSpore created: not known, review60)

    def biggest(self) -> str | None:
        """The communicator with the most ranks (socket errors name none; ascend-fd places them there)."""
        return max(self.size, key=lambda k: (self.size[k], k)) if self.size else None

    def members(self, ident: str | None) -> list[RankProcess]:
        return [p for (i, _r), p in self.by_rank.items() if i == ident]


def _target(e: RankError, p: RankProcess, ix: _Index) -> RankProcess | None:
    if e.kind in ("socket", "cqe") and e.remote_ip:
        if (t := ix.by_ip.get(e.remote_ip)) is not None or e.remote_rank is None:
            return t
        # a link row's address no process has, with the remote's rank: that rank in the communicator the row names
        # this process in (HCCL prints both ranks in the communicator's numbering, the remote's and its own:
        # hccl_socket_manager.cc PrintSocketsInfo, dstRankToUserRank and userRank_); none where no communicator of
        # this process has it at that rank (the row's communicator is not known: no guess)
        return next((t for ident, (rank, _n) in p.ranks.items() if e.local_rank in (None, rank)
                     and (t := ix.by_rank.get((ident, e.remote_rank))) is not None), None)
    if e.kind == "socket" and e.remote_device is not None:
        return ix.by_worker.get((p.worker, e.remote_device))
    if e.kind in ("transport", "cluster") and e.remote_ip and e.remote_device is not None:
        return ix.by_server.get((e.remote_ip, e.remote_device))
    if e.kind in ("notify", "rootinfo"):
        if e.waits_on_self:
            return p
        if e.kind == "rootinfo" and e.group is None and len(p.ranks) > 1:
            return None  # which communicator's rank is not known (review41: not the first's)
        group = ix.group_of(e, p) or next(iter(p.ranks), None)
        if e.remote_rank is not None and group is not None:
            return ix.by_rank.get((group, e.remote_rank))
    return None


def _named_absent(errs: list[RankProcess], procs: Iterable[RankProcess] = ()
                  ) -> list[tuple[RankProcess, RankProcess, LineRef]]:
    """(reporter, named device, the line) for every exception-spreading line whose named device is no process of
    the input known by that server address and device (a pasted excerpt of one rank, logs not collected, or a
    process whose setup line, which gives its server, is missing): HCCL's heartbeat names where the exception
    occurred, so that device is the root even unseen. One stand-in process per named (server, device), on the host
    of ``procs`` with that server address when there is one (one host keeps one name in the chain)."""
    named: dict[tuple[str, int], RankProcess] = {}
    hosts = {p.server: p.worker for p in procs if p.server and p.worker}  # a server address the input names a host of
    out = []
    for p in errs:
        for e in p.errors:
            if e.kind != "cluster" or not e.remote_ip or e.remote_device is None:
                continue
            key = (e.remote_ip, e.remote_device)
            t = named.setdefault(key, RankProcess(worker=hosts.get(e.remote_ip, e.remote_ip), pid="",
                                                  server=e.remote_ip, phy_id=e.remote_device))
            out.append((p, t, e.ref))
    return out


def _remote_words(e: RankError) -> str | None:
    if e.remote_ip and e.remote_device is not None:
        return f"{e.remote_ip}/{e.remote_device}"
    if e.remote_ip:
        return e.remote_ip
    if e.remote_rank is not None:
        return f"rank {e.remote_rank}" + (f" of {e.group}" if e.group else "")
    if e.remote_device is not None:
        return f"device {e.remote_device}"
    return None


def _dead_end_why(e: RankError, ix: _Index) -> str:
    """Why a remote resolves to no process, in words (a remote that never came up is said so)."""
    if e.kind in ("transport", "cluster") and e.remote_ip in ix.servers:
        return "its host is in the bundle but no process ran on that device: the remote never came up"
    if e.kind in ("socket", "cqe") and e.remote_ip in ix.servers:
        return "the address is a host's server address, not a device's: the remote device is not resolved"
    if e.kind == "notify" and e.remote_rank is None and e.remote_ip:
        return "no process of that host is in the bundle: its logs are missing"
    if e.kind == "notify":
        return "no process of that rank is in the bundle: the remote rank never came up or its logs are missing"
    return "no process in the bundle has that address (its logs were not collected, or it never came up)"


def _absent(e: RankError, ix: _Index) -> bool:
    """Whether a dead end's remote is a peer whose logs are absent (not a host of the input whose device never
    came up, nor a host's server address named where a device's was meant)."""
    return not (e.remote_ip in ix.servers and e.kind in ("transport", "cluster", "socket", "cqe"))


def _when(p: RankProcess) -> float:
    return p.first_error_t if p.first_error_t is not None else float("inf")


def analyse(table: RankTable) -> RootCluster:
    """The root cluster of one job's processes (see the module docstring)."""
    procs = table.processes
    errs = sorted((p for p in procs if p.first_error is not None), key=_when)
    if not errs:
        return RootCluster("none", [], [], rule="no process logged an error", notes=list(table.notes))
    ix = _Index(procs)
    kinds = {e.kind for p in errs for e in p.errors}
    if "killed" in kinds:
        killed = [p for p in errs if any(e.kind == "killed" for e in p.errors)]
        edges = [(p.name, killed[0].name, p.first_error) for p in errs
                 if p.first_error is not None and all(p is not k for k in killed)]
        return RootCluster("killed", killed, [edges[0][0], edges[0][1]] if edges else [killed[0].name],
                           rule="the kernel's OOM killer ended this process (the pid of its plog); the others' "
                           "errors are their waits on it (HCCL's fault-diagnosis guide: a peer process that exited)",
                           edges=edges, error_devices=errs, notes=list(table.notes))
    if "cqe" in kinds:
        return _graph(errs, ix, "cqe", table)
    if "cluster" in kinds:
        named = [(p, t, e.ref) for p in errs for e in p.errors if e.kind == "cluster" and (t := _target(e, p, ix))]
        if named:
            roots = sorted({id(t): t for _p, t, _r in named}.values(), key=lambda p: (_when(p), p.name))
            edges = [(p.name, t.name, r) for p, t, r in named if p is not t]
            chain = [edges[0][0], edges[0][1]] if edges else [p.name for p in roots]
            return RootCluster("cluster", roots, chain, rule="HCCL's exception-spreading log names the root device",
                               edges=edges, error_devices=errs, notes=list(table.notes))
        absent = _named_absent(errs, procs)
        if absent:
            roots = list({id(t): t for _p, t, _r in absent}.values())
            return RootCluster("cluster", roots, [absent[0][0].name, absent[0][1].name],
                               rule="HCCL's exception-spreading log names the root device; no line of that device's "
                               "own is in the input", edges=[(p.name, t.name, r) for p, t, r in absent],
                               error_devices=errs, notes=list(table.notes))
    if any(e.kind == "transport" and e.remote_ip and e.remote_device is not None for p in errs for e in p.errors):
        return _graph(errs, ix, "transport", table)
    first = errs[0]
    waits = [e for e in first.errors if e.kind in WAIT_KINDS]
    if waits:
        kind = min(waits, key=lambda e: e.t).kind
        timed = _timing(errs, ix, kind, first)
        if timed is not None:
            timed.notes += table.notes
            return timed
        return _graph(errs, ix, kind, table)
    if "transport" in kinds:
        return _graph(errs, ix, "transport", table)
    if any(k in kinds for k in WAIT_KINDS):
        quiet = [p for p in errs if not any(e.kind in WAIT_KINDS for e in p.errors)]
        roots = quiet or [first]
        ending = [(e, p, t) for p in errs for e in p.errors
                  if e.kind in WAIT_KINDS and (t := _target(e, p, ix)) is not None and t in roots and t is not p]
        ending.sort(key=lambda w: w[0].t)
        edges = [(p.name, t.name, e.ref) for e, p, t in ending]
        # the others' waits ending at a suspect make it the root of that wait kind (ascend-fd: AI CPU notify wait,
        # code 109); with none, the suspects' own first error names the kind
        kind = ending[0][0].kind if ending else (first.errors[0].kind if first.errors else "error")
        if ending:  # ascend-fd (code 109) names the devices waited for, not every quiet erroring device
            waited = {id(t) for _e, _p, t in ending}
            roots = [p for p in roots if id(p) in waited]
        return RootCluster(kind, roots, list(edges[0][:2]) if edges else [],
                           rule="the first error is not a timeout: the devices that logged errors but no timeout "
                           "are the suspects" + ("; the others waited for these" if edges else ""),
                           edges=edges, error_devices=errs, notes=list(table.notes))
    return RootCluster(first.errors[0].kind if first.errors else "error", errs, [],
                       rule="no process logged a wait with a remote: the devices that logged errors are the "
                       "possible roots, earliest first", error_devices=errs, notes=list(table.notes))


def _timing(errs: list[RankProcess], ix: _Index, kind: str, first: RankProcess) -> RootCluster | None:
    """The timing rules of step 3, or None when they do not decide."""
    group = next((g for e in first.errors if e.kind == kind and (g := ix.group_of(e, first))), None) or ix.biggest()
    members = ix.members(group)
    if not members:
        return None
    reporters = [p for p in members if any(e.kind == kind for e in p.errors)]
    if not reporters:
        return None
    if kind == "notify":
        silent = [p for p in members if p not in reporters]
        if silent:
            return RootCluster(kind, sorted(silent, key=lambda p: p.name), [p.name for p in silent],
                               rule=f"{len(reporters)} devices of {group} timed out waiting; the ones that reported "
                               "no timeout are the roots", error_devices=errs)
    if len(reporters) < len(members):
        return None
    times = [min(e.t for e in p.errors if e.kind == kind) for p in reporters]
    spread = max(times) - min(times)
    env = "HCCL_EXEC_TIMEOUT" if kind == "notify" else "HCCL_CONNECT_TIMEOUT"
    limit = max((p.timeouts.get(env, 0) for p in members), default=0) or (
        EXEC_TIMEOUT_S if kind == "notify" else CONNECT_TIMEOUT_S)
    if spread > limit:
        last = reporters[times.index(max(times))]
        return RootCluster(kind, [last], [last.name], rule=f"every device of {group} reported the timeout, spread "
                           f"over {spread:.0f} s > {env} {limit} s: the last reporter came late", error_devices=errs)
    return None


def _graph(errs: list[RankProcess], ix: _Index, kind: str, table: RankTable) -> RootCluster:
    """Step 4: the wait graph of ``kind`` and its terminal groups."""
    succ: dict[str, list[str]] = {}
    edges: list[tuple[str, str, LineRef]] = []
    dead: list[dict[str, Any]] = []
    absent: set[str] = set()  # the waiters whose dead end is a peer whose logs are absent (:func:`_absent`)
    byname = {p.name: p for p in errs}
    for p in errs:
        # in time order: a device's first wait is its earliest (:func:`opsbrain.diagnosis.waitgraph.first_waits`),
        # whatever order its files (rotated plogs, an archive's members) were read in
        for e in sorted((x for x in p.errors if x.kind == kind), key=lambda x: x.t):
            t = _target(e, p, ix)
            if t is not None:
                byname.setdefault(t.name, t)
                if t.name not in succ.setdefault(p.name, []):
                    succ[p.name].append(t.name)
                    edges.append((p.name, t.name, e.ref))
            elif (words := _remote_words(e)) is not None and not any(d["waiter"] == p.name for d in dead) and not (
                    e.kind == "notify" and e.remote_rank is None and e.remote_ip in ix.servers):
                dead.append({"waiter": p.name, "remote": words, "ref": e.ref, "why": _dead_end_why(e, ix)})
                if _absent(e, ix):
                    absent.add(p.name)
    waiters = [p.name for p in errs if any(x.kind == kind for x in p.errors)]
    peer_wait = _peer_wait(errs, kind)
    if not edges and peer_wait and waiters and (absent or not dead):
        return _silent_peer(errs, byname, waiters, [d for d in dead if d["waiter"] in absent], kind, table, ix)
    if not edges:
        roots = [byname[d["waiter"]] for d in dead][:1] or [byname[w] for w in waiters] or errs
        chain = [roots[0].name, dead[0]["remote"]] if dead else []
        return RootCluster(kind, roots, chain,
                           rule=("the remote the erroring device waited for resolves to no process: the erroring "
                                 "device is the root" if dead else "no wait relation could be resolved"),
                           dead_ends=dead, error_devices=errs, notes=list(table.notes))
    nodes = list(dict.fromkeys(waiters + [b for _a, b, _r in edges]))
    comps = sccs(nodes, succ)
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    terminal = [i for i, c in enumerate(comps)
                if not any(comp_of[w] != i for v in c for w in succ.get(v, []))]
    reach: Counter[int] = Counter()
    for w in waiters:
        seen = {w}
        queue = [w]
        for v in queue:
            for x in succ.get(v, []):
                if x not in seen:
                    seen.add(x)
                    queue.append(x)
        for i in {comp_of[v] for v in seen} & set(terminal):
            reach[i] += 1

    def first_err(i: int) -> float:
        return min(_when(byname[v]) for v in comps[i])

    ranked = sorted(terminal, key=lambda i: (-reach[i], first_err(i)))
    top = comps[ranked[0]]
    cyc = len(top) > 1 or top[0] in succ.get(top[0], [])
    roots = sorted((byname[v] for v in top), key=lambda p: (_when(p), p.name))
    goal = set(top)
    walks = (first_waits(w, goal, succ) or wait_path(w, goal, succ) for w in waiters if w not in goal)
    paths = [pth for pth in walks if pth[-1] in goal]
    # the longest chain into the root (ties: the earliest waiter); every waiter in the cycle: its earliest member
    chain = max(paths, key=lambda pth: (len(pth), -_when(byname[pth[0]]))) if paths else [roots[0].name]
    if cyc:
        v = chain[-1]
        loop = path_in(v, goal, succ)
        chain = chain[:-1] + loop
    rule = {True: "devices waiting for each other (a cycle): the cycle is the root",
            False: "the end of the wait chain waits for nobody: it is the root"}[cyc and len(top) > 1]
    if cyc and len(top) == 1:
        rule = "a device waits on itself while others wait on it: it is the root"
    elif not cyc and peer_wait and top[0] in absent:
        d = next(d for d in dead if d["waiter"] == top[0])
        peer = _stand_in(d, byname, ix, table)
        rule = (f"the end of the wait chain, {top[0]}, waited for {peer.name}, whose logs are absent from the input: "
                "that peer is the root (its own logs hold the cause), the erroring device is the one that waited")
        roots, chain = [peer], chain + [peer.name]
    elif not cyc and any(d["waiter"] == top[0] for d in dead):
        rule = "the end of the wait chain waits for a remote that resolves to no process: it is the root"
        chain = chain + [next(d["remote"] for d in dead if d["waiter"] == top[0])]
    others = [[v for v in comps[i]] for i in ranked[1:]]
    notes = list(table.notes)
    best = reach[ranked[0]]
    for tied, said in ((True, f"reached by as many erroring devices ({best}), whose first error came later"),
                       (False, "reached by fewer erroring devices")):  # (a tie said as one: session 36)
        ends = [comps[i] for i in ranked[1:] if (reach[i] == best) == tied]
        if ends:
            notes.append(f"{len(ends)} other wait chain end(s), {said}: " + "; ".join(", ".join(o) for o in ends[:5]))
    return RootCluster(kind, roots, chain, cyc, rule, edges, dead, errs, others, notes)


PEER_WAITS = ("socket", "notify", "transport")
"""Timeouts of a device waiting for a peer (EI0006's link set-up, EI0002's notify wait, a transport's link set-up
to its remote): the HCCL guide's fault locating reads them as a wait on the remote end, whose own logs hold the
cause; the device that logged one waited."""


def _peer_wait(errs: list[RankProcess], kind: str) -> bool:
    """Whether ``kind`` is a wait on a peer (:data:`PEER_WAITS`); a root-info exchange timeout is one where a line
    names the ranks that never connected (EI0015: HCCL's fault-diagnosis guide has the root's list of them, or of
    the agents that did connect, name the ranks to look at next: :func:`opsbrain.ingest.rankerrors`)."""
    return kind in PEER_WAITS or (kind == "rootinfo" and any(
        e.kind == kind and e.remote_rank is not None for p in errs for e in p.errors))


def _stand_in(d: dict[str, Any], byname: dict[str, RankProcess], ix: _Index, table: RankTable) -> RankProcess:
    """The absent peer a dead end names (its address, and its rank where the waiter's line gives one), a process
    without lines of its own; a rank alone, at the server and device a rank table of the input gives it
    (:func:`opsbrain.ingest.rankhosts.rank_in_table`; before, the root's host was ``rank 10 of <group>``)."""
    waiter = byname[d["waiter"]]
    e = next((x for x in waiter.errors if x.ref is d["ref"]), None)
    if e is not None and e.kind == "transport" and e.remote_ip and e.remote_device is not None:
        # a server address and a device: that host's device, as the chain names a device of the input
        return RankProcess(worker=e.remote_ip, pid="", server=e.remote_ip, phy_id=e.remote_device,
                           label=f"{e.remote_ip} device {e.remote_device}")
    if e is not None and not e.remote_ip and e.remote_rank is not None and table.listed:
        from opsbrain.ingest.rankhosts import rank_in_table

        group = ix.group_of(e, waiter)
        # the rank of a communicator of the table's size, or a global rank (torch_npu's RankID); a sub-group's rank
        # (a name no process registered) is no rank_id of the table (review60)
        known = group in ix.size or group in (CONSOLE_GROUP, WORLD_GROUP)
        if known and (at := rank_in_table(e.remote_rank, table.listed, ix.size.get(group or ""))) is not None:
            server, device, _file = at
            return RankProcess(worker=server, pid="", server=server, phy_id=device,
                               label=f"{server} device {device} (rank {e.remote_rank})")
    rank = f" (rank {e.remote_rank})" if e is not None and e.remote_ip and e.remote_rank is not None else ""
    # a rank no table places: no host (the label names it; before, "rank 14 of <group>" stood as the root host)
    return RankProcess(worker=d["remote"] if e is None or e.remote_ip else "", pid="", label=d["remote"] + rank)


def _silent_peer(errs: list[RankProcess], byname: dict[str, RankProcess], waiters: list[str],
                 dead: list[dict[str, Any]], kind: str, table: RankTable, ix: _Index) -> RootCluster:
    """A peer wait whose remote no process of the input is: the peer its line names (a link table's dest_ip and
    rank, a notify wait's remote rank) is the root, a stand-in without lines of its own; where no line names it,
    no root (the peer is unknown), and the rule says the erroring device is the one that waited."""
    if dead:
        d = dead[0]
        peer = _stand_in(d, byname, ix, table)
        return RootCluster(kind, [peer], [d["waiter"], peer.name],
                           rule=(f"{d['waiter']} waited for {peer.name}, which did not answer; no process of the "
                                 "input is that peer (its logs are absent): the peer is the root (its own logs "
                                 "hold the cause), the erroring device is the one that waited"),
                           dead_ends=dead, error_devices=errs, notes=list(table.notes))
    who = ", ".join(waiters[:3]) + (f" and {len(waiters) - 3} more" if len(waiters) > 3 else "")
    return RootCluster(kind, [], [],
                       rule=(f"{who} waited for a peer that did not answer, and no line names the peer: the root is "
                             "that unknown peer, not the erroring device, which is the one that waited (collect the "
                             "other ranks' logs)"),
                       error_devices=[byname[w] for w in waiters] or errs, notes=list(table.notes))


