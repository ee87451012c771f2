"""The twin's ``npu-smi`` output in the A3 layout real hosts print (session 38): a row pair per die under ``Chip
Phy-ID`` (vllm-ascend issues #2035, #2534), ``npu-smi info -m`` opening the bundle's *before* file (ascend-fd reads
its logic ids from there), and every reader of such output reading both the twin's and a real host's table alike.

The real-layout table below is written here with values of our own (two dies of an NPU at different temperatures,
as the hosts in those issues show them)."""

from __future__ import annotations

import re
from pathlib import Path

from faultlib.telemetry import formats as fmt
from faultlib.telemetry import npusmi as smi
from faultlib.telemetry.records import LogLine
from opsbrain.bundle.envcheck import npu_info
from opsbrain.ingest.chipmap import A3, chip_map
from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.ingest.npuinfo import NpuInfoScan
from opsbrain.ingest.parsers import parse_line
from opsbrain.sources.commands import render_twin_npu_smi
from tests.test_sources import small_pod

_RULE = "+" + "-" * 96 + "+"
_BAR = "+===========================+===============+====================================================+"
REAL_A3 = [
    "/usr/local/bin/npu-smi info", _RULE,
    "| npu-smi 24.1.rc3                 Version: 24.1.rc3                                             |",
    "+---------------------------+---------------+----------------------------------------------------+",
    "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
    "| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |", _BAR,
    "| 0     Ascend910           | OK            | 170.1       41                0    / 0             |",
    "| 0     0                   | 0000:9D:00.0  | 0           0    / 0          3300 / 65536         |", _RULE,
    "| 0     Ascend910           | Critical      | -           44                0    / 0             |",
    "| 1     1                   | 0000:9F:00.0  | 0           0    / 0          3100 / 65536         |", _BAR,
    "| 1     Ascend910           | OK            | 181.0       39                0    / 0             |",
    "| 0     2                   | 0000:99:00.0  | 0           0    / 0          3300 / 65536         |", _RULE,
    "| 1     Ascend910           | OK            | -           38                0    / 0             |",
    "| 1     3                   | 0000:9B:00.0  | 0           0    / 0          3100 / 65536         |", _BAR]


def _shape(line: str) -> str:
    """A table line's layout: where its column bars stand, and the rules as they are."""
    return line if line.startswith("+") else re.sub(r"[^|]", ".", line)


def _twin_files(tmp: Path | None = None) -> tuple[str, str]:
    sim = small_pod()
    node = sorted(sim.topology.by_kind["node"])[0]
    sim.telemetry.metrics.set("npu_temp_c", node + "/npu1", 0.0, 71.0)
    event = LogLine(0.0, node + "/npu1", "device_os", "EVENT",
                    fmt.device_os_event(sim.wallclock(0.0), 3, "80E01801", True))  # die 1 of NPU 1 (logic id 3)
    return npu_info(sim, node, 0.0, [], [], mapping=True), npu_info(sim, node, 60.0, [], [event])


