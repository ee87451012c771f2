"""Parse what operators see (log lines, job events) into typed signals.

The same parser serves the live simulation (records carry their origin component) and raw text pasted by an
operator (origins come from host names and device numbers inside the text). Any input gives signals or nothing:
never an exception. Signal kinds are short stable strings (``dev:80E01801``, ``hccl:EI0002``, ``rt:507053``,
``sw:down``, ``os:panic`` ...) that features count and rules match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_LINE = 4096  # characters of a line that are scanned; longer lines are cut (junk never costs more)

SEV = {"DEBUG": 0, "INFO": 0, "NOTICE": 0, "WARN": 1, "WARNING": 1, "ERROR": 2, "CRITICAL": 2, "FATAL": 2}


@dataclass(frozen=True, slots=True)
class Signal:
    t: float
    kind: str
    component: str | None  # the implicated component (NPU, link, node, switch chip, port), when known
    host: str | None       # the node or switch whose log held the line
    severity: int          # 0 info, 1 warning, 2 error
    text: str
    peer: str | None = None  # a remote node the line names (the peer a collective waited for)


_HOST = r"(pod\d+-node\d+(?:-l1sw\d+)?|pod\d+-l2plane\d+-sw\d+)"
RE_DEV_EVENT = re.compile(r"event_id=0x([0-9a-fA-F]{8}),\s*assertion=(occur|recover)", re.I)
RE_DEV_EVENT_BARE = re.compile(r"event[_ ]id[=:]\s*\[?0x([0-9a-fA-F]{8})", re.I)
RE_DEV_NUM = re.compile(r"\[dev(\d+)\]|dev_id=(\d+)|device\[(\d+)\]|device_id=(\d+)|Ascend910-(\d+)", re.I)
RE_PLUGIN = re.compile(r"device Ascend910-(\d+) fault (occurred|recovered), fault code \[([0-9A-Fa-f]{8})\], "
                       r"fault level (\w+)")
RE_PLUGIN_SW = re.compile(r"switch fault (occurred|recovered), fault code \[(0x[0-9a-f]{8}),(\w+),(\w+),na\], "
                          r"port UB0/0/(\d+)", re.I)
RE_SW_ALARM = re.compile(_HOST + r" UBSW/\d/ALARM: \w+ \[(0x[0-9a-f]{8}),(\w+),(\w+),na\] (Assertion|Recovery) "
                         r"alarmID=\S+ port=UB0/0/(\d+)", re.I)
RE_PORT_STATE = re.compile(_HOST + r" %%01IFNET/\d/linkDown_(active|clear)\(l\): .*?ifName=UB0/0/(\d+), "
                           r"AdminStatus=\w+, OperStatus=(UP|DOWN)(?:, Reason=([^)]*))?")
RE_SYSLOG_HOST = re.compile(r"^\w{3}\s+\d+ \d\d:\d\d:\d\d " + _HOST + r" ")
RE_ANY_HOST = re.compile(_HOST)
RE_RT = re.compile(r"(?:ErrCode=|error code is |retCode=0x[0-9a-f]+, ErrCode=|runtime result = )(50\d{4})", re.I)
RE_HCCL = re.compile(r"\b(E[IZEL]\d{4})\b")
RE_REMOTE = re.compile(r"remote\[(\d+)\.(\d+)\.(\d+)\.(\d+)\]")
RE_HCCN = re.compile(r"\[devid (\d+)\]\s+\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s+LINK (UP|DOWN)")
RE_NODE_HB = re.compile(r"node (" + _HOST + r") heartbeat lost(, devices reported up)?")
RE_DEV_HB = re.compile(r"device Ascend910-(\d+) heartbeat lost")
RE_L1_CHIP = re.compile(r"ub switch chip l1sw(\d+) not responding")
RE_LANES = re.compile(r"lanes degraded, (\d+)/(\d+) lanes up")
RE_DIE = re.compile(r"\bdie (\d+)\b")

SYSLOG_KINDS = [
    (re.compile(r"Kernel panic", re.I), "os:panic"),
    (re.compile(r"soft lockup|hung_task|blocked for more than", re.I), "os:lockup"),
    (re.compile(r"PCIe Bus Error.*(Fatal|Uncorrected)|pcie.*link down", re.I), "os:pcie_fatal"),
    (re.compile(r"qingtian|vpc interface .* link down|dpu card", re.I), "os:vpc_down"),
    (re.compile(r"nfs: server .* not responding|storage .* timed out", re.I), "os:storage"),
]
TEXT_KINDS = [
    (re.compile(r"loss is nan|nan loss|grad(ient)? norm is inf", re.I), "train:nan"),
    (re.compile(r"dataloader: read from storage timed out", re.I), "train:storage"),
]


def _node_of_host(host: str | None) -> str | None:
    if not host:
        return None
    parts = host.split("-")
    if len(parts) >= 2 and parts[1].startswith("node"):
        return f"{parts[0]}/{parts[1]}"
    return None


def _host_component(host: str) -> str:
    return host.replace("-", "/")


def _npu(host_node: str | None, dev: int | None) -> str | None:
    return f"{host_node}/npu{dev}" if host_node and dev is not None else None


def _dev(text: str) -> int | None:
    m = RE_DEV_NUM.search(text)
    if not m:
        return None
    return int(next(g for g in m.groups() if g is not None))


def _l1_uplink(l1_host: str, port: int) -> str | None:
    """``pod0-node12-l1sw4`` + port k -> the link to L2 chip k of plane 4."""
    m = re.fullmatch(r"pod(\d+)-node(\d+)-l1sw(\d+)", l1_host)
    if not m:
        return None
    p, n, i = (int(x) for x in m.groups())
    return f"pod{p}/node{n}/l1sw{i}~pod{p}/l2plane{i}/sw{port:02d}"


def _l2_downlink(l2_host: str, port: int) -> str | None:
    """``pod0-l2plane4-sw07`` + port n -> the link from node n's L1 chip 4."""
    m = re.fullmatch(r"pod(\d+)-l2plane(\d+)-sw(\d+)", l2_host)
    if not m:
        return None
    p, plane, k = (int(x) for x in m.groups())
    return f"pod{p}/node{port}/l1sw{plane}~pod{p}/l2plane{plane}/sw{k:02d}"


