"""Session 39 (ops39): pages named by their path behind two gateways get names of their own.

Pages behind one address and port are named by the path segments that tell them apart (session 36,
``sources.base.page_hosts``): ``http://gw/node-1/metrics`` is ``node-1``. Two gateways (two clusters' Kubernetes API
servers, two reverse proxies) can each serve a ``node-1``: both pages were named ``node-1`` and one overwrote the
other's series, so one gateway's hot chip was swept under the other's name or not at all. Now each takes ``@`` and
its gateway after it; a name no other page gives is unchanged (the documented ``node-1``).
"""

from __future__ import annotations

from itertools import permutations

from opsbrain.sources.base import PrometheusSource, page_hosts, sweep_source
from tests.test_sources_http import page, serving
from tests.test_tester36b_sweeps import _by_path


def test_two_gateways_each_with_a_node_1_name_them_apart() -> None:
    urls = ["http://gw1/node-1/metrics", "http://gw1/node-2/metrics", "http://gw2/node-1/metrics",
            "http://gw2/node-3/metrics"]
    got = page_hosts(urls)
    assert got == {urls[0]: "node-1@gw1", urls[1]: "node-2", urls[2]: "node-1@gw2", urls[3]: "node-3"}
    for order in permutations(urls):
        assert page_hosts(list(order)) == got
    api = "https://{}:6443/api/v1/nodes/node-{}:8082/proxy/metrics"  # two API servers under one host name
    two = [api.format("api", 1), api.format("api", 2), api.format("api", 1).replace("6443", "7443"),
           api.format("api", 2).replace("6443", "7443")]
    assert page_hosts(two) == {two[0]: "node-1@api:6443", two[1]: "node-2@api:6443", two[2]: "node-1@api:7443",
                               two[3]: "node-2@api:7443"}
    direct = ["http://node-1:8082/metrics", "http://gw/node-1/metrics", "http://gw/node-2/metrics"]
    assert page_hosts(direct) == {direct[0]: "node-1", direct[1]: "node-1@gw", direct[2]: "node-2"}


def test_one_gateways_names_are_unchanged() -> None:
    urls = ["http://gw/node-1/metrics", "http://gw/node-2/metrics"]
    assert page_hosts(urls) == {urls[0]: "node-1", urls[1]: "node-2"}


def test_a_hot_chip_behind_one_gateway_is_found_under_its_own_name() -> None:
    hot, cool = page({2: 98.0}), page({2: 45.0})
    with serving(_by_path({"/node-1/metrics": hot, "/node-2/metrics": cool})) as a, \
            serving(_by_path({"/node-1/metrics": cool, "/node-2/metrics": cool})) as b:
        urls = [f"{a}/node-1/metrics", f"{a}/node-2/metrics", f"{b}/node-1/metrics", f"{b}/node-2/metrics"]
        rep = sweep_source(PrometheusSource(urls))
    gw_a = a.split("//", 1)[1]
    assert {(f.check, f.component) for f in rep.findings} == {("npu_temp", f"node-1@{gw_a}/npu2")}, rep.findings
