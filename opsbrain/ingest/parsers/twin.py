"""Lines whose host field names the twin's own parts (``pod0-node12-l1sw4``, ``pod0-l2plane4-sw07``): UB switch
alarms and port-state traps in the switches' log layout (Huawei VRP ``%%01IFNET/...linkDown`` traps and UB fault
tuples ``[0x08520003,na,L2,na]``, facts.md §3), which only make a component id when the switch host is known."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened
from opsbrain.ingest.where import TWIN_HOST

RE_SW_ALARM = screened(TWIN_HOST + r" UBSW/\d/ALARM: \w+ \[(0x[0-9a-f]{8}),(\w+),(\w+),(?:na)?\] (Assertion|Recovery) "
                         r"alarmID=\S+ port=UB0/0/(\d+)", re.I)
RE_PORT_STATE = screened(TWIN_HOST + r" %%01IFNET/\d/linkDown_(active|clear)\(l\): .*?ifName=UB0/0/(\d+), "
                           r"AdminStatus=\w+, OperStatus=(UP|DOWN)(?:, Reason=([^)]*))?")
LANES_ALARM = "0x00f10509"
"""UB switch port fault: lanes reduced (fault id 132332 to half, 132333 to a quarter; hicann/driver
src/custom/lqdrv/kernel/ioctl_comm_def.h, the switch-event table)."""


def l1_uplink(l1_host: str, port: int) -> str | None:
    """``pod0-node12-l1sw4`` + port k -> the link to L2 chip k of plane 4."""
    m = re.fullmatch(r"pod(\d+)-node(\d+)-l1sw(\d+)", l1_host)
    if not m:
        return None
    p, n, i = (int(x) for x in m.groups())
    return f"pod{p}/node{n}/l1sw{i}~pod{p}/l2plane{i}/sw{port:02d}"


def l2_downlink(l2_host: str, port: int) -> str | None:
    """``pod0-l2plane4-sw07`` + port n -> the link from node n's L1 chip 4."""
    m = re.fullmatch(r"pod(\d+)-l2plane(\d+)-sw(\d+)", l2_host)
    if not m:
        return None
    p, plane, k = (int(x) for x in m.groups())
    return f"pod{p}/node{port}/l1sw{plane}~pod{p}/l2plane{plane}/sw{k:02d}"


def _host_component(host: str) -> str:
    return host.replace("-", "/")


_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if ctx.host is None or not ctx.host.startswith("pod"):
        return False
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    if m := RE_SW_ALARM.search(ctx.text):
        sw_host, alarm, _fid, peer, state, port = m.groups()
        down = state.lower() == "assertion"
        comp = l1_uplink(sw_host, int(port)) if peer.upper() == "L2" else l2_downlink(sw_host, int(port))
        if alarm.lower() == LANES_ALARM:
            if down:
                ctx.add("sw:lanes", comp or _host_component(sw_host), 1)
            return True
        ctx.add("sw:down" if down else "sw:up", comp or _host_component(sw_host), 2 if down else 0)
        return True
    if m := RE_PORT_STATE.search(ctx.text):
        sw_host, _ev, port, oper, _reason = m.groups()
        comp = l2_downlink(sw_host, int(port)) if "l2plane" in sw_host else l1_uplink(sw_host, int(port))
        ctx.add("port:down" if oper == "DOWN" else "port:up", comp, 2 if oper == "DOWN" else 0)
        return True
    return False
