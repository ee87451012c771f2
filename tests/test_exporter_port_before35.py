"""port_state's "before" values (highest link speed / NPU count, module seen present over the kept collections) are
kept per clock bucket in the history between sweeps, not re-read from every kept collection each sweep (session 35:
~0.4-0.9 s a sweep at the 1,500-collection cap, benchmarks/bench_port_state.py), and equal a plain re-read however
collections expire, are thinned or skip ids."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.sources.portreadings import port_state
from opsbrain.sources.readings import CollectionHistory, Readings
from opsbrain.sweeps import SweepParams

P = SweepParams()
LINKS = tuple(f"n{n}/npu{c}/udie0/port{k}" for n in range(2) for c in range(2) for k in range(2))


class Counted(dict[str, Any]):
    """A mapping that counts how often it is read."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        Counted.reads += 1
        return super().get(key, default)

    def items(self) -> Any:
        Counted.reads += 1
        return super().items()


def collection(t: float, speeds: dict[str, float], present: dict[str, bool], npus: float) -> Readings:
    r = Readings(t=t)
    r.link_speed, r.optics_present, r.node_npu_count = Counted(speeds), Counted(present), Counted({"n0": npus})
    return r


def test_a_sweep_reads_only_the_collections_new_to_it() -> None:
    h = CollectionHistory(P.link_down_window_s)
    t = 1.8e9
    for _ in range(200):
        t += 60.0
        h.add(cur := collection(t, dict.fromkeys(LINKS, 400.0), {"n0/npu0/port/xcvr": True}, 8.0))
        port_state(cur, h, P, ())
    Counted.reads = 0
    t += 60.0
    h.add(cur := collection(t, dict.fromkeys(LINKS, 400.0), {"n0/npu0/port/xcvr": True}, 8.0))
    ps = port_state(cur, h, P, ())
    assert ps is not None and list(ps.speed_before) == [400.0] * len(LINKS) and ps.present_before.all()
    assert Counted.reads == 3, Counted.reads  # the one new earlier collection, once per attribute (was 200 x 3 x ids)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 900), st.lists(st.sampled_from([None, 100.0, 200.0, 400.0]),
                                                           min_size=len(LINKS), max_size=len(LINKS)),
                          st.booleans(), st.integers(0, 8)), min_size=1, max_size=60),
       st.integers(32, 40), st.sampled_from([3600.0, 86400.0]))
def test_the_kept_maxima_equal_a_plain_reread(steps: list[tuple[int, list[float | None], bool, int]], cap: int,
                                              window: float) -> None:
    p = SweepParams(link_down_window_s=window)
    h = CollectionHistory(window, max_items=cap)
    t = 1.8e9
    for gap, speeds, present, npus in steps:
        t += gap
        cur = collection(t, {ln: v for ln, v in zip(LINKS, speeds, strict=True) if v is not None},
                         {"m": present}, float(npus))
        h.add(cur)
        ps = port_state(cur, h, p, ())
        assert ps is not None
        earlier = [x for x in h.within(t - window, t) if x.t < t]
        want = np.array([max((x.link_speed[ln] for x in earlier if ln in x.link_speed), default=np.nan)
                         for ln in ps.speed_links])
        np.testing.assert_array_equal(ps.speed_before, want)
        assert list(ps.present_before) == [any(x.optics_present.get(m) for x in earlier) for m in ps.modules]
        np.testing.assert_array_equal(ps.npus_counted_before,
                                      [max((x.node_npu_count["n0"] for x in earlier), default=np.nan)])