def parse_line(text: str, t: float = 0.0, origin: str | None = None, source: str | None = None,
               level: str | None = None) -> list[Signal]:
    """Signals in one log line. ``origin`` (a component id) is used when the line does not name its host."""
    if not isinstance(text, str):
        return []
    text = text[:MAX_LINE]
    sev = SEV.get((level or "").upper(), 1)
    host_node = _node_of_host(m.group(1)) if (m := RE_ANY_HOST.search(text)) else None
    if origin and not host_node:
        host_node = origin if re.fullmatch(r"pod\d+/node\d+", origin) else None
        if host_node is None and (mm := re.match(r"(pod\d+/node\d+)/", origin)):
            host_node = mm.group(1)
    host = origin or host_node
    out: list[Signal] = []

    def add(kind: str, comp: str | None, s: int = sev, peer: str | None = None) -> None:
        out.append(Signal(t, kind, comp, host, s, text, peer))

    if m := RE_DEV_EVENT.search(text):
        code, state = m.group(1).upper(), m.group(2).lower()
        comp = _npu(host_node, _dev(text))
        if comp and (d := RE_DIE.search(text)):
            comp = f"{comp}/die{d.group(1)}"
        add(f"dev:{code}" + (":recover" if state == "recover" else ""), comp)
        return out
    if m := RE_PLUGIN.search(text):
        dev, state, code, lvl = int(m.group(1)), m.group(2), m.group(3).upper(), m.group(4)
        add(f"plugin:{code}" + (":recover" if state == "recovered" else ""), _npu(host_node, dev))
        add(f"level:{lvl}", _npu(host_node, dev), 0)
        return out
    if m := RE_SW_ALARM.search(text):
        sw_host, alarm, _fid, peer, state, port = m.groups()
        down = state.lower() == "assertion"
        comp = _l1_uplink(sw_host, int(port)) if peer.upper() == "L2" else _l2_downlink(sw_host, int(port))
        add("sw:down" if down else "sw:up", comp or _host_component(sw_host), 2 if down else 0)
        return out
    if m := RE_PORT_STATE.search(text):
        sw_host, _ev, port, oper, reason = m.groups()
        comp = _l2_downlink(sw_host, int(port)) if "l2plane" in sw_host else _l1_uplink(sw_host, int(port))
        if reason and RE_LANES.search(reason):
            add("sw:lanes", comp, 1)
        else:
            add("port:down" if oper == "DOWN" else "port:up", comp, 2 if oper == "DOWN" else 0)
        return out
    if m := RE_PLUGIN_SW.search(text):
        state = m.group(1)
        add("plugin_sw:down" if state == "occurred" else "plugin_sw:up", None, 0)  # names no plane: no component
        return out
    if m := RE_NODE_HB.search(text):
        node = _node_of_host(m.group(1))
        add("agent:node_hb_devup" if m.group(3) else "agent:node_hb", node, 2)
        return out
    if m := RE_DEV_HB.search(text):
        add("agent:dev_hb", _npu(host_node, int(m.group(1))), 2)
        return out
    if m := RE_HCCN.search(text):
        devid, state = int(m.group(1)), m.group(2)
        comp = f"{host_node}/npu{devid // 2}/roce{devid % 2}" if host_node else None
        add("hccn:down" if state == "DOWN" else "hccn:up", comp, 2 if state == "DOWN" else 0)
        return out
    if m := RE_L1_CHIP.search(text):
        add("os:l1_fault", f"{host_node}/l1sw{m.group(1)}" if host_node else None, 2)
        return out
    if m := RE_RT.search(text):
        add(f"rt:{m.group(1)}", _npu(host_node, _dev(text)), 2)
    for code in dict.fromkeys(RE_HCCL.findall(text)):
        comp = _npu(host_node, _dev(text))
        if (r := RE_REMOTE.search(text)) and code == "EI0002":
            _ten, p, hi, lo = (int(x) for x in r.groups())
            remote = f"pod{p}/node{hi * 250 + lo - 1}"
            add(f"hccl:{code}", comp, 2, peer=remote)
            add("hccl:remote", remote, 1, peer=remote)
            continue
        add(f"hccl:{code}", comp, 2)
    if out:
        return out
    for rx, kind in SYSLOG_KINDS + TEXT_KINDS:
        if rx.search(text):
            add(kind, _npu(host_node, _dev(text)) or host_node, 2)
            return out
    if m := RE_DEV_EVENT_BARE.search(text):
        add(f"dev:{m.group(1).upper()}", _npu(host_node, _dev(text)))
    return out


