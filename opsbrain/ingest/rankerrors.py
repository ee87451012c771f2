"""The error half of :class:`opsbrain.ingest.ranks.RankCollector`: what each process's HCCL error lines say it
waited for (socket, transport, notify, CQE, root info, cluster, FFTS+ and plain failures; the kinds are described in
:mod:`opsbrain.ingest.ranks`' docstring), kept per process with the remote each one names. A mixin: the collector
owns the state and calls :meth:`RankErrorReading._error` for each error line of a known process."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from opsbrain.ingest.rankrecords import (
    NO_RANK,
    NORMAL_TEXTS,
    RE_AICPU_NOTIFY,
    RE_AICPU_OPDATA,
    RE_CLUSTER,
    RE_CONNECTED_LINE,
    RE_CONNECTED_TOTAL,
    RE_CQE,
    RE_CQE_IP,
    RE_EI0002_REMOTE,
    RE_EXC_TYPE,
    RE_GROUP,
    RE_LINK_ROW,
    RE_NEED_CONNECT,
    RE_P2P_REMOTE,
    RE_REMOTE_RANK,
    RE_TRANSPORT_REMOTE,
    RE_UNCONNECTED,
    ROOTINFO_AGENT,
    ROOTINFO_ROOT,
    SOCKET_TEXTS,
    TASK_EXCEPTION,
    UNCONNECTED_MAX,
    LineRef,
    RankError,
    RankProcess,
    _bracket,
    _int,
    _thread_key,
    bracket_address,
    connect_detect,
)
from opsbrain.lazyre import lazy_compile

RE_RANK_ID = lazy_compile(r"\[(\d{16})\]")


@dataclass
class ConnectedList:
    """The root's list of connected agents being read (:data:`RE_CONNECTED_LINE`): its line count, the size it
    needed (0: not printed), the first rank its lines have not yet accounted for (the ids come in ascending order:
    the ranks below the last id read are either in the list or a gap already named; session 41, review41: before,
    a set of every id read, and each line listed ``range(max id)`` again, unbounded for a 16-digit id), the last
    line index read, and whether every line came in order."""

    lines: int
    size: int = 0
    next: int = 0
    last: int = -1
    in_order: bool = True

    def gaps(self, ids: list[int], final: bool) -> Iterator[int]:
        """The ranks missing below ``ids`` (one line's, ascending) and, on the list's last line, below the size;
        lazily, so that a reader that stops early (:data:`UNCONNECTED_MAX`) walks no further."""
        for i in sorted(ids):
            if i >= self.next:
                lo, self.next = self.next, i + 1
                yield from range(lo, i)
        if final and self.size > self.next:
            lo, self.next = self.next, self.size
            yield from range(lo, self.size)


class RankErrorReading:
    """Reads a process's error lines into its :class:`RankError` records (mixed into the collector)."""

    _pending_notify: dict[tuple[str, str], dict[str, object]]
    _pending_aicpu: dict[tuple[str, str, str | None], tuple[float, LineRef, int]]
    _pending_connect: dict[tuple[str, str], ConnectedList]
    _unconnected_named: dict[tuple[str, str], set[int]]
    _ungrouped: dict[tuple[str, str], list[int]]

    # ---- errors -----------------------------------------------------------------------------------------------
    def _error(self, p: RankProcess, key: tuple[str, str], body: str, t: float, ref: LineRef) -> None:
        add = p.errors.append
        if "HcclCommInitRootInfo failed" in body and (ident := _bracket(body, "identifier")) is not None:
            self._rootinfo_group(p, key, ident)
        if self._pending_aicpu and "opData information is" not in body:
            # an AI CPU base line's communicator is on its thread's very next error line only
            self._pending_aicpu.pop(_thread_key(key, body), None)
        if m := RE_CQE.search(body):
            if m.group(1) == "12":
                ip = RE_CQE_IP.search(body)
                add(RankError("cqe", t, ref, remote_ip=ip.group(1) if ip else None))
            return
        if m := RE_CLUSTER.search(body):
            exc = RE_EXC_TYPE.search(body)
            add(RankError("cluster", t, ref, remote_ip=m.group(1), remote_device=int(m.group(2)),
                          detail=exc.group(1) if exc else None))
            return
        if self._unconnected(p, key, body, t, ref):
            return
        if any(k in body for k in ROOTINFO_ROOT) or any(k in body for k in ROOTINFO_AGENT):
            add(RankError("rootinfo", t, ref, detail="root" if any(k in body for k in ROOTINFO_ROOT) else "agent",
                          group=_bracket(body, "identifier")))
            return
        if any(k in body for k in TASK_EXCEPTION):
            self._notify(p, key, body, t, ref)
            return
        if m := RE_EI0002_REMOTE.search(body):
            self._ei0002(p, int(m.group(1)), t, ref)
            return
        if "information is " in body and self._aicpu_notify(p, key, body, t, ref):
            return
        if "Transport init error" in body:
            m = RE_TRANSPORT_REMOTE.search(body)
            add(RankError("transport", t, ref, remote_ip=m.group(1) if m else None,
                          remote_device=int(m.group(2)) if m else None, tag=_bracket(body, "tag")))
            return
        if (dst := connect_detect(body)) is not None:
            add(RankError("transport", t, ref, remote_ip=dst[0], remote_device=dst[1], detail="connect detect"))
            return
        if m := RE_LINK_ROW.search(body):
            dest, dest_rank, _src, src_rank, _role, status = m.groups()
            if status.strip().lower() in ("no connect", "time out", "timeout"):
                add(RankError("socket", t, ref, remote_ip=dest, remote_rank=int(dest_rank), local_rank=int(src_rank)))
            return
        if "connected p2p timeout" in body and (m := RE_P2P_REMOTE.search(body)):
            add(RankError("socket", t, ref, remote_device=int(m.group(1)), detail="p2p"))
            return
        if any(k in body for k in SOCKET_TEXTS):
            add(RankError("socket", t, ref))
            return
        if "FFTS+ run failed" in body:
            add(RankError("ffts", t, ref))
            return
        if any(k in body for k in NORMAL_TEXTS):
            add(RankError("normal", t, ref))

    def _unconnected(self, p: RankProcess, key: tuple[str, str], body: str, t: float, ref: LineRef) -> bool:
        """The ranks a root-info exchange (EI0015) waited for in vain, each a ``rootinfo`` wait on that rank: the
        lists HCCL prints of them (:data:`RE_UNCONNECTED`), or those missing from the root's list of the agents that
        connected (:data:`RE_CONNECTED_LINE`; read only after its ``total connected num`` head and while its lines
        come in order, the size's tail only with ``need connect rankNum``). Whether the line was one of these."""
        if m := RE_UNCONNECTED.search(body):
            ranks = [int(x) for x in m.group(1).replace(" ", "").split(",") if x.isdigit() and len(x) <= 10]
            self._rootinfo_waits(p, key, t, ref, ranks, "agent" if "Failed to connect agent" in body else "root")
            return True
        hit = False
        st = self._pending_connect.get(key)
        if m := RE_CONNECTED_TOTAL.search(body):
            st = self._pending_connect[key] = ConnectedList(lines=int(m.group(2)))
            hit = True
        if st is None:
            return False
        if m := RE_NEED_CONNECT.search(body):
            st.size = int(m.group(1))
            hit = True
        if m := RE_CONNECTED_LINE.search(body):
            i = int(m.group(1))
            st.in_order = st.in_order and i == st.last + 1
            st.last = i
            if st.in_order:
                ids = [int(x) for x in RE_RANK_ID.findall(m.group(2))]
                self._rootinfo_waits(p, key, t, ref, st.gaps(ids, i == st.lines - 1), "root")
            hit = True
        return hit

    def _rootinfo_waits(self, p: RankProcess, key: tuple[str, str], t: float, ref: LineRef, ranks: Iterable[int],
                        detail: str) -> None:
        """Each rank of ``ranks`` not named yet a ``rootinfo`` wait of ``p``, up to :data:`UNCONNECTED_MAX` a process
        (the ranks named are kept per process: before, review41, each line rebuilt them from all its errors)."""
        have = self._unconnected_named.setdefault(key, set())
        for r in ranks:
            if len(have) >= UNCONNECTED_MAX:
                return
            if r not in have:
                have.add(r)
                self._ungrouped.setdefault(key, []).append(len(p.errors))
                p.errors.append(RankError("rootinfo", t, ref, remote_rank=r, detail=detail))

    def _rootinfo_group(self, p: RankProcess, key: tuple[str, str], ident: str) -> None:
        """The communicator of the unconnected ranks read so far: the init that failed next names it (``HcclComm
        InitRootInfo failed, ..., rootInfo identifier[...]``; ascend-fd closes its root-info record on that line
        too: pkg/parse/root_cluster/parser.py). Review41: before, a rank was looked up in the process's first
        communicator, a healthy world rank named root for a sub-communicator's missing rank."""
        for i in self._ungrouped.pop(key, []):
            if i < len(p.errors) and p.errors[i].kind == "rootinfo" and p.errors[i].group is None:
                p.errors[i] = replace(p.errors[i], group=ident)

    def _notify(self, p: RankProcess, key: tuple[str, str], body: str, t: float, ref: LineRef) -> None:
        """A notify-wait task exception spans lines (base information, para information, groupRank information):
        one event per tag, the numeric remote preferred over ``local``."""
        if "taskType[Notify Wait]" in body:
            self._pending_notify[key] = {"t": t, "ref": ref, "tag": _bracket(body, "tag"),
                                         "index": _int(_bracket(body, "index")), "rank": None, "local": False,
                                         "group": None, "server": bracket_address(body, "remote")}
            self._flush_notify(p, key)
            return
        ev = self._pending_notify.get(key)
        if ev is None:
            return
        if m := RE_REMOTE_RANK.search(body):
            if m.group(1) == "local":
                ev["local"] = ev["rank"] is None
            else:
                ev["rank"], ev["local"] = int(m.group(1)), False
        if m := RE_GROUP.search(body):
            ev["group"] = m.group(1)
        self._flush_notify(p, key)

    @staticmethod
    def _ei0002(p: RankProcess, rank: int, t: float, ref: LineRef) -> None:
        """EI0002's line names the remote: it completes the process's notify wait that has none, else is one."""
        for i, e in enumerate(p.errors):
            if e.kind == "notify" and (e.remote_rank == rank or e.remote_rank is None):
                if e.remote_rank is None and not e.waits_on_self:
                    p.errors[i] = replace(e, remote_rank=rank)
                return
        p.errors.append(RankError("notify", t, ref, remote_rank=rank))

    def _aicpu_notify(self, p: RankProcess, key: tuple[str, str], body: str, t: float, ref: LineRef) -> bool:
        """The AI CPU's notify-wait exception (:data:`RE_AICPU_NOTIFY`, then the communicator on its ``opData``
        line, the very next error line of the same thread: :meth:`_error` drops a base line any other line of its
        thread follows): one ``notify`` error per tag. Whether the line was one of the two."""
        if m := RE_AICPU_NOTIFY.search(body):
            if (rank := int(m.group(1))) != NO_RANK:
                self._pending_aicpu[_thread_key(key, body)] = (t, ref, rank)
            return True
        if (m := RE_AICPU_OPDATA.search(body)) is None:
            return False
        if (ev := self._pending_aicpu.pop(_thread_key(key, body), None)) is not None:
            tag = m.group(1)
            if not any(e.kind == "notify" and e.tag == tag for e in p.errors):
                p.errors.append(RankError("notify", ev[0], ev[1], remote_rank=ev[2], group=m.group(2), tag=tag))
        return True

    def _flush_notify(self, p: RankProcess, key: tuple[str, str]) -> None:
        ev = self._pending_notify[key]
        new = RankError("notify", float(ev["t"]), ev["ref"], remote_rank=ev["rank"],  # type: ignore[arg-type]
                        remote_ip=ev["server"],  # type: ignore[arg-type]
                        group=ev["group"], tag=ev["tag"], index=ev["index"],  # type: ignore[arg-type]
                        waits_on_self=bool(ev["local"]))
        for i, e in enumerate(p.errors):
            if e.kind == "notify" and e.tag == new.tag:
                p.errors[i] = new if (e.remote_rank is None or new.remote_rank is not None) else e
                return
        p.errors.append(new)
