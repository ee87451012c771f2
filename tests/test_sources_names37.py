"""Pages behind one proxy address whose paths join to one name (session 37): each gets a name of its own, the same
on every run and in any order of the URLs."""

from __future__ import annotations

from itertools import permutations

from opsbrain.sources.base import page_hosts


def test_paths_joined_alike_get_names_of_their_own() -> None:
    urls = ["http://gw:80/a/b/m", "http://gw:80/a-b/m", "http://gw:80/api/v1/nodes/n:8082/proxy/metrics",
            "http://gw:80/api/v1/nodes/n:8083/proxy/metrics", "http://gw:80/c/m"]
    got = page_hosts(urls)
    assert len(set(got.values())) == len(urls), got
    for order in permutations(urls):
        assert page_hosts(list(order)) == got
    assert got["http://gw:80/c/m"] == "c-m"  # a name no other path gives stays as it was


def test_the_kubernetes_proxy_names_are_unchanged() -> None:
    urls = [f"https://api:6443/api/v1/nodes/node-{k}:8082/proxy/metrics" for k in (1, 2)]
    assert page_hosts(urls) == {urls[0]: "node-1", urls[1]: "node-2"}
