"""UB switch alarms and port-state traps in the switches' log layout (Huawei VRP ``%%01IFNET/...linkDown`` traps and
UB fault tuples ``[0x08520003,na,L2,na]``, facts.md §3). Lines whose host field names the twin's own parts
(``pod0-node12-l1sw4``, ``pod0-l2plane4-sw07``) make the twin's link ids; a real switch's lines, its port's link as
the switch names it (:func:`_real`)."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened
from opsbrain.ingest.where import TWIN_HOST
from opsbrain.lazyre import lazy_compile

RE_TWIN_HOST_FULL = lazy_compile(TWIN_HOST)

RE_SW_ALARM = screened(TWIN_HOST + r" UBSW/\d/ALARM: \w+ \[(0x[0-9a-f]{8}),(\w+),(\w+),(?:na)?\] (Assertion|Recovery) "
                         r"alarmID=\S+ port=UB0/0/(\d+)", re.I)
RE_PORT_STATE = screened(TWIN_HOST + r" %%01IFNET/\d/linkDown_(active|clear)\(l\): ?.*?ifName=UB0/0/(\d+), "
                           r"AdminStatus=\w+, OperStatus=(UP|DOWN)(?:, Reason=([^)]*))?")
RE_PORT_FAIL = screened(TWIN_HOST + r" %%01DEVM/\d/hwPortFail_active\(l\):CID=\w+-alarmID=(0x[0-9a-f]{8});.*?"
                          r"EntPhysicalName=UB0/0/(\d+),", re.I)
"""A port's lanes reduced in the switch OS's layout (session 45): ``%%01DEVM/1/hwPortFail_active(l):CID=0x80fc0101-
alarmID=0x00f10509;The port failed partially. (EntPhysicalIndex=..., EntPhysicalName=..., EntityTrapFaultID=...,
Reason=Port real lanes are less than quarter of the configured lanes.)`` (ascend-fd fixture
st_module_testcase/kg_parse/lcne_log)."""
_SWITCH_HOST = r"(?<![\w.-])(?:(?![A-Za-z])[\w.-])*+([A-Za-z][\w.-]*\w)"
"""A real switch's host field (the switch as its own log names it: ``gz-l2p2-sw05``, ``lcne-a07``): from the first
letter of a run of word characters, dots and dashes to the run's end. The match starts at the run's start (session
43): ``([A-Za-z][\\w.-]*\\w)`` alone was tried from every letter of a run and read to its end from each, 0.17 s on a
4 KB line of one run before a switch's line; the host read is the same (the run's end decides for all its letters)."""
RE_REAL_SW_ALARM = screened(_SWITCH_HOST + r" UBSW/\d/ALARM: \w+ \[(0x[0-9a-f]{8}),(\w+),(\w+),(?:na)?\] "
                            r"(Assertion|Recovery) alarmID=\S+ port=(UB\d+/\d+/\d+)", re.I)
RE_REAL_PORT_FAIL = screened(_SWITCH_HOST + r" %%01DEVM/\d/hwPortFail_active\(l\):CID=\w+-alarmID=(0x[0-9a-f]{8});.*?"
                             r"EntPhysicalName=(UB\d+/\d+/\d+),", re.I)
RE_REAL_PORT_STATE = screened(_SWITCH_HOST + r" %%01IFNET/\d/linkDown_(active|clear)\(l\): ?.*?ifName=(UB\d+/\d+/\d+), "
                              r"AdminStatus=\w+, OperStatus=(UP|DOWN)")
"""The same two lines from a real switch (any host name): the twin's chip-naming conventions do not apply, so the
link is the switch's port as the line names it, toward the peer level the fault tuple gives (``L2``) or an unnamed
peer: ``gz-l2p2-sw05/UB0/0/36~peer`` (tester BJ: a real bundle's link down gave no signal)."""
RE_IF_STATE = screened(r"^\s*([\w.:/-]*\d) current state\s*:\s*"
                       r"(UP|DOWN|ERROR DOWN\([\w-]+\))(?:\s|$)")
"""A Huawei switch's ``display interface`` head line (session 40): ``10GE1/0/1 current state : ERROR DOWN(link-flap)
(ifindex: 5)``. The field is the interface's physical state: ``UP``, ``DOWN``, ``Administratively DOWN`` (shut down
by a command) or ``ERROR DOWN(<cause>)`` (the switch's own protection shut it, the cause in parentheses: link-flap,
CRC errors and the like; https://support.huawei.com/enterprise/en/doc/EDOC1100086959, "Troubleshooting Interface
Down Problems"; an example of such output: https://cloud.tencent.cn/developer/article/1825155). A port ``DOWN``
or ``ERROR DOWN`` is the port's link down (``port:down``), on the port of the switch the line's host names
(``switch`` where the paste names none). ``Administratively DOWN`` (shut by a command) is no fault and not
read; nor is the line protocol's own state (``Line protocol current state``), which follows the physical one.
Session 42 (link42): ``ERROR DOWN(link-flap)`` is the port's flapping (:data:`FLAP_KIND`), not a down of its own."""
FLAP_CAUSE = "link-flap"
"""The Error-Down cause of a port its switch shut for flapping: the interface "frequently switches between Up and
Down states due to link flapping" (ERROR-DOWN/4/hwErrordown_active, its possible causes,
https://support.huawei.com/enterprise/en/doc/EDOC1100039602/d848f8b5/error-down-4-hwerrordown_active); in
``display interface``, ``ERROR DOWN(link-flap)`` says the switch found the port alternating between Up and Down
and shut it (https://support.huawei.com/enterprise/en/doc/EDOC1100086960, "Troubleshooting an Interface
Error-Down Event"; the CE default, five changes within 10 s:
https://forum.huawei.com/enterprise/en/why-does-the-interface-status-display-error-down-link-flap/thread/446913-861).
The port then stays down until it is brought back (or an auto-recovery interval passes), but its down is the
protection's act on the flapping, not a fault of its own: the line is told as the flap, as a LINK DOWN record that
re-locked within seconds is told as ``hccn:flap`` and not as a down (ingest/derive.py). Other causes
(``crc-statistics``, ``transceiver-power-low``, ...) stay a plain port down."""
FLAP_KIND = "tk:switch_port_flap"
"""The knowledge base's kind for a switch port found flapping (link_flap's primary signature; the FaultDiag
toolkit's finding of the same fact, whose kind it is named for): a kind says what was found, whoever found it, as
the toolkit's own readings take hccn_tool's kinds (parsers/fdtoolkit.py)."""
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


def _real(ctx: LineCtx) -> bool:
    """A real switch's alarm or port trap (:data:`RE_REAL_SW_ALARM`): its port's link, named as the switch names it,
    or below the host a bundle placed the switch in (``origin``: ``pod0/node4/l1sw2``, the chip of a collected host,
    whose id the bundle names back as the host's)."""
    if m := RE_REAL_SW_ALARM.search(ctx.text):
        sw_host, alarm, _fid, peer, state, port = m.groups()
        sw_host = _placed(ctx, sw_host)
        down = state.lower() == "assertion"
        comp = f"{sw_host}/{port}~{peer.upper() if peer.lower() != 'na' else 'peer'}"
        if alarm.lower() == LANES_ALARM:
            if down:
                ctx.add("sw:lanes", comp, 1)
            return True
        ctx.add("sw:down" if down else "sw:up", comp, 2 if down else 0)
        return True
    if m := RE_IF_STATE.search(ctx.text):
        ifname, state = m.groups()
        comp = f"{ctx.host or 'switch'}/{ifname}~peer"
        flapped = state == f"ERROR DOWN({FLAP_CAUSE})"  # its down is the protection's act on the flapping
        ctx.add(FLAP_KIND if flapped else "port:up" if state == "UP" else "port:down", comp, 0 if state == "UP" else 2)
        return True
    if m := RE_REAL_PORT_FAIL.search(ctx.text):
        sw_host, alarm, port = m.groups()
        if alarm.lower() == LANES_ALARM:
            ctx.add("sw:lanes", f"{_placed(ctx, sw_host)}/{port}~peer", 1)
        return True
    if m := RE_REAL_PORT_STATE.search(ctx.text):
        sw_host, _ev, port, oper = m.groups()
        sw_host = _placed(ctx, sw_host)
        ctx.add("port:down" if oper == "DOWN" else "port:up", f"{sw_host}/{port}~peer", 2 if oper == "DOWN" else 0)
        return True
    return False


def _placed(ctx: LineCtx, sw_host: str) -> str:
    return ctx.origin if ctx.origin and re.match(r"pod\d+/node\d+/", ctx.origin) else sw_host


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    real = ctx.twin is not None and not ctx.is_twin()  # (a real host's line on a twin-shaped id)
    if real or not (ctx.host or "").startswith("pod") or not RE_TWIN_HOST_FULL.fullmatch(ctx.host or ""):
        return _real(ctx)
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
        if "l2plane" in sw_host:
            ctx.add("port:down" if oper == "DOWN" else "port:up", l2_downlink(sw_host, int(port)),
                    2 if oper == "DOWN" else 0)
            return True
        # an L1 chip's uplink down is its linkDown alarm 0x08520003 toward L2 (the tuple its node's device plugin
        # relays as [0x08520003,na,L2,na]): the switch alarm's kinds, as the twin's former UBSW line gave
        comp = l1_uplink(sw_host, int(port)) or _host_component(sw_host)
        ctx.add("sw:down" if oper == "DOWN" else "sw:up", comp, 2 if oper == "DOWN" else 0)
        return True
    if m := RE_PORT_FAIL.search(ctx.text):
        sw_host, alarm, port = m.groups()
        if alarm.lower() == LANES_ALARM:
            ctx.add("sw:lanes", l1_uplink(sw_host, int(port)) or _host_component(sw_host), 1)
        return True
    return False
