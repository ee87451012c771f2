"""MindCluster's own device-fault log lines: the Ascend Device Plugin's and container-manager's (hwlog run logs,
``devicePlugin.log``, ``container-manager.log``), as the format strings of Ascend/mind-cluster write them (paths
under ``component/``, line numbers at commit 22bb3d98):

- the DCMI fault callback, ``ascend-device-plugin/pkg/common/fault_code.go:1844`` (DoSaveDevFaultInfo):
  ``receive devFaultInfo: %#v, hex code: %v`` of ``ascend-common/devmanager/common/types.go:212`` DevFaultInfo
  (``common.DevFaultInfo{EventID:2162169857, LogicID:3, ..., Severity:2, Assertion:1, AlarmRaisedTime:...}, hex
  code: 80e01801``); before commit 1f6e5d1f (2025-05) ``%v``, the fields by position (``{2162169857 3 2 1
  1764902710100}``: EventID, LogicID, ..., Severity, Assertion, AlarmRaisedTime); the same struct in the rate
  limiter's ``current fault: %#v will be discard`` (:1836) and the plugin's own UB codes, ``generate UB separate
  fault, devFaultInfo: %#v`` (:1743, :1781);
- container-manager's callback, ``container-manager/pkg/fault/app/faultmgr.go:145``: ``receive devFaultInfo: %+v,
  hex fault code: %s, fault level: %s`` (``{EventID:2162169857 LogicID:3 ...}``), and its limiter's ``fault [%+v]
  will be discard`` (:142);
- the plugin's escalations, ``fault_code.go:1248`` ``FaultFrequency detected, event id: %s, logic id: %d, fault
  occurred times: %d, fault level: %s, ...`` and ``:1302`` ``FaultDuration detected, ...`` (a code that occurred
  too often, or lasted too long, on a device, and the handling level it is raised to; printed again at each health
  check of the device, ``GetFaultType`` :1131, while the count holds; the duration line at debug level);
- its parameter-plane codes, ``fault_code.go:1639/:1685`` ``parameter plane fault code occur|recover, logicID: %d,
  hex code: %v, ...``;
- container-manager's start-up list of the codes a device already has, ``pkg/devmgr/hwdevmgr.go:392`` ``before fault
  subscribe, device(%d) had error code: %v`` (the device by its physical id there).

Each gives ``plugin:<CODE>`` (``:recover`` for Assertion 0, ``FaultRecover`` of
``devmanager/common/constants.go:200``; 1 occur and 2 once are occurrences), the kind the plugin's Kubernetes fault
events give (:data:`opsbrain.ingest.parsers.device.RE_DP_EVENT`): the device's event as a MindCluster node component
relays it, told from the device's own log (``dev:<CODE>``), which a collection may lack. It is placed on
``npu<LogicID>``, the device as the line writes it (docs/formats.md): the logical id, the device id CANN and the twin
use (the start-up list's physical id likewise as written). EventID is decimal (an ``int64`` under ``%#v``); the code
is its eight hex digits. The level a line states (container-manager's, an escalation's) comes as ``level:<name>``
beside it. Not read: the plugin's ``detect ManuallySeparateNPU, logic id: %d`` (:1252, printed only right after the
escalation line that states the same device and level) and ``successfully create event for fault: %#v``
(``pkg/device/ascendcommon.go:1615``, the received event restated as it is written to Kubernetes).

Also the plugin's fault list in its device-info ConfigMap (``kubectl describe cm -n kube-system
mindx-dl-deviceinfo-<node>``, MindCluster "Fault Information", mxdlug_com_007; session 38): the value of
``huawei.com/Ascend910-Fault`` (``api/consts.go:253`` ``CmFaultListSuffix``) is a JSON list of ``DeviceFault``
(``ascend-device-plugin/pkg/common/proto.go:229``), written by ``getDeviceFaultsWithMode``
(``pkg/device/ascendcommon.go:806``): one entry per NPU and mode (``CardUnhealthy`` for its chip codes,
``CardNetworkUnhealthy`` for its network codes), ``npu_name`` ``<type>-<physical id>`` (``ascendcommon.go:523``),
``fault_code`` the codes as upper-case hex joined by commas, ``fault_time_and_level_map`` each code's own level.
Each code gives ``plugin:<CODE>`` on the NPU the name writes (its physical id, as written) at the level the map
states for it, else its documented one; the list is often printed as a string inside the ConfigMap's JSON, its
quotes escaped.

ClusterD lists public faults (faults other detectors send it: CCAE, pingmesh, NetMind, the DPC storage client) in the
same ``DeviceFault`` form, ``fault_type`` ``PublicFault``, in its ``cluster-info-device-<m>`` ConfigMap (``kubectl
describe cm -n mindx-dl cluster-info-device-0``, MindCluster common_operations.md "Querying Information About
Currently Available Devices", whose example lists ``220001001`` on three NPUs), and keeps each in its
``statistic-fault-info`` ConfigMap as ``{"resource":"CCAE","devIds":[0,1,2],...,"faultCode":"010001002",
"level":"SubHealthFault",...}`` (the MindCluster FAQ "Recovery Message of a Public Fault Is Missing",
dlug_installation_faq_051). Their codes are nine decimal digits (03_configuring_fault_detection_levels.md, Table 4:
digit 2 is the default level, 0 NotHandle, 1 SubHealth, 2 SeparateNPU); each gives ``pub:<CODE>`` on the NPU at the
level the entry states, else that default (session 51; the codes have no knowledge-base rows: their classes wait for
a refit, measured and not taken). Before, the eight-hex-digit reading passed them by: the ConfigMap of three isolated
NPUs was "no fault found". Both ConfigMaps
list many nodes, each under its own key (``mindx-dl-deviceinfo-<node>``, ``<node>``): a fault (a public one, or a
device code in the cluster-info list) is placed on the NPU of the node it is listed under."""

