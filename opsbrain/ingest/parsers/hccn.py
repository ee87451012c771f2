"""``hccn_tool`` outputs: ``-link_stat -g`` history lines (``[devid 3]`` or ``[device 3]    Mon Jan  1 ... 2024    LINK
DOWN``; the Ascend 950 table form ``| NPU | UDie | Port | LINK_DOWN | time |``), ``-link -g`` (``link status: DOWN``),
``-net_health -g`` (``net health status: Receive timeout``) and the like.

In the twin, hccn devid counts the dies' RoCE ports (two per NPU); on a real host the devid is the NPU index."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_LINK_STAT = screened(r"\[(?:devid|device) (\d+)\]\s+\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s+LINK (UP|DOWN)")
"""A link-history record of ``hccn_tool -i N -link_stat -g``, tagged ``[devid N]`` or, as the MindCluster FaultDiag
guide's pre-/post-training check file prints it, ``[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN`` (log
collection, npu_info_before.txt: https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/
mindxdlFDUG021.html)."""
RE_LINK_TABLE = screened(r"^\s*\|\s*(\d+)\s*\|\s*\d+\s*\|\s*\d+\s*\|\s*LINK_(UP|DOWN)\s*\|")
"""The Ascend 950 ``hccn_tool -g -link_stat`` history table row ``|  0  |  0   |  4   |  LINK_DOWN  | Mon Feb 9 ...|``
(NPU, UDie, Port, Link_Status, Time_Stamp; hicann/driver docs, Ascend_950_HCCN_Tool 'querying the historical link
up and down status of a port')."""
RE_PORT_TABLE = screened(r"^\s*\|\s*\d+\s*\|\s*(\d+)\s*\|\s*\d+\s*\|\s*\w+\s*\|\s*(UP|DOWN)\s*\|\s*\w+\s*\|\s*$")
"""A port row of the Ascend 950 ``hccn_tool -g -dev_info -i N`` table ``| 0 | 4 | 400 | UB | UP | Electrical |``
(UDie ID, Port ID, Speed Ability(Gbps), Port Type, Link Status "which can be DOWN or UP", Media Type; session 40:
https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/docs/en/Ascend_950_HCCN_Tool/
Ascend_950_HCCN_Tool/querying-the-npu-device-information.md): a port of the NPU the command names (``-i N``).
A ``DOWN`` row is ``hccn:down`` of that NPU (the port is not kept); an ``UP`` row gives no signal, since an
NPU-wide ``hccn:up`` from one port would read as the recovery of another (session 40, review40b)."""
RE_LINK = screened(r"link status\s*:\s*(UP|DOWN)", re.I)
RE_HEALTH = screened(r"net health status\s*:\s*(.+?)\s*$", re.I)
"""``hccn_tool -i N -net_health -g``'s answer, ``net health status: %s`` with the status words of
hicann/driver@ef377e950a32b1641c108c59481e39e9643b7d63 src/custom/network/hccn/ascend910B/hccn_tool/tool_ops.c
(``g_net_health_status``: Success, Socket fail, Receive timeout, Unreachable, Time exceeded, Fault, Init, Thread error,
Detect ip set, Unknown). A word other than Success and Init that reaches the parser is a failure of the NPU's probe
of its detect address; ``Unreachable`` and ``Time exceeded`` reach it since session 46 (no gate word let them
through); ``Detect ip set`` and ``Unknown`` still pass no gate word and give no signal (their meaning is not
documented)."""
RE_DASH_I = screened(r"-i\s+(\d+)", context=True)  # which device a found state is of
RE_SET_DOWN = screened(r"hccn_tool\s.*-link\s+-s\s+down\b")
"""An operator's own command that disables the port (``hccn_tool -i N -link -s down``; the MindCluster elastic-training
guide builds its network fault this way): a port down on purpose is a configuration act, not a failed link."""
RE_TLS = screened(r"TLS SWITCH \((\d)\)|tls switch\[(\d)\]", re.I)
"""A device's TLS switch as HCCP's run log (``rs_ssl_init(1529) : TLS SWITCH (1)``) and ``hccn_tool -i N -tls -g``
(``dev_id:0, tls switch[0](0:disable, 1:enable)``) print it; two ends whose switches differ cannot set up their
sockets (HCCL fault-diagnosis guide, link set-up timeout EI0006, check 1 of the network step; EI0016)."""
RE_OPTICAL_ABSENT = screened(r"^\s*present\s*:\s*not present\s*$", re.I)
RE_OPTICAL_LOSS = screened(r"^\s*[RT]x (?:Los|LoL) Flag\s*:\s*0x([0-9a-f]+)\s*$", re.I)
"""``hccn_tool -i N -optical -g``, the RoCE port's optical module (MindCluster FaultDiag guide, log collection,
npu_info_before.txt: https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/
mindxdlFDUG021.html): ``present : not present`` (no module in the port) and the lane bitmaps ``Rx Los Flag : 0xff``
(loss of signal), ``Rx LoL Flag`` (loss of lock), one bit a lane as the module's CMIS / SFF-8636 flags are kept. A
port without a module, or whose lanes get no light or lose lock, cannot hold its link; a zero bitmap says all lanes
are well."""
RE_PING_LOST = screened(r"^\s*\d+ packets transmitted, 0 received, 100\.00% packet loss\s*$")
"""``hccn_tool -i N -ping -g address <peer device IP>``'s summary when no answer came back: the RoCE network between
the NPU and that peer is not connected (MindCluster FAQ, https://gitcode.com/Ascend/mind-cluster/issues/377, from
docs/zh/scheduling/07_references/03_faq.md: "如果显示以下提示信息：3 packets transmitted, 0 received, 100.00% packet
loss，说明RoCE网络是有问题的"; the HCCL guide's "Device网络不通" case checks the same way, hcclug_000055). The same
fact ``-net_health -g`` reports as ``Unreachable`` for its detect address (HDK hccn_tool reference, status 3), read as
``hccn:net_health_fail`` of the NPU the command names (session 46, tester46f). hccn_tool prints the loss with two
decimals and nothing after it (``3 packets transmitted, 3 received, 0.00% packet loss`` when answered, a MindIE
deployment checklist's example); iputils' host ping (``100% packet loss, time 2052ms``) is not this check."""
RE_DEV_ID = screened(r"dev_id:\s*(\d+)|device-(\d+)", context=True)
RE_NOT_PRESET = screened(r"\bGet (?:ipconf|ip|gateway) failed, because no (?:ip|gateway) was preset there!")
"""``hccn_tool -i N -ip -g`` / ``-gateway -g`` on an NPU whose RoCE address or gateway was never configured
(hicann/driver src/custom/network/hccn/ascend910B/hccn_tool/cmd.c @ef377e950a32b1641c108c59481e39e9643b7d63,
``g_uda_dsmi_err_list``: UDA_DSMI_IPCONF_NOT_PRESET_ERR, UDA_DSMI_GATEWAY_NOT_PRESET_ERR; the 950's tool says ``Get ip
failed``, ascend950/hccn_tool/tool_cmd_err.c ``DEV_EXE_IP_ADDRESS_NOT_PRESET_ERR``, review42): the device network's
configuration is missing, a setting (``cfg:env``), not a link or port fault; HCCL's rank table and HIXL's RoCE
endpoints need that address (session 42, tester42c: a TransferQueue note's live check of NPU 0 and 1 read
config_error only from the text model)."""


def _port(ctx: LineCtx, devid: int) -> str | None:
    """The RoCE port an hccn_tool ``devid`` names: on the twin (Atlas A3: one port per die, ``devid`` a die's
    logical id) the port of that die (:func:`opsbrain.ingest.where.device_component`); on a real host (one port per
    NPU) NPU ``devid``."""
    comp = ctx.npu(devid)
    return comp.replace("/die", "/roce") if comp and ctx.a3() else comp


_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    if RE_SET_DOWN.search(text):
        dev = int(d.group(1)) if (d := RE_DASH_I.search(text)) else None
        ctx.add("cfg:manual_down", ctx.npu(dev) if dev is not None else None, 2, device=dev)
        return True
    if m := RE_TLS.search(text):
        dev = int(next(g for g in d.groups() if g)) if (d := RE_DEV_ID.search(text)) else ctx.device()
        ctx.add("hccn:tls_on" if (m.group(1) or m.group(2)) == "1" else "hccn:tls_off", ctx.npu(dev), 0, device=dev)
        return True
    if m := RE_LINK_STAT.search(text):
        devid, state = int(m.group(1)), m.group(2)
        ctx.add("hccn:down" if state == "DOWN" else "hccn:up", _port(ctx, devid), 2 if state == "DOWN" else 0,
                device=devid)
        return True
    if m := RE_LINK_TABLE.search(text):
        npu, state = int(m.group(1)), m.group(2)
        ctx.add("hccn:down" if state == "DOWN" else "hccn:up", ctx.npu(npu), 2 if state == "DOWN" else 0, device=npu)
        return True
    if m := RE_PORT_TABLE.search(text):
        if m.group(2) == "DOWN":  # an UP row is no signal: the signal is the NPU's, and the NPU has other ports
            dev = ctx.device()  # (a row of another port up would clear the down one; session 40 review40b)
            ctx.add("hccn:down", ctx.npu(dev), 2, device=dev)
        return True
    if m := RE_LINK.search(text):
        dev = int(d.group(1)) if (d := RE_DASH_I.search(text)) else ctx.device()
        state = m.group(1).upper()
        ctx.add("hccn:down" if state == "DOWN" else "hccn:up", ctx.npu(dev), 2 if state == "DOWN" else 0, device=dev)
        return True
    if RE_NOT_PRESET.search(text):
        dev = int(d.group(1)) if (d := RE_DASH_I.search(text)) else ctx.device()
        ctx.add("cfg:env", ctx.npu(dev), 2, device=dev)
        return True
    if RE_OPTICAL_ABSENT.search(text):  # the device queried (the answer's own lines name none)
        ctx.add("hccn:optical_absent", ctx.npu(), 2, device=ctx.device())
        return True
    if (m := RE_OPTICAL_LOSS.search(text)) and int(m.group(1), 16):
        ctx.add("hccn:optical_loss", ctx.npu(), 2, device=ctx.device())
        return True
    if RE_PING_LOST.search(text):  # the NPU the ping command names (the summary line names none)
        ctx.add("hccn:net_health_fail", ctx.npu(), 2, device=ctx.device())
        return True
    if (m := RE_HEALTH.search(text)) and m.group(1).lower() not in ("success", "init"):
        dev = int(d.group(1)) if (d := RE_DASH_I.search(text)) else ctx.device()
        ctx.add("hccn:net_health_fail", ctx.npu(dev), 2, device=dev)
        return True
    return False
