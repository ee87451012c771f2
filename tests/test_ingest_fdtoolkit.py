"""MindCluster FaultDiag toolkit verdicts (opsbrain/ingest/parsers/fdtoolkit.py). Every line is an abnormal-output
example of the toolkit's diagnosis-item reference (Ascend/mind-cluster @22bb3d98,
docs/zh/faultdiag/ascend-faultdiag-toolkit/07_references/02_diagnosis_items.md), as it prints them."""

from __future__ import annotations

import io

import pytest

from opsbrain.ingest import ingest_text


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


@pytest.mark.parametrize(("line", "want"), [
    ("光模块光功率异常，RX功率-18.5dBm低于阈值-15dBm", ["tk:optical_power"]),
    ("光模块光功率异常：Lane1 RX功率-18.5dBm低于阈值-15dBm", ["tk:optical_power"]),
    ("网卡端口 tx_power 异常：Lane1 RX功率-18.5dBm低于阈值-15dBm", ["tk:optical_power"]),
    ("TX端口Lane最大值和最小值差值大于3dB，实际最大值lane0：-12.0dBm，最小值lane3：-16.0dBm", ["tk:optical_power"]),
    ("光模块SNR异常：lane0: Host SNR值7.2dB低于阈值8.0dB", ["tk:optical_snr"]),
    ("CDR SNR异常，Host SNR值为6.8dB低于阈值8.0dB", ["tk:optical_snr"]),
    ("本端信噪比SNR异常，SNR值为6.5dB低于阈值8.0dB", ["tk:optical_snr"]),
    ("光模块Bias异常：Lane1 偏置电流78mA低于阈值90mA", ["tk:optical_bias"]),
    ("本端电流异常，偏置电流78mA低于阈值90mA", ["tk:optical_bias"]),
    ("BER误码率1.2e-05大于阈值5e-06。", ["tk:ber"]),
    ("持续连续3次出现uncorr_cw_cnt > 10，发生时间：2025-10-01-14:30:00.123456", ["tk:ber"]),
    ("端口10GE1/0/1 CRC快速增长告警统计次数1500，阈值1000，对端设备SWITCH-02，对端端口10GE1/0/2", ["tk:ber"]),
    ("端口10GE1/0/1发生降lane，对端端口信息：10GE1/0/2", ["tk:lanes"]),
    ("光模块Rx Los指标异常，状态：1", ["hccn:optical_loss"]),
    ("光模块 TxLos Flag 指标状态异常：Lane1：0x1", ["hccn:optical_loss"]),
    ("网卡端口 Lane1 TxLos 异常：实际值 0x1（正常值 0）", ["hccn:optical_loss"]),
    ("光模块链路Los告警，原因：接收信号丢失", ["hccn:optical_loss"]),
    ("光模块未在位，状态：NA", ["hccn:optical_absent"]),
    ("端口光模块状态异常，网络健康状态：abnormal，连接状态：down。 对端交换机：SWITCH-01，对端端口：10GE1/0/1。",
     ["hccn:down", "hccn:net_health_fail"]),
    ("本端环回类型1后端口down，诊断为本端故障", ["tk:loopback_port"]),
    ("本端环回类型1后端口up，环回类型2后端口down，诊断为本端端口光模块故障/赃污", ["tk:loopback_module"]),
    ("检测到IIC异常：trans status[0x40]，error status[0x10]，NPU板载光模块转接器可能存在故障", ["tk:optical_adapter"]),
    ("交换机端口长期down", ["tk:switch_port_down"]),
    ("交换机端口闪断", ["tk:switch_port_flap"]),
    ("L1交换芯片所有端口异常", ["tk:l1_all_ports"]),
    ("Cpu0 UBC0 macro0 CPU board 0与L1端口之间发生故障", ["tk:hccs_link"]),
    ("NPU端口与对端交换机：SWITCH-01，ip：0.0.0.1，端口10GE1/0/1连接信息不相同，本端Speed：100G，Duplex：full。"
     "对端Speed：50G，Duplex：full", ["tk:port_config"]),
])
def test_each_documented_verdict_is_read(line: str, want: list[str]) -> None:
    assert kinds(line) == want


@pytest.mark.parametrize("line", [
    "未采集到NPU光模块对端lldp信息",  # a collection gap, not a fault
    "光模块处于低功率模式，high power enable reg:0x00",  # a setting the toolkit suggests changing; no class of ours
    "lane0 SNR值12.8dB",  # a reading without a verdict
])
def test_context_items_give_no_signal(line: str) -> None:
    assert kinds(line) == []


@pytest.mark.parametrize(("line", "cls"), [
    ("光模块光功率异常，RX功率-18.5dBm低于阈值-15dBm", "optical_degradation"),
    ("端口10GE1/0/1发生降lane，对端端口信息：10GE1/0/2", "optical_degradation"),
    ("L1交换芯片所有端口异常", "l1_switch_failure"),
    ("交换机端口闪断", "link_flap"),
    ("交换机端口长期down", "link_down"),
    ("本端环回类型1后端口down，诊断为本端故障", "roce_port_down"),
])
def test_a_verdict_that_names_its_fault_is_diagnosed_to_it(line: str, cls: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    d = diagnose_logs("-", load_engine(), SignatureMatcher(load_kb()), stdin=io.BytesIO(line.encode()))["diagnosis"]
    assert d["fault_class"] == cls and d["evidence_lines"]
