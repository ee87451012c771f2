"""Session 42 (link42): a Huawei switch port in Error-Down for link flapping is a flapping port, not a plain down.

``display interface`` prints ``current state : ERROR DOWN(<cause>)`` for a port the switch's own protection shut;
the cause ``link-flap`` means its link-flap protection found the port alternating between Up and Down and shut it
(https://support.huawei.com/enterprise/en/doc/EDOC1100086960, "Troubleshooting an Interface Error-Down Event"; the
causes: https://support.huawei.com/enterprise/en/doc/EDOC1100039602/d848f8b5/error-down-4-hwerrordown_active). It
had read as a port down, diagnosed dirty_connector 0.62 (tester40b's blind set labelled it a link flap)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.text import ingest_text

# https://support.huawei.com/enterprise/en/doc/EDOC1100086960 (the documented example, its first two lines)
DOC = """<HUAWEI> display interface 10ge 1/0/1
10GE1/0/1 current state : ERROR DOWN(link-flap) (ifindex: 53)
Line protocol current state : DOWN
"""
# https://cloud.tencent.cn/developer/article/1825155 (a CE switch's port in error-down for link flapping)
POST = """<HUAWEI> display interface 10ge 1/0/1
10GE1/0/1 current state : ERROR DOWN(link-flap) (ifindex: 5)
Line protocol current state : DOWN
"""


def signals(text: str) -> list[tuple[str, str | None]]:
    return [(s.kind, s.component) for s in ingest_text(text)[0]]


@pytest.mark.parametrize("text", [DOC, POST])
def test_an_error_down_for_link_flapping_is_the_port_flapping(text: str) -> None:
    assert signals(text) == [("tk:switch_port_flap", "switch/10GE1/0/1~peer")]


def test_other_error_down_causes_and_a_plain_down_stay_a_port_down() -> None:
    # causes of the hwErrordown_active page above: CRC errors over the threshold, a module's low optical power
    for cause in ("crc-statistics", "transceiver-power-low"):
        assert signals(DOC.replace("link-flap", cause)) == [("port:down", "switch/10GE1/0/1~peer")]
    assert signals(DOC.replace("ERROR DOWN(link-flap)", "DOWN")) == [("port:down", "switch/10GE1/0/1~peer")]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_it_is_diagnosed_a_flapping_link_at_the_port(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "paste.log"
    log.write_text(POST)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert (d["fault_class"], d["component"]) == ("link_flap", "switch/10GE1/0/1~peer"), d
    assert d["evidence"][0].startswith("1 x switch port flapping on switch/10GE1/0/1~peer")
