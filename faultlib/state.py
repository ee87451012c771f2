"""Plant state: the health of every component and link, and the usable lanes of optical links.

Only components that are not HEALTHY are stored, so state costs memory per fault, not per component.
Every change is recorded in the trace and announced to listeners (workloads re-derive their rates).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

from faultlib import ids
from faultlib.health import DOWN, UP, Health, check_transition
from faultlib.topology import Topology
from faultlib.trace import Trace

Listener = Callable[[str, Health, Health], None]


class UnknownComponent(KeyError):
    """A component or link id that the topology does not have."""

    def __str__(self) -> str:
        return f"unknown component {self.args[0]!r}"


class PlantState:
    def __init__(self, topology: Topology, trace: Trace, clock: Callable[[], float]) -> None:
        self.topology = topology
        self._trace = trace
        self._clock = clock
        self._health: dict[str, Health] = {}
        self._health_view = MappingProxyType(self._health)
        self._lanes_down: dict[str, int] = {}
        self._listeners: list[Listener] = []
        self._hosts_down: set[str] = set()
        self._stops: dict[str, list[list[float]]] = {}  # node -> [stopped at, back at (inf: still stopped)], in order
        self._boots: dict[str, float] = {}  # node or chip -> when it last booted without its host stopping first
        self._dead: set[str] = set()  # chips whose device OS went down and has not run since (isolation keeps it)
        self._warm: dict[str, float] = {}  # node -> when its last reboot stopped it (its board stayed powered)
        self._held_down: dict[str, set[str]] = {}  # link -> the causes holding it down (a fault, a background flap)
        self.version = 0  # bumped on every change; caches key on it

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop announcing changes to ``listener`` (no error when it is not subscribed)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def health(self, cid: str) -> Health:
        return self._health.get(cid, Health.HEALTHY)

    def is_up(self, cid: str) -> bool:
        return self._health.get(cid, Health.HEALTHY) in UP

    def unhealthy(self) -> dict[str, Health]:
        return dict(self._health)

    @property
    def unhealthy_view(self) -> Mapping[str, Health]:
        """Read-only view of the components that are not healthy (absent = healthy); no copy, for hot paths."""
        return self._health_view

    def halt_host(self, node: str) -> None:
        """The host ``node`` stopped (a kernel panic, a power-off): it and every part on its board write no log line
        until it is back in service (:meth:`host_down`)."""
        if self.topology.kind.get(node) != "node":
            raise UnknownComponent(node)
        if node not in self._hosts_down:
            self._stops.setdefault(node, []).append([self._clock(), math.inf])
        self._hosts_down.add(node)

    def begin_reboot(self, node: str) -> None:
        """The host ``node`` goes down for a reboot now: from now until it is back (:meth:`end_reboot`) it and every
        part on its board write nothing and its exporters serve nothing, as for a stopped host (session 35). Its board
        stays powered, so its links stay up (:meth:`host_booting` is false when it is back). A host that has already
        stopped stays as it is."""
        if self.topology.kind.get(node) != "node":
            raise UnknownComponent(node)
        if node in self._hosts_down:
            return
        self.halt_host(node)
        self._warm[node] = self._clock()
        self.touch(node, "reboot", phase="down")

    def end_reboot(self, node: str) -> None:
        """The host ``node`` is back from a reboot now (a stop a crash began ends too): its kernel and its devices'
        OS booted (:meth:`mark_booted`)."""
        if node in self._hosts_down:
            self._hosts_down.discard(node)
            self._stops[node][-1][1] = self._clock()
            self.touch(node, "reboot", phase="up")
        self.mark_booted(node)

    def host_down(self, component: str) -> bool:
        """Whether the host ``component`` is on (the node itself, a chip, its device OS, an L1 chip of its board)
        has stopped and not come back: a reboot, repair or replacement that returns the node to HEALTHY brings it
        back. A hung host (soft lockup) has not stopped: its kernel still prints."""
        if not self._hosts_down:
            return False
        node = component if component in self._hosts_down else ids.node_of(component)
        return node in self._hosts_down

    def stopped_since(self, component: str, t: float) -> float | None:
        """When the host ``component`` is on (the node, a chip, an HBM stack: not a link) last stopped, if it was
        stopped at ``t`` (None: it ran at ``t``). Its exporters served nothing from then until it was back."""
        if not self._stops or "~" in component:
            return None
        spans = self._stops.get(component if component in self._stops else ids.node_of(component) or "")
        for t0, t1 in reversed(spans or ()):
            if t0 <= t < t1:
                return t0
            if t1 <= t:
                return None
        return None

    def booted_at(self, component: str) -> float | None:
        """When the host ``component`` is on (the node, a chip, its device OS) last came back in service after a
        stop (None: it has run since before the simulation began): its kernel and its devices'
        OS booted then, and their uptime counts from that boot."""
        node = component if self.topology.kind.get(component) == "node" else ids.node_of(component) or ""
        spans = self._stops.get(node)
        back = next((t1 for _t0, t1 in reversed(spans or ()) if t1 <= self._clock()), None)
        rebooted = self._boots.get(node)
        return back if rebooted is None or (back is not None and back >= rebooted) else rebooted

    def chip_booted_at(self, component: str) -> float | None:
        """When the device OS of the chip ``component`` is on (the chip, its HBM, a die) last booted on its own,
        after its host's last boot (a chip reset, a chip back from down, a new chip; None: it booted with its
        host, :meth:`booted_at`)."""
        npu = component if self.topology.kind.get(component) == "npu" else ids.npu_of(component)
        at = self._boots.get(npu) if npu else None
        if at is None:
            return None
        host = self.booted_at(npu or "")
        return at if host is None or at > host else None

    def mark_booted(self, part: str) -> None:
        """``part`` (a node's host, or a chip's device OS) booted now without its host having stopped in the twin
        (a reboot of a hung host, a replaced server or chip): its uptime and its devices' event numbering restart."""
        self._boots[part] = self._clock()

    def device_down(self, component: str) -> bool:
        """Whether the chip ``component`` is on (the chip, its HBM, a die) is down: failed (off the bus, crashed,
        overheated) or resetting, or its host stopped. A down chip's device OS runs nothing: it records no error
        and writes no line until it is back in service (:meth:`chip_dead`). An isolated or cordoned chip still
        runs, unless it was isolated while down (taking a dead chip out of service does not bring it back)."""
        npu = component if self.topology.kind.get(component) == "npu" else ids.npu_of(component)
        return self.host_down(component) or (npu is not None and npu in self._dead)

    def chip_dead(self, npu: str) -> bool:
        """Whether the chip ``npu``'s device OS went down (failed, resetting) and has not run since: until the chip
        is back in service (healthy, degraded or cordoned); an isolation meanwhile keeps it dead."""
        return npu in self._dead

    def host_booting(self, node: str) -> bool:
        """Whether the host ``node`` came back in service at this very instant from a stop that darkened its board
        (not a reboot's, :meth:`begin_reboot`): its board is powering on, and a port toward a part that is dead then
        never came up (a fault acting as the host returns)."""
        spans = self._stops.get(node) or [[math.nan, math.nan]]
        return spans[-1][1] == self._clock() and self._warm.get(node) != spans[-1][0]

    def stopped_nodes(self, t: float) -> dict[str, float]:
        """Every host stopped at ``t``, with the time it stopped."""
        out: dict[str, float] = {}
        for node, spans in self._stops.items():
            for t0, t1 in reversed(spans):
                if t0 <= t < t1:
                    out[node] = t0
                    break
                if t1 <= t:
                    break
        return out

    def hold_down(self, cid: str, cause: str) -> None:
        """``cause`` (a fault id, a background flap) holds ``cid`` down until it releases it (session 36: a flap's
        up brought back a link another fault had failed for good)."""
        self._held_down.setdefault(cid, set()).add(cause)

    def release_down(self, cid: str, cause: str) -> bool:
        """Release ``cause``'s hold on ``cid``; whether nothing holds it down any more (it may come back up)."""
        held = self._held_down.get(cid)
        if held is not None:
            held.discard(cause)
            if not held:
                del self._held_down[cid]
        return cid not in self._held_down

    def set_health(self, cid: str, new: Health, cause: str = "") -> None:
        if not self.topology.exists(cid):
            raise UnknownComponent(cid)
        old = self.health(cid)
        if old == new:
            return
        check_transition(cid, old, new)
        if new == Health.HEALTHY:
            self._health.pop(cid, None)
            self._held_down.pop(cid, None)  # back (repaired, restored, healed): no cause holds it down any more
            if cid in self._hosts_down:  # a host back in service has booted again
                self._hosts_down.discard(cid)
                self._stops[cid][-1][1] = self._clock()
        else:
            self._health[cid] = new
        if self.topology.kind.get(cid) == "npu":
            if new in DOWN:
                self._dead.add(cid)
            elif new in UP and cid in self._dead:  # back in service from down (isolated meanwhile or not)
                self._dead.discard(cid)
                self._boots[cid] = self._clock()  # a chip back from down has booted its device OS again
        self.version += 1
        self._trace.record(self._clock(), "health", cid, old=str(old), new=str(new), cause=cause)
        for fn in list(self._listeners):
            fn(cid, old, new)

    def touch(self, subject: str, kind: str, /, **detail: object) -> None:
        """Announce a change of plant state that is not a health change (routing, placement)."""
        self.version += 1
        self._trace.record(self._clock(), kind, subject, **detail)
        h = self.health(subject) if self.topology.exists(subject) else Health.HEALTHY
        for fn in list(self._listeners):
            fn(subject, h, h)

    def lanes_down(self, link_id: str) -> int:
        return self._lanes_down.get(link_id, 0)

    def set_lanes_down(self, link_id: str, n: int, cause: str = "") -> None:
        """Mark ``n`` lanes of a link as unusable (sub-healthy link runs on the rest)."""
        lk = self.topology.links.get(link_id)
        if lk is None:
            raise UnknownComponent(link_id)
        n = max(0, min(n, lk.lanes))
        if self.lanes_down(link_id) == n:
            return
        if n:
            self._lanes_down[link_id] = n
        else:
            self._lanes_down.pop(link_id, None)
        self.touch(link_id, "lanes", down=n, cause=cause)