def _table(text: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index("/usr/local/bin/npu-smi info")
    j = next(k for k in range(i + 1, len(lines)) if not lines[k])
    return lines[i:j]


def test_the_twins_table_has_the_real_a3_layout_a_row_pair_per_die() -> None:
    _before, after = _twin_files()
    table = _table(after)
    shapes = [_shape(ln) for ln in REAL_A3]
    head = len(REAL_A3) - 12  # the command line, the version and the column heads
    assert [_shape(ln) for ln in table[:head]] == shapes[:head]
    assert {_shape(ln) for ln in table[head:]} <= set(shapes[head:])
    assert table[head + 2] == _RULE and table[head + 5] == _BAR  # a full rule between dies, the bar after the NPU
    rows = [ln for ln in table if ln.startswith("| ") and "Ascend910" in ln]
    assert len(rows) == 16  # 8 NPUs, two dies each
    chips = [ln.split("|")[1].split() for ln in table[head:] if re.match(r"\| \d+\s+\d+\s+\|", ln)]
    assert chips[:4] == [["0", "0"], ["1", "1"], ["0", "2"], ["1", "3"]]  # Chip, then the die's Phy-ID
    assert rows[0].split("|")[3].split()[0] == "NA" and rows[1].split("|")[3].split()[0] == "-"  # power: chip 0's
    assert rows[2].split("|")[3].split()[1] == rows[3].split("|")[3].split()[1] == "71"  # one temperature an NPU
    assert [r.split("|")[2].strip() for r in rows[2:4]] == ["OK", "Critical"]  # the event's die, not its sibling
    assert "910C" not in after


def test_the_before_file_opens_with_the_chip_mapping_as_ascend_fd_reads_it() -> None:
    before, after = _twin_files()
    lines = before.splitlines()
    assert lines[2] == "/usr/local/bin/npu-smi info -m" and "npu-smi info -m" not in after
    table = lines[3:lines.index("", 3)]
    # ascend-fd's ConfigInitializer: after the head, each row split in four, a numeric logic id kept
    got = {(r.split(None, 3)[0], r.split(None, 3)[1]): r.split(None, 3)[2] for r in table[1:]
           if len(r.split()) >= 4 and r.split(None, 3)[2].isdigit()}
    assert got[("1", "1")] == "3" and len(got) == 16
    assert sum(r.split()[-1] == smi.MCU_NAME for r in table) == 8  # an MCU row an NPU, no logic id
    m = chip_map(lines)
    assert m is not None and m.product == A3 and m.logic_of(1, 1) == 3 and "info -m" in m.by


def test_chipmap_reads_the_twins_table_and_a_real_hosts_alike() -> None:
    _before, after = _twin_files()
    for text in (_table(after), REAL_A3):
        m = chip_map(text)
        assert m is not None and m.a3 and m.chips == () and m.die_of(3) == (1, 1)


def test_npu_info_rule_reads_npu_rows_not_chip_rows() -> None:
    """Before session 38 an A3 chip row (``| 1     1     | 0000:9F:00.0  | 0  0 ...``) was read as NPU 1's table
    temperature 0; now only the NPU rows give a temperature, whichever layout."""
    _before, after = _twin_files()
    for text, want in ((REAL_A3, {(0, 41.0), (0, 44.0), (1, 39.0), (1, 38.0)}), (_table(after), None)):
        scan = NpuInfoScan()
        got = [(r.metric_npu, r.value) for r in map(scan.step, text) if r.metric is not None]
        assert len(got) == sum(ln.startswith("| ") and "Ascend910" in ln for ln in text)
        if want is not None:
            assert set(got) == want


def test_collected_outputs_reader_takes_each_npus_worst_die() -> None:
    _before, after = _twin_files()
    for text, temp1 in (("\n".join(REAL_A3), 39.0), ("\n".join(_table(after)), 71.0)):
        got = parse_command_outputs(text + "\n", "worker-0")
        assert set(got.npu_temp_c) == ({0, 1} if temp1 == 39.0 else set(range(8)))
        assert got.npu_temp_c[1] == temp1
    real = parse_command_outputs("\n".join(REAL_A3) + "\n", "worker-0")
    assert real.npu_temp_c[0] == 44.0 and real.npu_health == {0: "Critical", 1: "OK"}
    twin = render_twin_npu_smi(small_pod(), "pod0/node0")
    assert twin is not None and "Chip  Phy-ID" in twin and twin.count("Ascend910") == 16


def test_a_health_row_names_the_npu_and_chip_rows_say_nothing() -> None:
    sigs = [s for ln in REAL_A3 for s in parse_line(ln, 0.0, "worker-0")]
    assert [(s.kind, s.component) for s in sigs] == [("smi:critical", "worker-0/npu0")]


def test_a_real_a3_bundle_keeps_the_hotter_die_as_its_npus_temperature(tmp_path: Path) -> None:
    from opsbrain.bundle import scan_bundle

    env = tmp_path / "b" / "gz-a3-n01" / "environment_check" / "worker-0"
    env.mkdir(parents=True)
    for when in ("before", "after"):
        (env / f"npu_info_{when}.txt").write_text("\n".join(["Datetime: 2025-03-01 09:59:00.123456", "", *REAL_A3,
                                                             ""]) + "\n")
    metrics = scan_bundle(tmp_path / "b").metrics
    temps = {c: v for (name, c), v in metrics.items() if name == "npu_temp_c"}
    assert sorted(temps.values()) == [39.0, 44.0] and all(c.endswith(("/npu0", "/npu1")) for c in temps)
