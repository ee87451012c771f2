"""Documented hardware, fabric and collective texts, read as their documents print them (issue: hardware-side real
text). Every line is the documented output form its comment names; none is a corpus excerpt."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# ``npu-smi info -t health -i id -c chip_id`` (HDK npu-smi reference, "查询指定芯片健康状态", npusmi_028; the MindCluster
# log-collection guide shows the same three fields): one field a line, the fault codes of the black-box error list.
SMI_T_HEALTH = [
    "        Health Status                  : Critical",
    "        Error Code                     : 80E01801",
    "        Error Information              : NA",
]


def test_the_chip_health_query_names_its_fault_code() -> None:
    assert kinds(SMI_T_HEALTH[1]) == ["dev:80E01801"]


def test_the_chip_health_query_reads_several_codes() -> None:
    assert kinds("        Error Code                     : 80E01801 80FA4E00") == ["dev:80E01801", "dev:80FA4E00"]


def test_the_chip_health_query_status_is_the_health_word() -> None:
    assert kinds(SMI_T_HEALTH[0]) == ["smi:critical"]
    assert kinds("        Health Status                  : Warning") == ["smi:warning"]


@pytest.mark.parametrize("line", ["        Health Status                  : OK",
                                  "        Error Code                     : NA", SMI_T_HEALTH[2]])
def test_a_healthy_chip_gives_no_signal(line: str) -> None:
    assert kinds(line) == []
