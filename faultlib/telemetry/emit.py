"""Semantic emitters used by fault models: each call renders one log line in its real format.

Fault models say *what* happened (a device event with a code, a switch alarm, a plog error); the renderers in
:mod:`faultlib.telemetry.formats` decide how the line looks, and the origin is the component whose log file
would hold it (an operator's bundle tells that much).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.health import Health
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.devicelines import RESUMED_EVENTS

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.state import PlantState
    from faultlib.topology import Link


class Emitter:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.hub = sim.telemetry

    def _pid(self, npu: str) -> tuple[int, int]:
        return fmt.pid_of(npu), fmt.pid_of(npu) + 1

    def _runs_process(self, npu: str) -> bool:
        """Whether a workload process runs on ``npu``'s node: a plog file is written by a CANN process, so an NPU
        no job or service uses has none to write an error into."""
        node = ids.node_of(npu) or npu
        return any(node in w.nodes for w in self.sim.workloads.values())

    def boot(self, part: str) -> tuple[float, float]:
        """When the OS that stamps ``part``'s lines last booted (simulated s; before the run: ``-boot_lead_s``) and
        its uptime then. A host's kernel (a node's lines) booted at its last return to service
        (``telemetry.boot_uptime_s`` then). A chip's device OS (a device event: the fault manager's stamp is the
        device kernel's ``local_clock``, hicann/driver@ef377e95 src/sdk_driver/fms/fms_define.h:65) booted with its
        host, or on its own since (a chip reset, a chip back from down, a new chip: ``telemetry.chip_boot_uptime_s``
        then; session 35)."""
        p, state = self.sim.params.telemetry, self.sim.state
        chip = state.chip_booted_at(part)
        if chip is not None:
            return chip, p.chip_boot_uptime_s
        back = state.booted_at(part)
        return (-p.boot_lead_s, 0.0) if back is None else (back, p.boot_uptime_s)

    def uptime_s(self, part: str) -> float:
        """The uptime the kernel of ``part``'s host, or the device OS of ``part``'s chip, stamps a line with: it
        counts from that OS's last boot (:meth:`boot`)."""
        at, up = self.boot(part)
        return self.sim.now - at + up

    def device_event(self, npu: str, code: str, recovered: bool = False, part: str | None = None) -> bool:
        """A device (NPU OS) fault event as the device's fault manager logs it (``event_id=0x<code>; ...``,
        :func:`~faultlib.telemetry.formats.device_os_event`), in the NPU's device log, at the EVENT level the line
        states; numbered as the driver numbers it since the device OS booted (:meth:`TelemetryHub.event_serials`:
        each occurrence a new event serial, a resume its occurrence's serial and raised time, every line the next
        notify serial; session 35). A down chip (:meth:`~faultlib.state.PlantState.device_down`) writes nothing,
        nor does a resume of an event its device OS has not raised since it booted, nor (session 35, events35) an
        occurrence of an event it raised since and has not resumed: the driver reports an event once until it
        resumes. Whether the device reported the event (the driver hands only a reported event on, to the device
        plugin among others: hicann/driver@ef377e95 dms_event.c:1456-1464). ``part``: the die (or a die's RoCE port)
        the event is of, whose A3 logical device reports it (session 37: ``device_id`` is that die's logical id,
        :func:`~faultlib.telemetry.formats.device_index`); by default the NPU's die 0."""
        if self.sim.state.device_down(npu):
            return False
        at, up = self.boot(npu)
        key = fmt.norm_code(code)
        once = key not in RESUMED_EVENTS  # an event the twin never resumes is a one-time event
        dev = fmt.device_index(part or npu)
        serials = self.hub.event_serials(part or npu, key, since=at, resume=recovered, once=once)
        if serials is None:
            return False
        line = fmt.device_os_event(self.sim.wallclock(), dev, code, assertion=not recovered,
                                   uptime_s=self.sim.now - at + up, serial=serials[0], notify=serials[1],
                                   raised=self.sim.wallclock(serials[2]), once=once and not recovered)
        self.hub.log(npu, "device_os", "EVENT", line)
        return True

    def plugin(self, npu: str, code: str, handling: str) -> None:
        """The node's device plugin logging the fault event it received for the code (its DCMI fault callback; the
        MindCluster handling level sets the event's severity). The plugin takes the event at its next poll of the
        device (``delivery.device_plugin_poll_s``, uniform phase) and writes the line then, stamped with the poll's
        time; the event's own AlarmRaisedTime is the fault's."""
        if self.sim.state.device_down(npu):  # a down chip raises no event for the plugin to receive
            return
        node = ids.node_of(npu) or npu
        raised = self.sim.wallclock()

        def write() -> None:
            line = fmt.device_plugin_fault(self.sim.wallclock(), fmt.device_index(npu), code, handling, raised=raised)
            self.hub.log(node, "device_plugin", "INFO", line)

        wait = self.sim.durations.phase("delivery.device_plugin_poll_s", self.sim.params.delivery.device_plugin_poll_s)
        if wait <= 0:
            write()
            return
        self.sim.env.timeout(wait).callbacks.append(lambda _ev: write())

    def plugin_switch(self, node: str, alarm: str, fault_id: str, peer: str, handling: str, chip: int,
                      port: int = 0) -> None:
        """The node's device plugin relaying a switch fault tuple of one of its L1 chips."""
        line = fmt.device_plugin_switch_fault(self.sim.wallclock(), alarm, peer, port, handling, fault_id=fault_id,
                                              chip=chip)
        self.hub.log(node, "device_plugin", "WARN", line)

    def switch_alarm(self, switch: str, alarm: str, peer: str, port: int, active: bool = True,
                     fault_id: str = "na") -> None:
        line = fmt.switch_alarm(self.sim.wallclock(), fmt.hostname(switch), alarm, peer, port, active, fault_id)
        self.hub.log(switch, "switch", "WARN" if active else "INFO", line)

    def syslog(self, node: str, text: str, level: str = "ERROR") -> None:
        self.hub.log(node, "syslog", level, fmt.syslog(self.sim.wallclock(), fmt.hostname(node), text))

    def kernel(self, node: str, text: str, level: str = "ERROR") -> None:
        """A kernel line in the node's messages, with the uptime stamp the kernel prints."""
        line = fmt.syslog(self.sim.wallclock(), fmt.hostname(node), text, uptime_s=self.uptime_s(node))
        self.hub.log(node, "syslog", level, line)

    def heartbeat_lost(self, npu: str) -> None:
        """The host driver's ``Heartbeat lost!`` for a device that stopped beating (0x40F84E00)."""
        node = ids.node_of(npu) or npu
        self.kernel(node, fmt.driver_heartbeat_lost(fmt.device_index(npu), 1000 + int(self.sim.now) % 9000, 4))

    def plog_runtime(self, npu: str, code: int) -> None:
        """The runtime's error code in the plog of the process on ``npu`` (none when no process runs there)."""
        if not self._runs_process(npu):
            return
        pid, tid = self._pid(npu)
        line = fmt.plog_runtime_error(self.sim.wallclock(), pid, tid, code, fmt.device_index(npu))
        self.hub.log(ids.node_of(npu) or npu, "plog", "ERROR", line)

    def plog_notify_wait(self, npu: str, remote_node: str) -> None:
        """A peer's HCCL notify-wait timeout naming the node it waited for."""
        if not self._runs_process(npu):
            return
        pid, tid = self._pid(npu)
        line = fmt.plog_notify_wait(self.sim.wallclock(), pid, tid, fmt.host_ip(remote_node))
        self.hub.log(ids.node_of(npu) or npu, "plog", "ERROR", line)

    def plog_cqe(self, npu: str, peer_node: str) -> None:
        """HCCL's RDMA completion error on ``npu``'s process toward ``peer_node`` (retransmissions exceeded)."""
        if not self._runs_process(npu):
            return
        pid, tid = self._pid(npu)
        line = fmt.plog_cqe_error(self.sim.wallclock(), pid, tid, fmt.host_ip(peer_node))
        self.hub.log(ids.node_of(npu) or npu, "plog", "ERROR", line)

    def train(self, node: str, text: str, level: str = "ERROR", rank: int | None = None) -> None:
        self.hub.log(node, "train", level, fmt.train_line(self.sim.wallclock(), level, text, rank))

    def link_state(self, link_id: str, up: bool, l1_alive: bool = True, l2_alive: bool = True,
                   by: str | None = None) -> None:
        """What an L1-L2 link going down (or up) shows, whatever the cause: the L1 chip's uplink alarm toward the
        L2 chip, the L2 chip's port state, and the node's device plugin relaying the switch fault tuple. The same
        text for a background flap and for any fault; a dead end (a failed chip, a crashed node's board) logs
        nothing, so ``l1_alive`` / ``l2_alive`` say which ends can still write. ``by`` is the part whose change
        this is (default: the link itself): while another part holds the link down (:func:`held_down`) its ports
        do not change state, and nothing is printed (a port already down does not report down again, nor up while
        it stays down)."""
        lk = self.sim.topology.links[link_id]
        if held_down(self.sim.state, lk, link_id, by or link_id):
            return
        dt = self.sim.wallclock()
        l1_port, l2_port = ids.index(lk.b, "sw"), ids.index(lk.a, "node")
        l1_host, l2_host = fmt.hostname(lk.a), fmt.hostname(lk.b)
        if l1_alive:
            self.hub.log(lk.a, "switch", "INFO" if up else "WARN",
                         fmt.switch_alarm(dt, l1_host, "0x08520003", "L2", l1_port, active=not up))
        if l2_alive:
            self.hub.log(lk.b, "switch", "INFO" if up else "ERROR", fmt.switch_port_state(dt, l2_host, l2_port, up))
        node = lk.node or ids.node_of(lk.a) or lk.a
        if l1_alive:
            self.hub.log(node, "device_plugin", "WARN",  # the plugin logs a recovery at WARN too
                         fmt.device_plugin_switch_fault(dt, "0x08520003", "L2", l1_port, "NotHandle", recovered=up,
                                                        chip=ids.index(lk.a, "l1sw")))

    def back_in_service(self, part: str) -> None:
        """A part back in service whose uplinks went dark with it: a stopped host (rebooted, repaired or replaced:
        its board powered again) or a failed L1 chip (repaired or replaced). Its L1-L2 links train again, so each
        L2 chip logs its port toward it up (``linkDown_clear``), as it logged it down when the part went dark. The
        part's own ends print nothing: its L1 chips raised no alarm while unpowered or dead, so none is cleared,
        and the device plugin starts afresh with nothing to relay. A link another part still holds dark
        (:func:`held_down`: the link failed or shut, a chip dead, the host down) stays down and silent."""
        topo = self.sim.topology
        if topo.kind.get(part) == "node":
            links = [lid for plane in range(topo.params.l2_planes) for lid in topo.uplinks[(part, plane)]]
        else:
            links = [lid for lid in topo.links_of[part] if topo.links[lid].kind == "ub_optical"]
        for lid in links:
            self.link_state(lid, up=True, l1_alive=False, by=part)

    def hccn_link(self, port: str, up: bool) -> None:
        """A RoCE port's link change record as ``hccn_tool -link_stat`` shows it."""
        line = fmt.hccn_link_record(self.sim.wallclock(), fmt.roce_devid(port), up)
        self.hub.log(ids.node_of(port) or port, "hccn", "INFO" if up else "ERROR", line)


def held_down(state: PlantState, lk: Link, link_id: str, by: str) -> bool:
    """Whether a part other than ``by`` holds the link dark: the link itself out of service (failed, or shut by
    an operator), one of its chips failed or resetting, or its node's host stopped (its board unpowered) or coming
    back this instant (its ports not up yet: a part that fails as it returns leaves them down, unreported)."""
    if by != link_id and not state.is_up(link_id):
        return True
    if any(end != by and state.health(end) in DARK for end in (lk.a, lk.b)):
        return True
    node = lk.node or ids.node_of(lk.a)
    return node is not None and node != by and (state.host_down(node) or state.host_booting(node))


DARK = frozenset({Health.FAILED, Health.RESETTING})
"""Health states of a switch chip whose ports carry no light."""

