"""Device-side fault codes: device-os / DSMI events (``event_id=0x80e01801``, ``Event id=0x...``,
``event_id:  [0x...]`` as in the vendor knowledge graph's NPU_OS patterns), the MindCluster device plugin's
Kubernetes fault events (its own log lines: :mod:`.mindcluster`), its switch fault tuples
(``AssembledFaultCode:"[0x00f1ff09,155912,npu,na]"``), NodeD's BMC events (``[error code: 2C000031]``), LCNE switch
alarms (``alarmID=0x00f10509``), ``npu-smi info`` health words (OK / Warning / Alarm / Critical) and the chip health
query ``npu-smi info -t health -i N -c C`` (``Error Code : 80E01801``)."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from opsbrain.ingest import where
from opsbrain.ingest.healthstates import SIGNAL_LEVEL, code_of
from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened
from opsbrain.ingest.smihealth import RE_ERROR_CODE, code_signals, error_code_line
from opsbrain.ingest.where import RE_DIE
from opsbrain.lazyre import lazy_compile

RE_EVENT = screened(r"event[_ ]?id\s*[=:]\s*(?:\[\s*)?0x([0-9a-f]{8})(?![0-9a-z])(?:.*?assertion=(occur|recover|\d))?",
                    re.I)
"""A device fault event: its id, and whether it occurs or recovers. The device's fault manager writes the assertion
as a number with its name, ``assertion=0[Event resume]`` (a recovery), ``1[Event occur]``, ``2[One time event]``
(hicann/driver@ef377e95 src/sdk_driver/fms/smf/event/dms_event.c:1344-1348 and :1410); other tools write
``assertion=occur`` / ``recover``."""
RE_DP_EVENT = screened(r"device fault, nodeName:([^,\s]*), assertion:(\w+), "
                       r"(?:cardID:(\d+), deviceID:\d+|logicID:(\d+)), "
                       r"faultCodes:([0-9A-Fa-f]{8}(?:[,;|][0-9A-Fa-f]{8})*), faultLevelName:(\w+)")
"""The device plugin's fault event as ``kubectl get events -n kube-system`` lists it (MindCluster "Fault Event
Information", mxdlug_com_009: ``device fault, nodeName:k8smaster, assertion:Occur, cardID:2, deviceID:0,
faultCodes:8C084E00, faultLevelName:RestartBusiness, ...``): the node by name, the NPU by ``cardID`` (the NPU ID,
npu-smi's ``-i``; ``deviceID`` is the chip within it, 0 on a one-chip card), the handling level (``Occur`` at a
no-action level is a warning, at any other an error, whatever the event's ``Warning`` type column says). On Atlas
950 (Ascend910A5) the plugin writes ``logicID:N`` in place of the card and chip (Ascend/mind-cluster
component/ascend-device-plugin/pkg/device/ascendcommon.go:1585-1589 at 22bb3d98): that logical id names the NPU."""
RE_FAULT_CODE = screened(r"fault ?code[s]?\s*(?:[:=]\s*)?(?:\[\s*)?(?:0x)?([0-9a-f]{8})(?![0-9a-z])", re.I)
RE_SW_TUPLE = screened(r"\[(0x[0-9a-f]{8}),\s*(\w*),\s*(\w*),\s*(\w*)\]", re.I)
RE_SW_RECOVER = lazy_compile(r"\bAssertion:\s*(?:0x)?0\b")
"""A switch fault event's recovery as the device plugin logs it (ascend-device-plugin
pkg/device/deviceswitch/ascend_switch.go:174 at 22bb3d98: ``Assertion: 0``; the ``%#v`` form of ascend-fd's
devicePlugin.log fixture: ``Assertion:0x0``; 0 is FaultRecover, devmanager/common/constants.go:200)."""
RE_SW_CHIP = lazy_compile(r"\bSwitchChipId:\s*(0x[0-9a-f]+|\d+)\b", re.I)
"""The switch chip a switch fault event names (ascend_switch.go convertFaultEvent at 22bb3d98: the driver's
``switchChipid``, printed ``SwitchChipId: 1`` by today's plugin and ``SwitchChipId:0x1`` by the ``%#v`` of older
ones). A chip-level event (its tuple's peer field ``na``: isPortLevelFault false, port 0xFFFFFFFF) is the chip's own:
it is placed on that chip of the node (``<node>/l1sw<id>``); a port-level event (a link's alarm relayed) stays on
the node, as the L1 and L2 chips' own lines name its link."""
RE_ALARM_ID = screened(r"alarmID=(0x[0-9a-f]{8})", re.I)
RE_BMC = screened(r"\[device type: (\w+)\]-\[device id: (\d+)\]-\[error code: ([0-9A-Fa-f]{8})\]")
RE_SMI_HEALTH = screened(r"^\|\s*(\d+)\s+\S*[39]\d0\S*\s*\|\s*(Warning|Alarm|Critical|Abnormal|UNKNOWN)\b", re.I)
"""An ``npu-smi info`` NPU row whose Health column is not OK: NPU ID, then the chip name, then the health word (HDK
npu-smi reference, "npu-smi info": OK / Warning / Alarm / Critical / UNKNOWN). The name is any Ascend chip's, the
910 and 950 families and, since session 41, the 310 family (310B1, 310P3) whose rows the same table prints
(Atlas 200I A2 npu-smi reference, npusmi_007:
https://www.hiascend.com/doc_center/source/zh/Atlas%20200I%20A2/23.0.RC3/re/npu/npusmi_007.html; an Atlas 310B1
host's table with every row at Alarm: https://www.hiascend.com/forum/thread-02114177666655790005-1-1.html, which
before read as no fault signal at all). ``UNKNOWN`` is no alarm: the reference says the device does not exist or has
not started (npu-smi reference, the chip health query's states, npusmi_027 / npusmi_028:
https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html), so its health could not
be read: ``smi:unknown`` at warning level on that NPU, a symptom naming no fault (session 42; before, not read), the
level the sweep rates it at too (:mod:`opsbrain.ingest.healthstates`, session 43)."""
RE_SMI_T_CODES = RE_ERROR_CODE
"""The chip health query ``npu-smi info -t health -i id -c chip_id``'s ``Error Code`` line (``Error Code : NA`` or
the chip's fault codes, e.g. ``80E01801``), read by :mod:`opsbrain.ingest.smihealth` as the collected-outputs reader
reads it: the codes are the device's fault events, on the NPU the ``-i`` of the command line above names (the line
itself names none); a token that is no code is not used. The ``Health Status`` line is not read: the codes below it
say what it sums up, and a bare Critical beside a code the knowledge base does not know would name a lost device it
does not report."""
RE_SMI_COMPAT = screened(r"^\s*Compatibility\s*:\s*NOK\s*$", re.I)
"""``npu-smi info -t board -i id``'s driver/firmware compatibility field (HDK npu-smi reference, "查询NPU的详细信息",
npusmi_008: ``Compatibility : OK | NOK | UNKNOWN | NOT SUPPORT``, NOK the NPU driver and firmware do not match;
the DCMI call behind it, dcmi_get_device_compatibility, names the same DCMI_COMPAT_NOK)."""
RE_SMI_T_ECC = screened(r"^\s*HBM (Single|Double) Bit Error Count\s*:\s*(\d+)\s*$", re.I)
"""The HBM ECC counters of ``npu-smi info -i id -t ecc`` (``HBM Double Bit Error Count : 0``; the MindCluster FaultDiag
guide collects them before and after training, log collection, npu_info_before.txt:
https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/mindxdlFDUG021.html). A double-bit
error is an uncorrectable one and a single-bit error a corrected one, as the kernel's EDAC words are read
(``ecc:uce`` / ``ecc:ce``); a zero count says nothing. The aggregate (lifetime) totals and the isolated-page counts
are not read: they keep errors of past runs."""
RE_BARE_EVENT = screened(r"(?<![0-9a-z_])0x(8[0-9a-f]{7})(?![0-9a-z_])", re.I)
"""A device fault event id written bare (``0x80E01801``, as an operator or a program quotes it: 'hit 0x80E01801 on
npu 3'), read only when the knowledge base documents it as a device code of a class (the classes' ``device_codes``,
each with its source): an eight-digit hex value the knowledge base does not list is an address or a register, not
an event. Read after every framed form above, and the line goes on to the other parsers (a segfault, an HCCL error
the line also reports is theirs). Not read where the value is an address (``at``, ``addr``, ``address``, ``base``,
``ptr``, ``pc``, ``sp``, ``va``, ``pa``, ``offset`` before it, or a range's ``-``), nor on a line stated below
WARNING; ``recover`` / ``clear`` / ``resolved`` on the line make it the event's recovery, as
``assertion=recover`` does for the framed form."""
RE_ASYS_HEALTH = screened(r"^\s*\|\s*Device ID:\s*(\d+)\s*\|\s*Overall Health:\s*(\w*)", re.I)
"""The section head of asys's ``health_result.txt`` (cann/oam-tools ``src/asys/health/asys_health.py``, its
``_save_file``, laid out by ``src/asys/view/table.py``): ``| Device ID: 3 | Overall Health: Critical |``, then
``| | ErrorCode Num: 1 |`` and one ``| 0x80e01801 | <error string> |`` row per DSMI error code of that device
(``hex()`` of the code; ``NA`` where its string could not be read). Read as a place mark (:data:`SECTION_DEVICE`):
the device-less signals of the rows that follow, to the next head, are device N's
(:func:`opsbrain.ingest.derive.section_placed`), at least at the level the health word gives (DSMI's
``dsmi_get_device_health``: Healthy, Warning, Alarm, Critical; asys's ``common/device.py``): a code the device lists
while it reports Alarm or Critical is an error of that device, not a line's passing mention."""
RE_ASYS_CODE_ROW = screened(r"^\s*\|\s*0x(8[0-9a-f]{7})\s*\|[^|]*\|\s*$", re.I)
"""One error-code row of that table, ``| 0x80c98001 | <error string> |``: the code ``hex()`` writes, in the table's
own two-column frame (asys ``src/asys/health/asys_health.py``, ``_save_file``), read as the device's fault event
whether or not the knowledge base documents the code (a bare code elsewhere is read only when it does,
:data:`RE_BARE_EVENT`): the frame says it is a DSMI error code of the device the section head names."""
SOFTWARE_BUS_ERROR = "msg:aicore_error"
"""The kind of an AI Core or AI Vector core event whose state the driver names "bus error, probably caused by
software". The event id's layout (hicann/driver@ef377e95 src/sdk_driver/fms/smf/event/dms_event_converge.h:29-31:
node type bits 17-27, sensor type 9-16, state 0-8) with node type 0x64 / 0x65 (AIC / AIV,
pkg_inc/dms_device_node_type.h), the SOC RAS sensor (type 0xC0) and its state 0x09, whose text is
``"bus error, probably caused by software"`` (src/sdk_driver/fms/smf/sensor/config/dms_sensor_type.c:395); the fault
manager prints it on the line (``event_id=0x80cb8009; ... node_type=0x65[AIV]; ... event_type=0x9[bus error,
probably caused by software]; severity=1[Warning]``, hicann/oam-tools@ea0ce91e
test/st/msaicerr/res/ori_data/no_cce/asys_aicerror: a host running operator test programs). 0x80C98009 and
0x80CB8009 are such events. The driver's own word is the AI Core exception's category (the runtime's 507015, which
a program's operator error prints too: framework_error, aicore_hang ambiguous), not the AI Core hardware fault the
other AI Core events name; its recovery says nothing more."""


def software_bus_error(code: str) -> bool:
    """Whether device event ``code`` (8 hex digits) is an AIC/AIV event at the SOC RAS sensor's state 0x09."""
    v = int(code, 16)
    return ((v >> 17) & 0x7FF) in (0x64, 0x65) and ((v >> 9) & 0xFF) == 0xC0 and (v & 0x1FF) == 0x09


HEALTH_SEVERITY = {"warning": 1, "alarm": 2, "critical": 2}
SECTION_DEVICE = "place:device"
RE_ADDRESS_BEFORE = lazy_compile(r"(?:\b(?:at|addr(?:ess)?|base|ptr|pointer|pc|sp|va|pa|offset)\s*[=:]?\s*|-)$", re.I)
RE_RECOVERED = lazy_compile(r"\b(?:recover(?:ed|y)?|clear(?:ed)?|resolved)\b", re.I)


@lru_cache(maxsize=1)
def documented_device_codes() -> frozenset[str]:
    """The device event ids the knowledge base gives a class a role for (the classes' ``device_codes`` and
    codes.yaml's documented device codes through categories.yaml; upper case, no ``0x``); none when it is
    unreadable."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        kinds = compiled_kb().kind_roles
    except InputError:
        return frozenset()
    return frozenset(k[4:].upper() for k in kinds
                     if k.startswith("dev:") and re.fullmatch(r"8[0-9a-f]{7}", k[4:], re.I))


NO_ACTION_LEVELS = frozenset({"NotHandle", "SubHealth", "NormalNPU", "NormalNetwork"})
"""MindCluster handling levels that ask for no action now: a warning (ascend-device-plugin
``pkg/common/fault_code.go:38-98``, container-manager ``pkg/common/constant.go:71-85``)."""
ACTION_LEVELS = frozenset({"RestartRequest", "RestartBusiness", "RestartNPU", "FreeRestartNPU", "PreSeparateNPU",
                           "SeparateNPU", "ManuallySeparateNPU"})
"""The levels that ask for an action: an error."""


def stated_level_severity(level: str | None) -> int | None:
    """The severity a MindCluster handling level gives, in any of its spellings (faultCode.json's
    ``NotHandleFaultCodes``, the plugin's and container-manager's log ``NotHandleFault``, the knowledge base's
    ``NotHandle``): 1 for a level that asks for no action, 2 for one that asks for one, None for no known level
    (``Unknown``)."""
    if not level:
        return None
    name = level.removesuffix("Codes").removesuffix("Fault")
    return 1 if name in NO_ACTION_LEVELS else 2 if name in ACTION_LEVELS else None


@cache
def level_severity(code: str) -> int:
    """The severity a device event's documented handling level gives it (knowledge_base/codes.yaml ``level``): the
    device's event log writes every event at its own ``EVENT`` level (ascend-fd fixture device-os logs: ``[EVENT]
    TDT(...) [TsdEVENT] Event id=0x8c17a005.``), so that level says nothing of the fault's; a line that states a
    warning or an error level keeps it. 0 when the level is not documented (the line's own level stands)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        level = compiled_kb().device_levels.get(code.upper())
    except InputError:
        return 0
    return 0 if level is None else stated_level_severity(level) or 2


_ANY = group_of(globals())


def _switch_subject(ctx: LineCtx, peer: str) -> str | None:
    """Where a switch fault tuple goes: the chip :data:`RE_SW_CHIP` reads for a chip-level fault (peer ``na``),
    else (a port's fault, or a line naming no chip) the node."""
    if peer.lower() != "na" or not (c := RE_SW_CHIP.search(ctx.text)):
        return ctx.node
    v = c.group(1).lower()
    chip = f"l1sw{int(v, 16) if v.startswith('0x') else int(v)}"
    return f"{ctx.node}/{chip}" if ctx.node else chip


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    if m := RE_ASYS_HEALTH.search(text):
        dev = int(m.group(1))
        ctx.add(SECTION_DEVICE, ctx.npu(dev), HEALTH_SEVERITY.get(m.group(2).lower(), 0), device=dev)
        return True
    if m := RE_ASYS_CODE_ROW.search(text):
        ctx.add(f"dev:{m.group(1).upper()}", None)  # placed on the section's device (SECTION_DEVICE)
        return True
    if m := RE_EVENT.search(text):
        code, state = m.group(1).upper(), (m.group(2) or "occur").lower()
        state = "recover" if state in ("recover", "0") else "occur"
        comp = ctx.npu()
        if comp and "/die" not in comp and (d := RE_DIE.search(text)):
            comp = f"{comp}/die{d.group(1)}"
        sev = level_severity(code) if state == "occur" and ctx.sev == 0 else None  # EVENT / INFO lines only
        if software_bus_error(code):
            if state == "occur":
                ctx.add(SOFTWARE_BUS_ERROR, comp, sev, device=ctx.device())
            return True
        ctx.add(f"dev:{code}" + (":recover" if state == "recover" else ""), comp, sev, device=ctx.device())
        return True
    if m := RE_DP_EVENT.search(text):
        host, state, card_id, logic_id, codes, lvl = m.groups()
        card = int(card_id if card_id is not None else logic_id)
        node = where.node_component(host) or ctx.node  # the node the line names (a real host's ids stay as written)
        comp = where.device_component(node, card, ctx.twin if ctx.twin is not None else where.is_twin_node(node))
        for code in re.split(r"[,;|]", codes.upper()):
            if state.lower() == "recovery":
                ctx.add(f"plugin:{code}:recover", comp, 0, device=card)
            elif state.lower() in ("occur", "notice"):  # Notice: a fault that occurs once (assertion 2)
                ctx.add(f"plugin:{code}", comp, stated_level_severity(lvl) or 2, device=card)
        ctx.add(f"level:{lvl}", comp, 0, device=card)
        return True
    if m := RE_BMC.search(text):
        ctx.add(f"bmc:{m.group(3).upper()}", ctx.node, 2)
        return True
    if (m := RE_SW_TUPLE.search(text)) and ("fault" in ctx.low or "alarm" in ctx.low):
        if "subscribe got fault" in text and RE_SW_RECOVER.search(text):
            ctx.add(f"swfault:{m.group(1).lower()[2:].upper()}:recover", _switch_subject(ctx, m.group(3)), 0)
        else:
            ctx.add(f"swfault:{m.group(1).lower()[2:].upper()}", _switch_subject(ctx, m.group(3)), max(ctx.sev, 1))
        return True
    if m := RE_ALARM_ID.search(text):
        ctx.add(f"swfault:{m.group(1).lower()[2:].upper()}", ctx.node, max(ctx.sev, 1))
        return True
    if m := RE_FAULT_CODE.search(text):
        named = ctx.device()  # the device index the line names, if any
        ctx.add(f"dev:{m.group(1).upper()}", ctx.npu(named), device=named)
        return True
    if (got := error_code_line(text)) is not None and got.read:  # a line of codes (all zeros: no event)
        ctx.out += code_signals(got, t=ctx.t, node=ctx.node, host=ctx.origin or ctx.host, device=ctx.device(),
                                severity=ctx.sev, text=text)
        return True
    if (m := RE_SMI_T_ECC.search(text)) and int(m.group(2)) > 0:
        double = m.group(1).lower() == "double"
        ctx.add("ecc:uce" if double else "ecc:ce", None, 2 if double else 1)
        return True
    if RE_SMI_COMPAT.search(text):
        ctx.add("smi:compat_nok", None, 2)
        return True
    if m := RE_SMI_HEALTH.search(text):
        dev = int(m.group(1))
        code = code_of(m.group(2))  # None: Abnormal, a warning
        ctx.add(f"smi:{m.group(2).lower()}", where.npu_component(ctx.node, dev),  # npu-smi's NPU ID, not a logical
                1 if code is None else SIGNAL_LEVEL[code], device=dev)  # id (A3: the package's row); healthstates
        return True
    if not (ctx.stated and ctx.sev == 0):
        _bare_event(ctx, text)
    return False


def _bare_event(ctx: LineCtx, text: str) -> None:
    """The first documented event id the line quotes bare (:data:`RE_BARE_EVENT`), as a signal; nothing else."""
    for m in RE_BARE_EVENT.finditer(text):
        code = m.group(1).upper()
        if code not in documented_device_codes() or RE_ADDRESS_BEFORE.search(text[max(0, m.start() - 12):m.start()]):
            continue
        named = ctx.device()
        ctx.add(f"dev:{code}" + (":recover" if RE_RECOVERED.search(text) else ""), ctx.npu(named), device=named)
        return
