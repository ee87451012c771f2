"""The NPU parameter-plane network from session 46's blind look (tester46f): ``hccn_tool -ping``'s summary of a ping
that got nothing back is the RoCE network between the two NPUs not connected, a network-health failure of the NPU
that pinged; a ping that got its answers, and another tool's ping, say nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.readouts import is_readout
from opsbrain.ingest.text import ingest_text

# The check the MindCluster FAQ gives for a job whose RoCE link set-up fails between logical superpods (Ascend/
# mind-cluster docs/zh/scheduling/07_references/03_faq.md -> https://gitcode.com/Ascend/mind-cluster/issues/377:
# "hccn_tool -i 0 -ping -g address {...}"; "如果显示以下提示信息：3 packets transmitted, 0 received, 100.00% packet
# loss，说明RoCE网络是有问题的"); the command line as vllm-ascend's docs/source/tutorials/features/ray.md writes it.
PING_FAIL = "hccn_tool -i 0 -ping -g address 10.20.0.20\n3 packets transmitted, 0 received, 100.00% packet loss\n"
# hccn_tool's answer to a ping that came back (a MindIE DeepSeek-V3 4-node deployment checklist's "返回示例").
PING_OK = ("device 0 PING 11.12.165.80\nrecv seq=0,time=0.114000ms\nrecv seq=1,time=0.067000ms\n"
           "recv seq=2,time=0.063000ms\n3 packets transmitted, 3 received, 0.00% packet loss\n")
# iputils' ping of a host, as Linux prints it ("%ld packets transmitted, %ld received, ..., %g%% packet loss, time
# %ldms"): not hccn_tool's NPU-to-NPU check.
LINUX_PING = "3 packets transmitted, 0 received, 100% packet loss, time 2052ms\n"


def kinds(text: str) -> set[tuple[str, int | None]]:
    return {(s.kind, s.device) for s in ingest_text(text)[0]}


def test_a_ping_of_the_npu_network_that_got_nothing_back_is_a_network_health_failure() -> None:
    sigs = [s for s in ingest_text(PING_FAIL)[0] if s.kind == "hccn:net_health_fail"]
    assert [s.device for s in sigs] == [0]
    assert is_readout(sigs[0])  # a state the tool read, not an event: weighed as a readout


def test_an_answered_ping_and_a_host_ping_say_nothing() -> None:
    assert not {k for k, _ in kinds(PING_OK)} & {"hccn:net_health_fail", "hccn:down"}
    assert not {k for k, _ in kinds(LINUX_PING)} & {"hccn:net_health_fail", "hccn:down"}


def test_the_failed_ping_reads_as_a_net_health_failure_does(tmp_path: Path, engine: Any) -> None:
    """Alone, a readout is a symptom (session 44, conf44): the answer abstains as for ``net health status: Fault``,
    with the RoCE port down first among the alternatives, on the NPU that pinged."""
    found = {}
    health = "hccn_tool -i 0 -net_health -g\nnet health status: Fault\n"
    for name, text in (("ping", PING_FAIL), ("net_health", health)):
        log = tmp_path / f"{name}.log"
        log.write_text(text)
        d = diagnose_logs(str(log), engine)["diagnosis"]
        found[name] = (d["fault_class"], d["alternatives"][:1] and d["alternatives"][0][0], d["root"]["device"])
    assert found["ping"] == found["net_health"] and found["ping"][1:] == ("roce_port_down", 0)


# hccn_tool's net health words (hicann/driver@ef377e950a32b1641c108c59481e39e9643b7d63 src/custom/network/hccn/
# ascend910B/hccn_tool/tool_ops.c, g_net_health_status: 3 "Unreachable", 4 "Time exceeded"; printed as "net health
# status: %s"): the two failures whose words no other reading let through (session 46: they gave no signal).
def test_net_health_unreachable_and_time_exceeded_are_failures() -> None:
    for word in ("Unreachable", "Time exceeded"):
        text = f"hccn_tool -i 3 -net_health -g\nnet health status: {word}\n"
        assert ("hccn:net_health_fail", 3) in kinds(text), word
    assert not {k for k, _ in kinds("hccn_tool -i 3 -net_health -g\nnet health status: Success\n")} & {
        "hccn:net_health_fail"}
