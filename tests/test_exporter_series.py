"""npu-exporter series beyond temperatures and optics: the port's link and network status, the device's fault codes,
the uncorrectable (double-bit) ECC count, and the chip metrics opsbrain does not read (named once in the notes).

Pages are in npu-exporter's layout (HELP/TYPE lines, its card labels; MindCluster's Prometheus metrics reference,
docs/en/scheduling/api/npu_exporter/01_prometheus_metrics_api.md)."""

from __future__ import annotations

from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.sources.commands import readings_of
from opsbrain.sources.exporter import parse_page
from opsbrain.sources.readings import CollectionHistory, Readings, snapshot_from
from opsbrain.sweeps import SweepParams
from opsbrain.sweeps.checks import Finding
from opsbrain.sweeps.sweep import sweep_snapshot

NOW = 1796429604.811
MS = 1796429604811
LABELS = 'container_name="",id="{i}",model_name="Ascend910B3",namespace="",pcie_bus_info="0000:C{j}:00.0",pod_name=""'


def family(name: str, values: dict[int, float], help_: str = "", extra: str = "") -> str:
    out = [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
    out += [f"{name}{{{LABELS.format(i=i, j=i + 1)}{extra}}} {v:.17g} {MS}" for i, v in values.items()]
    return "\n".join(out) + "\n"


def healthy(n: int = 8) -> str:
    return (family("npu_chip_info_health_status", dict.fromkeys(range(n), 1.0), "the npu health status")
            + family("npu_chip_info_temperature", {i: 41.0 + i for i in range(n)}, "the npu temperature"))


def sweep(*collections: Readings) -> list[Finding]:
    p = SweepParams()
    hist = CollectionHistory()
    snap = None
    for r in collections:
        snap = snapshot_from(r, hist, p)
    assert snap is not None
    covers = set.intersection(*(set(r.covers) for r in collections))
    return sweep_snapshot(snap, p, sorted(covers)).findings


def by(findings: list[Finding], check: str) -> dict[str, Finding]:
    return {f.component: f for f in findings if f.check == check}


# ---- 1. link and network status ----------------------------------------------------------------------------
def link_page(link: dict[int, float], net: dict[int, float]) -> str:
    return (healthy() + family("npu_chip_info_network_status", net, "the npu network health status")
            + family("npu_chip_info_link_status", link, "the npu link status"))


def test_link_status_down_is_the_finding_hccn_tool_link_down_gives() -> None:
    up = dict.fromkeys(range(8), 1.0)
    r = parse_page(link_page({**up, 5: 0.0}, up), "worker-4", now=NOW)
    assert r.link_oper_down == {f"worker-4/npu{i}/port": i == 5 for i in range(8)}
    assert "link_light" in r.covers and r.notes == []
    got = by(sweep(r), "link_light")
    assert list(got) == ["worker-4/npu5/port"]
    cmd = readings_of([parse_command_outputs("/usr/local/Ascend/driver/tools/hccn_tool -i 5 -link -g\n"
                                             "link status: DOWN\n", "worker-4")], NOW)
    same = by(sweep(cmd), "link_light")["worker-4/npu5/port"]
    mine = got["worker-4/npu5/port"]
    assert (mine.severity, mine.evidence, mine.suggested_action) == (same.severity, same.evidence,
                                                                     same.suggested_action)
    assert mine.severity == "Critical"


def test_network_status_unhealthy_is_the_finding_net_health_gives() -> None:
    up = dict.fromkeys(range(8), 1.0)
    r = parse_page(link_page(up, {**up, 2: 0.0}), "worker-4", now=NOW)
    assert r.link_net_unhealthy == {f"worker-4/npu{i}/port": i == 2 for i in range(8)}
    got = by(sweep(r), "link_light")
    assert list(got) == ["worker-4/npu2/port"] and got["worker-4/npu2/port"].severity == "Alarm"
    assert "network" in got["worker-4/npu2/port"].evidence
    cmd = readings_of([parse_command_outputs("hccn_tool -i 2 -net_health -g\nnet health status: Receive timeout\n"
                                             "hccn_tool -i 3 -net_health -g\nnet health status: Success\n",
                                             "worker-4")], NOW)
    assert cmd.link_net_unhealthy == {"worker-4/npu2/port": True, "worker-4/npu3/port": False}
    same = by(sweep(cmd), "link_light")
    assert list(same) == ["worker-4/npu2/port"]
    assert (same["worker-4/npu2/port"].severity, same["worker-4/npu2/port"].evidence) == (
        got["worker-4/npu2/port"].severity, got["worker-4/npu2/port"].evidence)


def test_link_down_and_network_unhealthy_on_one_port_is_one_finding() -> None:
    up = dict.fromkeys(range(8), 1.0)
    r = parse_page(link_page({**up, 5: 0.0}, {**up, 5: 0.0}), "h", now=NOW)
    got = [f for f in sweep(r) if f.check == "link_light"]
    assert [(f.component, f.severity) for f in got] == [("h/npu5/port", "Critical")]


def test_ub_port_link_status_labels_and_legacy_names() -> None:
    text = (f'npu_chip_info_link_status{{id="0",udie="1",port="3"}} 0 {MS}\n'
            f'npu_chip_info_link_status_0_2{{id="1"}} 0 {MS}\n'
            f'npu_chip_info_link_status_0_4{{id="1"}} 1 {MS}\n')
    r = parse_page(text, "h", now=NOW)
    assert r.link_oper_down == {"h/npu0/udie1/port3": True, "h/npu1/udie0/port2": True,
                                "h/npu1/udie0/port4": False}


def test_link_and_network_values_outside_the_documented_set_are_noted() -> None:
    text = (f'npu_chip_info_link_status{{id="0"}} 3 {MS}\nnpu_chip_info_network_status{{id="0"}} 0.5 {MS}\n'
            f'npu_chip_info_link_status{{id="1"}} -1 {MS}\nnpu_chip_info_network_status{{id="1"}} -1 {MS}\n')
    r = parse_page(text, "h", now=NOW)
    assert r.link_oper_down == {} and r.link_net_unhealthy == {}
    text_notes = "\n".join(r.notes)
    assert "npu_chip_info_link_status outside 1, 0 or -1, not used (first: h/npu0/port 3)" in text_notes
    assert "npu_chip_info_network_status outside 1, 0 or -1" in text_notes
    assert len(r.notes) == 2  # -1 is the exporter's failed read: no reading, not a note


# ---- 2. the device's fault codes --------------------------------------------------------------------------------
def test_error_codes_are_read_as_hex_and_reported_with_the_knowledge_bases_meaning() -> None:
    health = dict.fromkeys(range(4), 1.0) | {3: 0.0}
    text = (family("npu_chip_info_health_status", health, "the npu health status")
            + family("npu_chip_info_error_code", {3: 0x80E01801, 1: 0x80E01809, 0: 0, 2: 0x80DEAD01},
                     "the npu error code")
            + family("npu_chip_info_error_code_1", {3: 0x80E18401}, "the npu error code"))
    r = parse_page(text, "h", now=NOW)
    assert r.npu_fault_codes == {"h/npu0": [], "h/npu1": ["80E01809"], "h/npu2": ["80DEAD01"],
                                 "h/npu3": ["80E01801", "80E18401"]}
    assert r.notes == []
    got = by(sweep(r), "npu_health")
    assert sorted(got) == ["h/npu1", "h/npu2", "h/npu3"]
    f3 = got["h/npu3"]
    assert f3.severity == "Alarm"
    assert "0x80E01801" in f3.evidence and "uncorrectable (multi-bit) ECC error on an HBM access" in f3.evidence
    assert "hbm_uce" in f3.evidence and "RestartBusiness" in f3.evidence and "0x80E18401" in f3.evidence
    assert [c["code"] for c in f3.data["fault_codes"]] == ["0x80E01801", "0x80E18401"]
    assert "re-run the job" in f3.suggested_action
    assert got["h/npu1"].severity == "Warning" and "NotHandle" in got["h/npu1"].evidence  # the vendor: no action
    assert got["h/npu2"].severity == "Warning" and "not in the knowledge base" in got["h/npu2"].evidence


def test_error_code_values_that_are_no_code_are_noted() -> None:
    text = (f'npu_chip_info_error_code{{id="0"}} 1.5 {MS}\nnpu_chip_info_error_code_2{{id="1"}} 1e12 {MS}\n'
            f'npu_chip_info_error_code{{id="2"}} -7 {MS}\n')
    r = parse_page(text, "h", now=NOW)
    assert r.npu_fault_codes == {}
    assert len(r.notes) == 2 and all("not a device fault code" in n for n in r.notes)
    assert r.notes[0].startswith("2 npu_chip_info_error_code ")


# ---- 3. uncorrectable (double-bit) ECC errors ----------------------------------------------------------------
def ue_page(counts: dict[int, float], ms: int = MS) -> str:
    return family("npu_chip_info_hbm_ecc_total_double_bit_error_cnt", counts).replace(f" {MS}\n", f" {ms}\n")


def test_double_bit_count_is_hbm_uce_evidence() -> None:
    r = parse_page(ue_page({0: 0.0, 3: 12.0}), "h", now=NOW)
    assert r.hbm_ue_total == {"h/npu0/hbm": 0.0, "h/npu3/hbm": 12.0} and "hbm_uce" in r.covers
    got = by(sweep(r), "hbm_uce")
    assert list(got) == ["h/npu3/hbm"] and got["h/npu3/hbm"].severity == "Warning"  # one collection: lifetime only
    assert "12 uncorrectable" in got["h/npu3/hbm"].evidence


def test_an_increasing_double_bit_count_alarms_and_two_in_a_day_separate() -> None:
    one = parse_page(ue_page({0: 0.0, 1: 5.0, 3: 12.0}), "h", now=NOW)
    later = MS + 3600 * 1000
    two = parse_page(ue_page({0: 1.0, 1: 5.0, 3: 14.0}, later), "h", now=NOW + 3600)
    got = by(sweep(one, two), "hbm_uce")
    assert {k: f.severity for k, f in got.items()} == {"h/npu0/hbm": "Alarm", "h/npu1/hbm": "Warning",
                                                        "h/npu3/hbm": "Critical"}
    assert got["h/npu3/hbm"].data["new_errors"] == 2.0 and "ManuallySeparateNPU" in got["h/npu3/hbm"].evidence


def test_npu_smi_double_bit_aggregate_feeds_the_same_check() -> None:
    text = ("npu-smi info -i 3 -t ecc\n        NPU ID                                   : 3\n"
            "        HBM Single Bit Aggregate Total Err Cnt   : 0\n"
            "        HBM Double Bit Aggregate Total Err Cnt   : 12\n")
    r = readings_of([parse_command_outputs(text, "w")], NOW)
    assert r.hbm_ue_total == {"w/npu3/hbm": 12.0} and "hbm_uce" in r.covers
    assert by(sweep(r), "hbm_uce")["w/npu3/hbm"].severity == "Warning"


def test_a_negative_double_bit_count_is_noted() -> None:
    r = parse_page(ue_page({0: -4.0}), "h", now=NOW)
    assert r.hbm_ue_total == {} and "total_double_bit_error_cnt outside >= 0" in r.notes[0]


# ---- 4. chip metrics opsbrain does not read --------------------------------------------------------------------
def test_unread_chip_metrics_are_named_once_with_their_count() -> None:
    text = (healthy(4) + family("npu_chip_info_power", dict.fromkeys(range(4), 93.5), "the npu power")
            + family("npu_chip_info_hbm_ecc_double_bit_error_cnt", dict.fromkeys(range(4), 0.0))
            + family("npu_chip_link_up_num", dict.fromkeys(range(4), 2.0))
            + f'npu_chip_info_bandwidth_rx_0_1{{id="0"}} 3 {MS}\nnpu_chip_info_bandwidth_rx_0_2{{id="0"}} 4 {MS}\n'
            + "# HELP machine_npu_nums Amount of npu installed on the machine.\n# TYPE machine_npu_nums gauge\n"
            + f"machine_npu_nums 4 {MS}\n" + f'container_npu_total_memory{{id="0"}} 65536 {MS}\n')
    r = parse_page(text, "h", now=NOW)
    unread = [n for n in r.notes if "not read by opsbrain" in n]
    assert len(unread) == 4 and len(r.notes) == 4
    assert any(n.startswith("4 npu_chip_info_power series not read by opsbrain") for n in unread)
    assert any(n.startswith("4 npu_chip_info_hbm_ecc_double_bit_error_cnt series") for n in unread)
    assert any(n.startswith("4 npu_chip_link_up_num series") for n in unread)
    assert any(n.startswith("2 npu_chip_info_bandwidth_rx_X_Y series") for n in unread)
    assert r.npu_health and r.npu_temp_c  # the rest is read as before


def test_coverage_lists_the_unread_names_without_a_silent_cut() -> None:
    from opsbrain.sources.base import MAX_DROPPED_LINES, ReadingsSource

    src = ReadingsSource()
    src.dropped = [f"1 npu_chip_info_m{k} series not read by opsbrain" for k in range(MAX_DROPPED_LINES + 5)]
    shown = src.coverage()["dropped"]
    assert len(shown) == MAX_DROPPED_LINES + 1 and shown[-1] == "... and 5 more lines"
