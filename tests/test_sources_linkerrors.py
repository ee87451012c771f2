"""An NPU's RoCE FCS and HCCS CRC error counters (session 34): npu-exporter's ``npu_chip_info_rx_fcs_num`` and
``npu_chip_info_hccs_statistic_info_crc_err_cnt_X`` are read as link CRC counters, their increase over the window
(step by step, a decrease a reset) feeding the ``link_crc`` check on ``<node>/npu<id>/port`` and
``<node>/npu<id>/hccs<X>``; a counter reset or a failed read (-1) between collections is no negative rate and no
spike. The pages are served by the test exporter on 127.0.0.1 (tests/test_sources_http.py)."""

from __future__ import annotations

import math
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.sources.base import PrometheusSource, sweep_source
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.promapi import SELECTOR
from opsbrain.sources.readings import Readings, counter_increase
from opsbrain.sweeps.sweep import SweepReport
from tests.test_sources_http import reply, serving

T0 = 1_764_900_000.0  # the exporter's clock (its Date header) at the first collection
STEP_S = 300.0        # a 5-min sweep interval


def exporter_page(fcs: float | None, hccs: float | None) -> str:
    """Two NPUs of one node: NPU 0's RoCE FCS counter, NPU 1's HCCS link 3 CRC counter (None: the series left out,
    as npu-exporter does while it restarts)."""
    out = ['npu_chip_info_temperature{id="0"} 45', 'npu_chip_info_temperature{id="1"} 46',
           'npu_chip_info_hccs_statistic_info_tx_cnt_3{id="1"} 123456']
    if fcs is not None:
        out.append(f'npu_chip_info_rx_fcs_num{{id="0",model_name="910B3",vdie_id="d0"}} {fcs!r}')
    if hccs is not None:
        out.append(f'npu_chip_info_hccs_statistic_info_crc_err_cnt_3{{id="1",vdie_id="d1"}} {hccs!r}')
    return "\n".join(out) + "\n"


def sweeps_of(pages: list[str]) -> list[SweepReport]:
    """Sweep the pages one after the other from one source, the exporter's clock STEP_S apart (its Date header)."""
    state = {"i": 0}

    def handle(h: BaseHTTPRequestHandler) -> None:
        i = state["i"]
        h.date_time_string = lambda *_a: formatdate(T0 + i * STEP_S, usegmt=True)  # type: ignore[method-assign]
        reply(pages[i].encode())(h)

    out = []
    with serving(handle) as url:
        src = PrometheusSource([url + "/metrics"])
        for i in range(len(pages)):
            state["i"] = i
            out.append(sweep_source(src))
    return out


def crc(rep: SweepReport) -> dict[str, tuple[str, float, str, float | None]]:
    return {f.component: (f.severity, f.data["errors"], f.evidence, f.data.get("per_s"))
            for f in rep.findings if f.check == "link_crc"}


def test_the_counters_are_read_as_the_links_crc_errors() -> None:
    r = parse_page(exporter_page(12.0, 7.0), default_host="node-1")
    assert r.link_crc_total == {"node-1/npu0/port": 12.0, "node-1/npu1/hccs3": 7.0}
    assert not any("crc_err_cnt" in n or "rx_fcs" in n for n in r.notes), r.notes  # read, not "not used"
    assert any("hccs_statistic_info_tx_cnt_X series not read" in n for n in r.notes), r.notes  # said, one line
    failed = parse_page(exporter_page(-1.0, -1.0), default_host="node-1")  # npu-exporter's failed read
    assert failed.link_crc_total == {}
    assert "npu_chip_info_rx_fcs_num" in SELECTOR and "npu_chip_info_hccs_statistic_info_crc_err_cnt_[1-7]" in SELECTOR


def test_rising_errors_are_a_link_crc_finding_and_a_reset_is_no_negative_rate_or_spike() -> None:
    # FCS: 0, 600, 1500 in 10 min (a Warning: >= 1,000 in the hour); then the device resets its counter: 20.
    # HCCS: 1e6 errors over its lifetime, steady; a failed read (-1) and a page without it while the exporter
    # restarts; then 1e6 + 5 and a rise of 12,000 (an Alarm: >= 10,000 in the hour).
    fcs = [0.0, 600.0, 1500.0, 20.0, 20.0, 20.0]
    hccs: list[float | None] = [1e6, 1e6, -1.0, None, 1e6 + 5, 1e6 + 12_005]
    reps = sweeps_of([exporter_page(f, h) for f, h in zip(fcs, hccs, strict=True)])
    got = [crc(r) for r in reps]
    port, link = "127.0.0.1/npu0/port", "127.0.0.1/npu1/hccs3"
    assert got[0] == {} and got[1] == {}  # one collection: no window; 600 in 5 min: below the warning
    sev, n, evidence, per_s = got[2][port]
    assert (sev, n) == ("Warning", 1500.0) and per_s == 3.0  # 900 in the last 300 s
    assert evidence.startswith("1500 RoCE FCS errors (frames with a bad checksum) in the last 10 min, 3/s over the "
                               "last collection interval"), evidence
    sev, n, _, per_s = got[3][port]  # the reset: the 20 counted since, added; no negative step
    assert (sev, n) == ("Warning", 1520.0) and per_s is not None and math.isclose(per_s, 20 / STEP_S)
    assert link not in got[2] and link not in got[3] and link not in got[4]  # -1, gone, back + 5: no spike of 1e6
    sev, n, evidence, _ = got[5][link]
    assert (sev, n) == ("Alarm", 12_005.0) and "HCCS CRC errors (flits)" in evidence, evidence
    assert all(f.data["errors"] >= 0 and f.data.get("per_s", 0.0) >= 0 for r in reps for f in r.findings
               if f.check == "link_crc")


def test_a_ub_ports_crc_finding_reads_as_before() -> None:
    ub = 'npu_chip_info_crc_error_sum{{id="0",udie="0",port="2"}} {}\n'
    reps = sweeps_of([ub.format(0) + exporter_page(None, None), ub.format(20_000) + exporter_page(None, None)])
    (f,) = [f for f in reps[1].findings if f.check == "link_crc"]
    assert f.component == "127.0.0.1/npu0/udie0/port2" and f.severity == "Alarm"
    assert f.evidence == "20000 CRC errors in the last 5 min (warn 1000, alarm 10000)"  # the twin's own words


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.booleans(), st.booleans()), min_size=2, max_size=30))
def test_the_increase_is_never_negative_nor_more_than_was_counted(steps: list[tuple[int, bool, bool]]) -> None:
    """A counter that counts ``errors`` before each collection, reset to zero first where ``reset`` (a device reset,
    an exporter restarted from zero), and not read where ``missed`` (no series, or -1; the last collection reads it):
    its increase is never negative and never more than the errors counted after its first reading (no spike),
    and exactly those where nothing was reset."""
    value, kept, counted, first = 0.0, [], 0.0, None
    for i, (errors, reset, missed) in enumerate(steps):
        if reset:
            value = 0.0
        value += errors
        if first is not None:
            counted += errors
        r = Readings(T0 + i * STEP_S)
        if not missed or i == len(steps) - 1:
            r.link_crc_total["l"] = value
            first = i if first is None else first
        kept.append(r)
    inc, rate = counter_increase(kept, "link_crc_total", ("l",))
    if first == len(steps) - 1:  # one reading: no step
        assert np.isnan(inc[0]) and np.isnan(rate[0])
        return
    assert 0 <= inc[0] <= counted and rate[0] >= 0
    if not any(reset for _e, reset, _m in steps[first + 1:]):
        assert inc[0] == counted
