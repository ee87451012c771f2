"""``machine_npu_nums`` without a host label is the page's host's, as every series without one; where nothing names
a host (a query API's series without ``instance``) it is noted and not used, never keyed as node "" (session 35)."""

from __future__ import annotations

from opsbrain.sources.exporter import parse_page, readings_of_samples

T = 1.8e9


def test_a_count_without_host_label_is_the_pages_host() -> None:
    r = parse_page('machine_npu_nums 8\nnpu_chip_info_temperature{id="0"} 50\n', "node-a", T)
    assert r.node_npu_count == {"node-a": 8.0} and "node-a/npu0" in r.npu_temp_c


def test_a_count_naming_no_host_is_noted_not_keyed_as_node_empty() -> None:
    r = readings_of_samples([("machine_npu_nums", None, {"instance": "10.0.0.1:8082"}, 8.0, None),
                             ("machine_npu_nums", None, {"job": "npu-exporter"}, 7.0, None)], None, T)
    assert r.node_npu_count == {"10.0.0.1": 8.0}
    assert any("machine_npu_nums names no host" in n and "not used" in n for n in r.notes), r.notes