JOB_KINDS = {"crash", "timeout", "stalled", "instance_crash", "instance_hang", "instance_down", "instance_stalled",
             "recover_failed", "checkpoint_failed"}


def parse_job_event(job: str, kind: str, detail: dict[str, object], t: float,
                    placement: dict[str, list[str]]) -> list[Signal]:
    """A scheduler-visible job event: its kind, the node/rank it names, and any codes in its error text."""
    if kind not in JOB_KINDS:
        return []
    node = detail.get("node") if isinstance(detail.get("node"), str) else None
    comp = detail.get("component") if isinstance(detail.get("component"), str) else None
    where = str(comp or node or detail.get("instance") or job)
    out = [Signal(t, f"job:{kind}", where, None, 2, f"{job}: {kind}")]
    reason = detail.get("reason")
    if isinstance(reason, str):
        for s in parse_line(reason, t, origin=node or comp):
            out.append(Signal(t, s.kind, s.component or where, s.host, s.severity, f"{job}: {reason}", s.peer))
    return out


DOWN = ("sw:down", "port:down")
UP = ("sw:up", "port:up")


def link_of(sig: Signal) -> str | None:
    return sig.component if sig.component and "~" in sig.component else None


def dark_links(sigs: Iterable[Signal]) -> dict[str, float]:
    """Links whose last event in the window is a down (no light now): link -> time it went dark."""
    last: dict[str, tuple[float, bool]] = {}
    for s in sigs:
        ln = link_of(s)
        if ln and (s.kind in DOWN or s.kind in UP):
            last[ln] = (s.t, s.kind in DOWN)
    return {ln: t for ln, (t, down) in last.items() if down}
