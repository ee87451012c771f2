"""What every workload offers the simulation, the control API and the scorer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Literal

from faultlib.telemetry import formats as fmt

if TYPE_CHECKING:
    from faultlib.engine import Simulation


def reinit_comm(sim: Simulation, nodes: list[str]) -> None:
    """HCCL link set-up at a (re)start skips ports that are down: re-route the nodes whose inter-node path is
    dead (``fabric.reroute``). Both workloads start their communicators this way."""
    if len(nodes) < 2:
        return
    fab = sim.fabric
    for n in nodes:
        if sim.state.is_up(n) and fab.inter_node_factor(n) <= 0:
            fab.reroute(n)


def report_peer_waits(sim: Simulation, peers: list[str], waited: str) -> None:
    """Every rank on the ``peers`` nodes that shares the blocked collective prints its own HCCL notify-wait task
    exception in its own plog (one plog per process, named by its pid), naming the node it waited for: how many
    lines a stall prints grows with the job or instance it hits (HCCL's task exception callback runs in each
    process whose task timed out; CANN HCCL fault-diagnosis guide). Simplification: a rank of another pipeline
    stage, which waits on its neighbour stage, names the stalled node too."""
    ip, dt = fmt.host_ip(waited), sim.wallclock()  # every line at this moment
    for peer in peers:
        for npu in sim.topology.npus_of(peer):
            pid = fmt.pid_of(npu)
            sim.telemetry.log(peer, "plog", "ERROR", fmt.plog_notify_wait(dt, pid, pid + 1, ip))


class Workload(ABC):
    """A rate model placed on a set of nodes.

    The rate is re-derived only when the plant changes (``on_plant_change``), so cost grows with events.
    ``throughput_at(t)`` is the workload's service rate in its own unit (tokens/s, steps/s) over time;
    ``accounting()`` returns the figures a journal needs.
    """

    kind: Literal["training", "inference"]

    def __init__(self, name: str, nodes: list[str]) -> None:
        self.name = name
        self.sim: Simulation | None = None
        self.placements: list[tuple[float, frozenset[str]]] = []  # (since t, nodes): every placement it had
        self.nodes = list(nodes)

    @property
    def nodes(self) -> list[str]:
        """The nodes the workload runs on now; every assignment is kept in :attr:`placements`."""
        return self._nodes

    @nodes.setter
    def nodes(self, nodes: list[str]) -> None:
        self._nodes = list(nodes)
        t = self.sim.now if self.sim is not None else 0.0
        placed = frozenset(self._nodes)
        if self.placements and self.placements[-1][1] == placed:
            return
        if self.placements and self.placements[-1][0] == t:
            self.placements.pop()
        self.placements.append((t, placed))

    def attach(self, sim: Simulation) -> None:
        """Called once by :meth:`Simulation.add_workload`; start processes and subscribe here."""
        self.sim = sim
        sim.state.subscribe(self.on_plant_change)

    @abstractmethod
    def on_plant_change(self, component: str, old: str, new: str) -> None:
        """Re-derive the rate if ``component`` affects this workload."""

    @abstractmethod
    def throughput_at(self, t: float) -> float:
        """Service rate at simulated time ``t`` (piecewise history)."""

    @abstractmethod
    def accounting(self) -> dict[str, Any]:
        """Figures for the journal (ETTR, lost tokens, ...), as of now."""
