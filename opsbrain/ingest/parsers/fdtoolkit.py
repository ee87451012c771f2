"""MindCluster FaultDiag toolkit (``ascend-fd-tk``) verdicts an operator pastes: a diagnosis item's abnormal output,
read as what it says about the optical module, the port or the switch chip.

Source: Ascend/mind-cluster @22bb3d98, docs/zh/faultdiag/ascend-faultdiag-toolkit/07_references/02_diagnosis_items.md
(诊断项参考: the toolkit's 50 diagnosis items, each with its logic and an abnormal-output example) and
component/ascend-faultdiag/toolkit_src/ascend_fd_tk/core/fault_analyzer/ (the ``fault_info`` texts and the
suggestion each comes with). Read here, in the toolkit's words (Chinese):

- optical power, SNR and bias current out of their thresholds (``光模块光功率异常，RX功率-18.5dBm低于阈值-15dBm``,
  ``光模块SNR异常``, ``CDR SNR异常``, ``光模块Bias异常``, the NIC items ``网卡端口 tx_power 异常``, the lane spread
  ``TX端口Lane最大值和最小值差值大于3dB``): ``tk:optical_power``, ``tk:optical_snr``, ``tk:optical_bias``;
- a bit-error rate over its threshold, uncorrectable FEC code words three times in a row, a CRC burst alarm:
  ``tk:ber``; a port running on fewer lanes (``端口10GE1/0/1发生降lane``, ``交换机链路降lane``; alarm 0xF10509):
  ``tk:lanes``;
- loss of signal or lock (``光模块Rx Los指标异常``, ``光模块链路Los告警``, ``网卡端口 Lane1 TxLos 异常``) and a module
  not present (``光模块未在位``): the same kinds as hccn_tool's own readings (``hccn:optical_loss``,
  ``hccn:optical_absent``); a port whose link is down (``端口光模块状态异常，网络健康状态：abnormal，连接状态：down``):
  ``hccn:down`` (and ``hccn:net_health_fail`` when its health is abnormal);
- the loopback test (``本端环回类型1后端口down，诊断为本端故障``: the local port, ``tk:loopback_port``;
  ``环回类型1后端口up，环回类型2后端口down，诊断为本端端口光模块故障/赃污``: its module,
  ``tk:loopback_module``); the NPU's on-board optical adapter suspected from I2C errors: ``tk:optical_adapter``;
- a switch port down for long, a flapping switch port, a link-down history: ``tk:switch_port_down``,
  ``tk:switch_port_flap``, ``tk:linkdown_history``; every CPU port of one L1 switch chip abnormal (the board-level
  HCCS verdict): ``tk:l1_all_ports``; a CPU board to L1 port fault: ``tk:hccs_link``;
- the two ends of a link set to another speed or duplex: ``tk:port_config``.

Which classes these take is the knowledge base's (knowledge_base/classes/*.yaml). Items the toolkit reports only as
context (HCCS time-outs, congestion, routing misses, a module in low-power mode, no LLDP data) give no signal."""

from __future__ import annotations

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened
from opsbrain.lazyre import lazy_compile

_DB = r"-?\d+(?:\.\d+)?"
ITEMS = (
    (screened(r"光模块光功率异常|网卡端口 (?:tx|rx)_power 异常"
              r"|(?:RX|TX)功率" + _DB + r"dBm(?:低于|高于)阈值|端口Lane最大值和最小值差值大于"), "tk:optical_power"),
    (screened(r"光模块(?:Host |Media )?SNR(?: LANE间差值)?异常|CDR SNR异常|信噪比SNR异常"
              r"|网卡端口 (?:host|media)_snr 异常|SNR值(?:为)?" + _DB + r"dB低于阈值"), "tk:optical_snr"),
    (screened(r"光模块Bias异常|本端电流异常|网卡端口 bias 异常"
              r"|偏置电流" + _DB + r"mA(?:低于|高于)阈值"), "tk:optical_bias"),
    (screened(r"BER误码率\S+大于阈值|uncorr_cw_cnt ?> ?10|CRC快速增长告警"), "tk:ber"),
    (screened(r"发生降lane|链路降lane"), "tk:lanes"),
    (screened(r"光模块(?:链路)?\s?(?:Rx|Tx) ?(?:Los|LoL|Lol)|Los告警"
              r"|(?:Tx|Rx)(?:Los|CdrLol|Lol) (?:Flag )?(?:指标状态)?异常"
              r"|Tx los值0x[0-9a-fA-F]+大于0"), "hccn:optical_loss"),
    (screened(r"光模块未在位"), "hccn:optical_absent"),
    (screened(r"环回类型1后端口down"), "tk:loopback_port"),
    (screened(r"环回类型2后端口down"), "tk:loopback_module"),
    (screened(r"光模块转接器可能存在故障"), "tk:optical_adapter"),
    (screened(r"交换机端口长期down"), "tk:switch_port_down"),
    (screened(r"交换机端口闪断"), "tk:switch_port_flap"),
    (screened(r"NPU存在linkdown"), "tk:linkdown_history"),
    (screened(r"L1交换芯片所有端口异常"), "tk:l1_all_ports"),
    (screened(r"与L1端口之间发生故障"), "tk:hccs_link"),
    (screened(r"连接信息不相同，本端Speed"), "tk:port_config"),
)
RE_PORT_STATE = screened(r"端口光模块状态异常，网络健康状态[:：] ?(\w+)，连接状态[:：] ?(\w+)")
"""(Its full-width colons reach a parser as ``: ``: :func:`opsbrain.ingest.surface.plain`.)"""
WORDS = lazy_compile(r"光模块|光功率|偏置电流|误码率|降lane|环回类型|交换机端口|交换芯片|L1端口|网卡端口|SNR|linkdown"
                   r"|uncorr_cw_cnt|差值大于|CRC快速增长|连接信息不相同")
"""The words of every item above (for the parsers' gate, which a line must pass before any parser reads it)."""

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    """A toolkit verdict is fully explained by what it says (several items may share one line of a report)."""
    if not _ANY.may(ctx.text):
        return False
    text, found = ctx.text, False
    if m := RE_PORT_STATE.search(text):
        if m.group(2).lower() == "down":
            ctx.add("hccn:down", ctx.node, 2)
        if m.group(1).lower() == "abnormal":
            ctx.add("hccn:net_health_fail", ctx.node, 2)
        found = True
    for rx, kind in ITEMS:
        if rx.search(text):
            ctx.add(kind, ctx.node, 2)
            found = True
    return found
