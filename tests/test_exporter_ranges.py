"""Exporter pages with impossible values, repeated series and time stamps in the future: not used as readings,
and said in ``Readings.notes`` (the tester's repro pages, /tmp/helperK/repro/exporter-edge)."""

from __future__ import annotations

from opsbrain.sources.exporter import parse_page

NOW = 1796421900.444
MS = "1796421900444"


def page(*lines: str) -> str:
    return "\n".join(f"{ln} {MS}" if ln.count(" ") == 1 else ln for ln in lines) + "\n"


def test_impossible_values_are_dropped_and_noted() -> None:
    r = parse_page(page('npu_chip_info_temperature{id="0"} 250', 'npu_chip_info_temperature{id="1"} -300',
                        'npu_chip_info_hbm_temperature{id="0"} 1e308', 'npu_chip_info_hbm_temperature{id="1"} 68',
                        'npu_chip_info_health_status{id="0"} 1', 'npu_chip_info_health_status{id="1"} 7',
                        'npu_chip_info_hbm_ecc_single_bit_isolated_pages_cnt{id="0"} -5',
                        'npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt{id="0"} 3'), "h", now=NOW)
    assert r.npu_temp_c == {}
    assert r.hbm_temp_c == {"h/npu1/hbm": 68.0}
    assert r.npu_health == {"h/npu0": 0}
    assert r.hbm_rows == {"h/npu0/hbm": 3.0}
    text = "\n".join(r.notes)
    assert "2 npu_chip_info_temperature outside -40 .. 150" in text
    assert "1e+308" in text and "npu_chip_info_health_status" in text and "isolated_pages_cnt outside >= 0" in text


def test_optical_power_outside_the_module_range() -> None:
    r = parse_page(page('npu_chip_info_optical_rx_power_0{id="0",udie="0",port="0"} 30',
                        'npu_chip_info_optical_rx_power_1{id="0",udie="0",port="0"} -300',
                        'npu_chip_info_optical_rx_power_2{id="0",udie="0",port="0"} -3',
                        'npu_chip_optical_rx_power_0{id="1"} 100'), "h", now=NOW)
    lanes = r.optics["h/npu0/udie0/port0/xcvr"]["rx_dbm"]
    assert lanes[1:] == [-40.0, -3.0] and lanes[0] != lanes[0]  # lane 0 not read (NaN), lane 1 at the floor
    assert "h/npu1/port/xcvr" not in r.optics
    assert len(r.notes) == 3


def test_repeated_series_keeps_the_first_and_is_noted() -> None:
    r = parse_page(page('npu_chip_info_temperature{id="0"} 55', 'npu_chip_info_temperature{id="0"} 99',
                        'npu_chip_info_crc_error_sum{id="0",udie="0",port="0",job="a"} 4',
                        'npu_chip_info_crc_error_sum{id="0",udie="0",port="0",job="b"} 4'), "h", now=NOW)
    assert r.npu_temp_c == {"h/npu0": 55.0}
    assert r.link_crc_total == {"h/npu0/udie0/port0": 4.0}
    assert any("repeated npu_chip_info_temperature" in n for n in r.notes)
    assert any("repeated npu_chip_info_crc_error_sum" in n for n in r.notes)


def test_a_chip_stamped_in_the_future_does_not_move_the_clock() -> None:
    ahead = str(int(MS) + 3 * 86400 * 1000)
    r = parse_page(f'npu_chip_info_temperature{{id="0"}} 55 {ahead}\n'
                   f'npu_chip_info_temperature{{id="1"}} 56 {MS}\n', "h", now=NOW + 1)
    assert r.t == NOW + 1
    assert r.npu_sample_t == {"h/npu1": NOW}
    assert r.npu_temp_c == {"h/npu0": 55.0, "h/npu1": 56.0}
    assert any("after the collection" in n for n in r.notes)


def test_a_whole_page_ahead_keeps_its_own_clock() -> None:
    ahead = int(MS) + 2 * 86400 * 1000
    r = parse_page(f'npu_chip_info_temperature{{id="0"}} 55 {ahead}\n', "h", now=NOW)
    assert r.t == ahead / 1000 and r.npu_sample_t == {"h/npu0": ahead / 1000} and r.notes == []


def test_a_normal_page_has_no_notes() -> None:
    r = parse_page(page('npu_chip_info_temperature{id="0"} 55', 'npu_chip_info_health_status{id="0"} 0'), "h",
                   now=NOW)
    assert r.notes == [] and r.npu_health == {"h/npu0": 2}