from __future__ import annotations

from typing import Any

from opsbrain.ingest import where
from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.parsers.device import level_severity, stated_level_severity
from opsbrain.ingest.screen import group_of, screened
from opsbrain.ingest.where import MAX_DEVICE
from opsbrain.lazyre import lazy_compile

RE_NAMED = screened(r"(?:receive devFaultInfo: |current fault: |fault \[|fault, devFaultInfo: )(?:\w+\.DevFaultInfo)?"
                    r"\{EventID:(\d+),? LogicID:(-?\d++)([^{}]*)\}(?:, hex fault code: \w+, fault level: (\w+))?")
RE_POSITIONAL = screened(r"receive devFaultInfo: \{(\d+) (-?\d+)((?: -?\d+){3,})\}")
RE_ESCALATED = screened(r"Fault(?:Frequency|Duration) detected, event id: ([0-9a-fA-F]{1,16}), logic id: (-?\d+), "
                        r".*?fault level: (\w+)")
RE_PARAM_PLANE = screened(r"parameter plane fault code (occur|recover), logicID: (-?\d+), "
                          r"hex code: ([0-9a-fA-F]{1,16})")
RE_BEFORE_SUBSCRIBE = screened(r"before fault subscribe, device\((\d+)\) had error code: ([0-9a-fA-F]{1,16})\b")
RE_FIELD = lazy_compile(r"\b(Severity|Assertion):(-?\d+)")
RE_CM_ENTRY = screened(r'\\?"npu_name\\?":\\?"[A-Za-z][\w.]*?-(\d+)\\?"[^{}]*?\\?"fault_code\\?":\\?"'
                       r'((?:[0-9A-Fa-f]{8}|\d{9})(?:,(?:[0-9A-Fa-f]{8}|\d{9}))*)\\?"')
