"""Session 40 (tidy40): one host and path under two schemes are two pages with names of their own.

Pages are named by their host, port and path (``sources.base.page_hosts``; sessions 36, 37, 39). ``http://gw/node-1``
and ``https://gw/node-1`` share all three as ``urlsplit`` gives them (no port written), so both were ``gw``, or,
with a third page behind ``gw``, both ``node-1-<digest of the path>@gw``: one page's series overwrote the other's.
Now each takes a digest of its own address; names nothing else goes by are unchanged.
"""

from __future__ import annotations

from itertools import permutations

from opsbrain.sources.base import page_hosts


def test_one_path_under_two_schemes_gets_two_names() -> None:
    urls = ["http://gw/node-1/metrics", "https://gw/node-1/metrics"]
    got = page_hosts(urls)
    assert len(set(got.values())) == 2, got
    assert all(name is not None and name.startswith("gw-") for name in got.values()), got
    assert page_hosts(urls[::-1]) == got


def test_with_other_pages_behind_the_gateway_only_the_pair_changes() -> None:
    urls = ["http://gw/node-1/metrics", "https://gw/node-1/metrics", "http://gw/node-2/metrics"]
    got = page_hosts(urls)
    assert got[urls[2]] == "node-2"  # a name no other page gives: as before
    assert got[urls[0]] != got[urls[1]], got
    assert all(got[u] is not None and str(got[u]).startswith("node-1-") and "@" not in str(got[u])
               for u in urls[:2]), got
    for order in permutations(urls):
        assert page_hosts(list(order)) == got


def test_urls_of_one_page_keep_one_name() -> None:
    # a query (or credentials) tells no two pages apart: the session 36 contract (tests/test_tester36b_sweeps.py)
    assert page_hosts(["http://c/metrics?x=1", "http://c/metrics?x=2"]) == {"http://c/metrics?x=1": "c",
                                                                              "http://c/metrics?x=2": "c"}
    urls = ["http://gw/node-1/metrics", "http://gw/node-2/metrics"]  # one gateway: the documented names
    assert page_hosts(urls) == {urls[0]: "node-1", urls[1]: "node-2"}
