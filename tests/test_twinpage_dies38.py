"""The twin's exporter page labels each die's series with the die's own id, as npu-exporter labels each logical
device's series with its chip id (session 38, opsbrain.sources.twinpage.CHIP_IDS); the reader keeps the twin's chip
readings per NPU (a twin node's id is a die's), and a real host's ids as written."""

from __future__ import annotations

import re

from opsbrain.sources.exporter import parse_page, render_twin_page
from tests.test_sources import small_pod


def test_each_die_has_its_own_id_and_the_reader_keeps_npus() -> None:
    sim = small_pod()
    sim.run(120.0)
    page = render_twin_page(sim, optics=False)
    ids = {m for m in re.findall(r'^npu_chip_info_temperature\{id="(\d+)",instance="pod0-node2"\}', page, re.M)}
    npus = [n for n in sim.topology.by_kind["npu"] if n.startswith("pod0/node2/")]
    assert ids == {str(k) for k in range(2 * len(npus))}  # both dies of every NPU: logical ids 0 .. 2n-1
    hbm = re.findall(r'^npu_chip_info_hbm_temperature\{id="(\d+)",instance="pod0-node2"\}', page, re.M)
    assert sorted(map(int, hbm)) == [2 * k for k in range(len(npus))]  # the NPU's HBM: on die 0's id
    assert re.search(rf'^machine_npu_nums{{instance="pod0-node2"}} {2 * len(npus)} ', page, re.M)
    r = parse_page(page)
    assert {c for c in r.npu_temp_c if c.startswith("pod0/node2/")} == set(npus)
    assert r.npu_temp_c["pod0/node2/npu5"] == sim.telemetry.metrics.read("npu_temp_c", "pod0/node2/npu5", sim.now)
    assert r.node_npu_count["pod0/node2"] == len(npus) and not r.notes


def test_a_real_hosts_chip_id_is_read_as_written() -> None:
    r = parse_page('npu_chip_info_temperature{id="3",instance="gz-a3-n07"} 51 1700000000000\n')
    assert list(r.npu_temp_c) == ["gz-a3-n07/npu3"]