"""One ``DeviceFault`` of the device-info ConfigMap's fault list: the NPU's physical id and its codes."""
RE_CM_LEVEL = lazy_compile(r'\\?"([0-9A-Fa-f]{8}|\d{9})\\?":\{\\?"fault_time\\?":\d+,\\?"fault_level\\?":\\?"(\w+)\\?"')
"""A code's own entry in that ``DeviceFault``'s ``fault_time_and_level_map`` (``FaultTimeAndLevel``, proto.go:222)."""
RE_PUB_RECORD = screened(r'"devIds":\[([\d,\s]*)\][^{}]*?"faultCode":"(\d{9})"(?:,"level":"(\w+)")?')
"""One public fault of ClusterD's ``statistic-fault-info`` (module docstring): the NPUs' physical ids, its code and
level."""
RE_CM_NODE = lazy_compile(r'"mindx-dl-deviceinfo-([\w.-]+)"\s*:\s*\{')
"""A node's key in ClusterD's cluster-info-device ConfigMap (one entry per node, ``mindx-dl-deviceinfo-<node>``)."""
RE_STAT_NODE = lazy_compile(r'"([\w.-]+)":\[\{')
"""A node's key in statistic-fault-info (its list of public faults)."""
PUB_DEFAULT_LEVEL = {"0": 1, "1": 1, "2": 2}
"""A public fault code's second digit, its default level (NotHandle, SubHealth: no action now; SeparateNPU)."""
RE_NODED_ENTRY = screened(r'\\?"DeviceType\\?":\\?"(\w+)\\?",\\?"DeviceId\\?":(-?\d+),\\?"FaultCode\\?":\[([^\]]*)\],'
                          r'\\?"FaultLevel\\?":\\?"(\w+)\\?"')
"""One ``FaultDev`` of NodeD's node-info ConfigMap (``kubectl get cm mindx-dl-nodeinfo-<node> -o yaml``, its
``NodeInfo`` JSON; session 41): the node-level device's type and id, its fault codes (hex strings) and the fault's
level. Fields in the struct's order, as ``encoding/json`` writes them (Ascend/mind-cluster @22bb3d98
``component/noded/pkg/common/type.go:56`` FaultDev; docs/en/scheduling/api/noded.md "mindx-dl-nodeinfo")."""
RE_QUOTED_CODE = lazy_compile(r'\\?"([0-9A-Fa-f]{8})\\?"')
NODED_LEVELS = {"NotHandleFault": 1, "PreSeparateFault": 1, "SeparateFault": 2}
"""NodeD's fault levels (docs/en/scheduling/api/noded.md): no action; no new jobs on the node, the running ones go
on (a warning); the jobs are rescheduled (an error)."""
FAULT_RECOVER = 0

_ANY = group_of(globals())


def _code(value: str, base: int) -> str | None:
    n = int(value, base)
    return f"{n:08X}" if 0 < n < 1 << 32 else None


def _severity(code: str, level: str | None, dcmi: int | None) -> int:
    """The handling level the line states; else the code's documented one; else the device's own severity (the
    plugin's rule for a code its table lacks, ``getFaultTypeBySeverity``: above Minor (1) an error)."""
    if (stated := stated_level_severity(level)) is not None:  # ``Unknown`` says nothing
        return stated
    if sev := level_severity(code):
        return sev
    return 2 if dcmi is not None and dcmi > 1 else 1


def _add(ctx: LineCtx, code: str | None, logic: int, recover: bool, level: str | None, dcmi: int | None,
         node: str | None = None) -> None:
    dev = logic if 0 <= logic <= MAX_DEVICE else None
    comp = _on(ctx, dev, node)
    if code is not None:
        if recover:
            ctx.add(f"plugin:{code}:recover", comp, 0, device=dev)
        else:
            ctx.add(f"plugin:{code}", comp, _severity(code, level, dcmi), device=dev)
    if stated_level_severity(level) is not None:
        ctx.add(f"level:{level}", comp, 0, device=dev)


def _node_before(rx: Any, text: str, at: int) -> str | None:
    """The node whose key (``rx``) comes last before ``at``: the node a ConfigMap of many nodes lists a fault under."""
    last = None
    for m in rx.finditer(text, 0, at):
        last = m.group(1)
    return last


def _on(ctx: LineCtx, dev: int | None, node: str | None) -> str | None:
    """The NPU ``dev`` on ``node`` (a node the ConfigMap names), else on the line's node."""
    if dev is None:
        return None
    return where.device_component(node, dev, ctx.numbering()) if node else ctx.npu(dev)


