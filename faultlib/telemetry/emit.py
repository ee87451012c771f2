"""Semantic emitters used by fault models: each call renders one log line in its real format.

Fault models say *what* happened (a device event with a code, a switch alarm, a plog error); the renderers in
:mod:`faultlib.telemetry.formats` decide how the line looks, and the origin is the component whose log file
would hold it (an operator's bundle tells that much).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.telemetry import formats as fmt

if TYPE_CHECKING:
    from faultlib.engine import Simulation


class Emitter:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.hub = sim.telemetry

    def device_event(self, npu: str, code: str, text: str | None = None, level: str | None = None,
                     recovered: bool = False) -> None:
        """A device (NPU OS) fault event carrying ``event_id=0x<code>``, in the NPU's device log."""
        line = fmt.device_os_event(self.sim.wallclock(), fmt.device_index(npu), code, text,
                                   assertion=not recovered, level=level)
        self.hub.log(npu, "device_os", line.split("]", 1)[0].lstrip("["), line)

    def plugin(self, npu: str, code: str, handling: str) -> None:
        """The node's device plugin reporting the code with its MindCluster handling level."""
        line = fmt.device_plugin_fault(self.sim.wallclock(), fmt.device_index(npu), code, handling)
        self.hub.log(ids.node_of(npu) or npu, "device_plugin", "WARN", line)

    def node_agent(self, node: str, text: str, level: str = "ERROR") -> None:
        line = fmt.device_plugin(self.sim.wallclock(), level, text, where="nodeagent/heartbeat.go:96")
        self.hub.log(node, "device_plugin", level, line)

    def switch_alarm(self, switch: str, alarm: str, peer: str, port: int, text: str = "",
                     active: bool = True) -> None:
        line = fmt.switch_alarm(self.sim.wallclock(), fmt.hostname(switch), alarm, peer, port, active, text)
        self.hub.log(switch, "switch", "WARN" if active else "INFO", line)

    def port_state(self, switch: str, port: int, up: bool, reason: str = "") -> None:
        line = fmt.switch_port_state(self.sim.wallclock(), fmt.hostname(switch), port, up, reason)
        self.hub.log(switch, "switch", "INFO" if up else "ERROR", line)

    def syslog(self, node: str, text: str, level: str = "ERROR") -> None:
        self.hub.log(node, "syslog", level, fmt.syslog(self.sim.wallclock(), fmt.hostname(node), text))

    def plog_runtime(self, npu: str, code: int, detail: str = "") -> None:
        line = fmt.plog_runtime_error(self.sim.wallclock(), fmt.pid_of(npu), fmt.pid_of(npu) + 1,
                                      code, fmt.device_index(npu), detail)
        self.hub.log(ids.node_of(npu) or npu, "plog", "ERROR", line)

    def plog_hccl(self, npu: str, code: str, detail: str = "", remote: str | None = None) -> None:
        line = fmt.plog_hccl_error(self.sim.wallclock(), fmt.pid_of(npu), fmt.pid_of(npu) + 1, code, detail,
                                   device=fmt.device_index(npu), remote=remote)
        self.hub.log(ids.node_of(npu) or npu, "plog", "ERROR", line)

    def train(self, node: str, text: str, level: str = "ERROR", rank: int | None = None) -> None:
        self.hub.log(node, "train", level, fmt.train_line(self.sim.wallclock(), level, text, rank))

    def link_state(self, link_id: str, up: bool, reason: str = "") -> None:
        """What an L1-L2 link going down (or up) shows, whatever the cause: the L1 chip's uplink alarm toward the
        L2 chip, the L2 chip's port state, and the node's device plugin relaying the switch fault code."""
        lk = self.sim.topology.links[link_id]
        dt = self.sim.wallclock()
        l1_port, l2_port = ids.index(lk.b, "sw"), ids.index(lk.a, "node")
        l1_host, l2_host = fmt.hostname(lk.a), fmt.hostname(lk.b)
        why = f" {reason}" if reason and not up else ""
        self.hub.log(lk.a, "switch", "INFO" if up else "WARN",
                     fmt.switch_alarm(dt, l1_host, "0x08520003", "L2", l1_port, active=not up,
                                      text=f"peer={l2_host}" + ("" if up else " uplink port link down" + why)))
        self.hub.log(lk.b, "switch", "INFO" if up else "ERROR",
                     fmt.switch_port_state(dt, l2_host, l2_port, up, "" if up else "PHY link down"))
        node = lk.node or ids.node_of(lk.a) or lk.a
        self.hub.log(node, "device_plugin", "INFO" if up else "WARN",
                     fmt.device_plugin_switch_fault(dt, "0x08520003", "L2", l1_port, "NotHandle", recovered=up))

    def hccn_link(self, port: str, up: bool) -> None:
        """A RoCE port's link change record as ``hccn_tool -link_stat`` shows it."""
        line = fmt.hccn_link_record(self.sim.wallclock(), fmt.roce_devid(port), up)
        self.hub.log(ids.node_of(port) or port, "hccn", "INFO" if up else "ERROR", line)
