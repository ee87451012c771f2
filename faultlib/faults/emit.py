"""Semantic emitters used by fault models: each call renders one log line in its real format.

Fault models say *what* happened (a device event with a code, a switch alarm, a plog error); the renderers in
:mod:`faultlib.telemetry.formats` decide how the line looks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faultlib import ids

if TYPE_CHECKING:
    from faultlib.engine import Simulation


def hostname(node: str) -> str:
    return node.replace("/", "-")


def device_index(npu: str) -> int:
    return ids.index(npu, "npu")


class Emitter:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.hub = sim.telemetry

    def _ts(self) -> str:
        return self.sim.wallclock().strftime("%Y-%m-%d %H:%M:%S.%f")

    def device_event(self, npu: str, code: str, text: str, level: str = "ERROR") -> None:
        """A device (NPU OS) fault event carrying ``event_id=0x<code>``."""
        dev = device_index(npu)
        line = f"[{level}] {self._ts()} dev-os-{dev} fault_manager: event_id=0x{code.upper()}, {text}"
        self.hub.log(npu, "device_os", level, line)

    def plugin(self, npu: str, code: str, handling: str) -> None:
        node = ids.node_of(npu) or npu
        dev = device_index(npu)
        line = (f"{self._ts()} [WARN] device-plugin: device Ascend910-{dev} on {hostname(node)} reported fault "
                f"code 0x{code.upper()}, handling level {handling}")
        self.hub.log(node, "device_plugin", "WARN", line)

    def switch_alarm(self, switch: str, alarm: str, peer: str, port: int | str, text: str,
                     level: str = "ERROR") -> None:
        line = f"{self._ts()} {switch} UBSW [{level}] alarm [{alarm},na,{peer},{port}] {text}"
        self.hub.log(switch, "switch", level, line)

    def syslog(self, node: str, text: str, level: str = "ERROR") -> None:
        ts = self.sim.wallclock().strftime("%b %e %H:%M:%S")
        self.hub.log(node, "syslog", level, f"{ts} {hostname(node)} kernel: {text}")

    def plog(self, npu: str, code: str, text: str, module: str = "HCCL", level: str = "ERROR") -> None:
        node = ids.node_of(npu) or npu
        ts = self.sim.wallclock()
        stamp = ts.strftime("%Y-%m-%d-%H:%M:%S.") + f"{ts.microsecond // 1000:03d}.{ts.microsecond % 1000:03d}"
        pid = 10000 + device_index(npu)
        dev = device_index(npu)
        line = f"[{level}] {module}({pid},python):{stamp} [hccl_comm.cc:512][{pid}]{code}: {text} device[{dev}]"
        self.hub.log(node, "plog", level, line)

    def train(self, node: str, job: str, text: str, level: str = "ERROR") -> None:
        self.hub.log(node, "train", level, f"{self._ts()} [{level}] {job}: {text}")

    def hccn_link(self, npu: str, up: bool) -> None:
        ts = self.sim.wallclock().strftime("%a %b %d %H:%M:%S %Y")
        line = f"[devid {device_index(npu)}]    {ts}    LINK {'UP' if up else 'DOWN'}"
        self.hub.log(npu, "hccn", "INFO" if up else "ERROR", line)