def _public(ctx: LineCtx, code: str, dev: int, level: str | None, node: str | None) -> None:
    """A public fault (module docstring): ``pub:<code>`` on the NPU, at its stated level, else its code's default."""
    on = dev if 0 <= dev <= MAX_DEVICE else None
    sev = stated_level_severity(level) or PUB_DEFAULT_LEVEL.get(code[1], 2)
    ctx.add(f"pub:{code}", _on(ctx, on, node), sev, device=on)


def _fault_list(ctx: LineCtx, text: str) -> bool:
    """The device-info ConfigMap's fault list (module docstring): every entry's codes on its NPU."""
    entries = list(RE_CM_ENTRY.finditer(text))
    for i, m in enumerate(entries):
        end = entries[i + 1].start() if i + 1 < len(entries) else len(text)
        levels = {c.upper(): lvl for c, lvl in RE_CM_LEVEL.findall(text, m.end(), end)}
        node = _node_before(RE_CM_NODE, text, m.start())  # ClusterD's ConfigMap of many nodes; None: the plugin's own
        for code in m.group(2).upper().split(","):
            if len(code) == 9:  # a public fault's nine decimal digits
                _public(ctx, code, int(m.group(1)), levels.get(code), node)
            else:
                _add(ctx, code, int(m.group(1)), False, levels.get(code), None, node)
    return bool(entries)


def _public_records(ctx: LineCtx, text: str) -> bool:
    """statistic-fault-info's public faults (module docstring): each code on every NPU its record names."""
    found = False
    for m in RE_PUB_RECORD.finditer(text):
        node = _node_before(RE_STAT_NODE, text, m.start())
        for dev in m.group(1).replace(" ", "").split(","):
            if dev.isdigit():
                _public(ctx, m.group(2), int(dev), m.group(3), node)
                found = True
    return found


def _node_faults(ctx: LineCtx, text: str) -> bool:
    """NodeD's fault list (:data:`RE_NODED_ENTRY`): each code as ``bmc:<CODE>`` on the node, as NodeD's own log line
    of the event gives it (:data:`opsbrain.ingest.parsers.device.RE_BMC`). Before session 41 the ConfigMap of a node
    NodeD called UnHealthy was "no fault found"."""
    found = False
    for m in RE_NODED_ENTRY.finditer(text):
        for code in RE_QUOTED_CODE.findall(m.group(3)):
            ctx.add(f"bmc:{code.upper()}", ctx.node, NODED_LEVELS.get(m.group(4), 2))
            found = True
    return found


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    text = ctx.text
    if "fault_code" in text and _fault_list(ctx, text):
        return True
    if "FaultDevList" in text and _node_faults(ctx, text):
        return True
    if "faultCode" in text and _public_records(ctx, text):
        return True
    if m := RE_NAMED.search(text):
        fields = {k: int(v) for k, v in RE_FIELD.findall(m.group(3))}
        _add(ctx, _code(m.group(1), 10), int(m.group(2)), fields.get("Assertion") == FAULT_RECOVER, m.group(4),
             fields.get("Severity"))
        return True
    if m := RE_POSITIONAL.search(text):
        rest = [int(v) for v in m.group(3).split()]  # ..., Severity, Assertion, AlarmRaisedTime
        _add(ctx, _code(m.group(1), 10), int(m.group(2)), rest[-2] == FAULT_RECOVER, None, rest[-3])
        return True
    if m := RE_ESCALATED.search(text):
        _add(ctx, _code(m.group(1), 16), int(m.group(2)), False, m.group(3), None)
        return True
    if m := RE_BEFORE_SUBSCRIBE.search(text):  # a physical id, as the line writes it
        _add(ctx, _code(m.group(2), 16), int(m.group(1)), False, None, None)
        return True
    if m := RE_PARAM_PLANE.search(text):
        _add(ctx, _code(m.group(3), 16), int(m.group(2)), m.group(1) == "recover", None, None)
        return True
    return False
