"""Collected command outputs (npu-smi, hccn_tool) in the layouts the vendor documents: parsed by the ingestion
layer, swept like any source; the twin's nodes rendered in the same layout give the twin's own findings."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.sources import sweep_source
from opsbrain.sources.commands import CommandDirSource, render_twin_npu_smi
from opsbrain.sweeps import SweepParams, run_sweep
from tests.test_sources import T, small_pod, static_faults

SHARED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "ascend-fd-fixtures"
FIXTURE = SHARED / "st_module_testcase" / "kg_parse" / "npu_info_before.txt"


def _optical(dev: int, rx_mw: list[float], snr: list[float], los: int = 0) -> str:
    """``hccn_tool -i N -optical -g`` in the tool's layout (keys as hccn_tool.go reads them)."""
    lines = [f"/usr/local/Ascend/driver/tools/hccn_tool -i {dev} -optical -g", "optical info:",
             "present              : present", "temperature          : 47 C", "Vcc                  : 3262.90 mV"]
    for k, v in enumerate(rx_mw):
        lines += [f"Tx Power{k}            : 1.4140 mW", f"Rx Power{k}            : {v:.4f} mW"]
    lines += [f"Tx Bias{k}             : 7.9360 mA" for k in range(len(rx_mw))]
    lines += [f"Rx Los Flag          : {los:#x}"]
    lines += [f"Media SNR Lane{k}      : {v:.4f} dB" for k, v in enumerate(snr)]
    return "\n".join(lines) + "\n"


def _link_stat(dev: int, downs: list[float]) -> str:
    ctime = time.ctime  # the tool prints C ctime stamps: 'Tue Aug  1 14:43:40 2022'
    now = time.time()
    out = [f"/usr/local/Ascend/driver/tools/hccn_tool -i {dev} -link_stat -g",
           f"[devid {dev}]current time        : {ctime(now)}", f"[devid {dev}]link up count       : {len(downs)}",
           f"[devid {dev}]link change records :"]
    for ts in sorted(downs, reverse=True):
        out += [f"[devid {dev}]    {ctime(ts + 1)}    LINK UP", f"[devid {dev}]    {ctime(ts)}    LINK DOWN"]
    return "\n".join(out) + "\n"


def test_collected_outputs_feed_the_checks(tmp_path: Path) -> None:
    host = tmp_path / "worker-4"
    host.mkdir()
    now = time.time()
    (host / "optical.txt").write_text(
        _optical(0, [1.0, 0.08, 1.0, 1.0], [23.0, 23.0, 23.0, 23.0])       # lane 1 at -11 dBm: Rx alarm
        + _optical(1, [1.0, 1.0, 1.0, 1.0], [23.0, 17.0, 23.0, 23.0])       # lane 1 SNR 17 dB: alarm
        + _optical(2, [1.0, 1.0, 1.0, 1.0], [23.0] * 4, los=0xF))           # every lane LOS: link down
    (host / "link_stat.txt").write_text(_link_stat(3, [now - 3600.0 * k for k in range(1, 6)])  # 5 downs in 24 h
                                        + "/usr/local/Ascend/driver/tools/hccn_tool -i 4 -net_health -g\n"
                                        "net health status: Receive timeout\n")
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", "--dir", str(tmp_path), "--json"],
                             env={"OPSBRAIN_HOME": str(tmp_path / "home")})
    assert res.exit_code == 1, res.output
    got = {(f["component"], f["check"]): f["severity"] for f in json.loads(res.stdout)["findings"]}
    assert got[("worker-4/npu0/port/xcvr", "dom_rx")] == "Alarm"
    assert got[("worker-4/npu1/port/xcvr", "dom_snr")] == "Alarm"
    assert got[("worker-4/npu2/port", "link_light")] == "Critical"
    assert got[("worker-4/npu3/port", "link_downs")] == "Alarm"
    src = CommandDirSource(tmp_path)
    src.collect()
    assert [(s.kind, s.component) for s in src.signals] == [("hccn:net_health_fail", "worker-4/npu4")]


def test_twin_nodes_rendered_as_npu_smi_give_the_twins_findings(tmp_path: Path) -> None:
    sim = small_pod()
    static_faults(sim)
    sim.run(T)
    for node in sorted(sim.topology.by_kind["node"]):
        d = tmp_path / node.replace("/", "-")
        d.mkdir()
        out = render_twin_npu_smi(sim, node)
        assert out is not None  # no host is down here
        (d / "npu-smi.txt").write_text(out)
    p = SweepParams()
    rep = sweep_source(CommandDirSource(tmp_path), p)
    twin = run_sweep(sim, params=p, checks=["npu_temp", "hbm_rows"])
    mine = {(f.component, f.check, f.severity) for f in rep.findings if f.check in ("npu_temp", "hbm_rows")}
    assert mine == {(f.component, f.check, f.severity) for f in twin.findings} and mine


def test_bad_command_dir_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing collected here\n")
    for args, why in ((["--dir", str(tmp_path)], "no npu-smi or hccn_tool output"),
                      (["--dir", str(tmp_path / "missing")], "no such directory"),
                      ([], "needs --dir")):
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", *args],
                                 env={"OPSBRAIN_HOME": str(tmp_path / "home")})
        assert res.exit_code == 2 and why in res.stderr, res.output


@pytest.mark.skipif(not FIXTURE.is_file(), reason="reference fixtures (../shared) not present")
def test_vendor_collection_file_parses() -> None:
    got = parse_command_outputs(FIXTURE.read_text(errors="replace"), "host-a")
    assert got.commands >= 8
    assert 0 not in got.optics  # "present : not present": no module readings
    assert len(got.link_down_times[0]) == 1  # one LINK DOWN record in -link_stat -g
    assert [(s.kind, s.component) for s in got.signals] == [("hccn:net_health_fail", "host-a/npu0")]
    assert os.path.basename(FIXTURE) == "npu_info_before.txt"


def test_real_hccn_tool_and_a3_npu_smi_shapes_are_read(tmp_path: Path) -> None:
    """Shapes a second pair of eyes found dropped (session 26): link records prefixed ``[device N]``, ``link status:
    DOWN``, an optical module printed without lane numbers, and Atlas A3's two rows (dies) per NPU, the hotter die
    kept (MindCluster docs faultdiag/user_guide/03_collecting_logs.md, 01_soft_allocation_scheduling_inference.md)."""
    from opsbrain.ingest.commands import parse_command_outputs

    now = time.time()  # the tool's current time is the outputs' collection time: now, so the findings are current
    text = ("hccn_tool -i 0 -link_stat -g\n"
            f"[device 0]current time        : {time.ctime(now)}\n"
            "[device 0]link change records :\n"
            f"[device 0]    {time.ctime(now - 600)}    LINK DOWN\n"
            f"[device 0]    {time.ctime(now - 1200)}    LINK DOWN\n"
            "hccn_tool -i 4 -link -g\n"
            "link status: DOWN\n"
            "hccn_tool -i 5 -optical -g\n"
            "present              : present\n"
            "Rx Power             : 0.0000 mW\n"
            "Tx Power             : 0.7000 mW\n"
            "Rx Los Flag          : 0xff\n"
            "npu-smi info\n"
            "| 3     Ascend910           | OK            | 180.2       101               0    / 0             |\n"
            "| 0     6                   | 0000:A3:00.0  | 0           0    / 0          3391 / 65536         |\n"
            "| 3     Ascend910           | Alarm         | -           37                0    / 0             |\n"
            "| 1     7                   | 0000:A4:00.0  | 0           0    / 0          3391 / 65536         |\n")
    c = parse_command_outputs(text, "n")
    assert len(c.link_down_times[0]) == 2 and c.link_down == {4: True}
    assert c.optics[5]["rx_dbm"] == [-40.0] and c.optics[5]["tx_dbm"][0] == pytest.approx(-1.549, abs=1e-3)
    assert c.npu_temp_c == {3: 101.0} and c.npu_health == {3: "Alarm"}
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "out.txt").write_text(text)
    rep = sweep_source(CommandDirSource(tmp_path))
    found = {(f.component, f.check, f.severity) for f in rep.findings}
    assert {("n/npu4/port", "link_light", "Critical"), ("n/npu5/port", "link_light", "Critical"),
            ("n/npu3", "npu_temp", "Alarm"), ("n/npu3", "npu_health", "Alarm")} <= found


FAILED_NODE = ("/usr/local/bin/npu-smi info\n"
               "dcmi model initialized failed, because the device is used. ret is -8020\n\n"
               "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g\n"
               "hccn_tool: error while loading shared libraries: libhccn.so: cannot open shared object file: "
               "No such file or directory\n")


def test_a_node_whose_tools_failed_is_not_read_with_the_tools_own_line(tmp_path: Path) -> None:
    """Tester AC (09): a node whose npu-smi and hccn_tool failed was silently absent (OK, not_read empty)."""
    (tmp_path / "gz-trn-c12").mkdir()
    (tmp_path / "gz-trn-c12" / "npu_info_before.txt").write_text(FAILED_NODE)
    (tmp_path / "ok-node").mkdir()
    (tmp_path / "ok-node" / "smi.txt").write_text(_optical(0, [1.0] * 4, [23.0] * 4))
    env = {"OPSBRAIN_HOME": str(tmp_path / "home")}
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", "--dir", str(tmp_path), "--json"], env=env)
    assert res.exit_code == 0, res.output
    not_read = json.loads(res.stdout)["coverage"]["not_read"]
    assert len(not_read) == 1 and not_read[0].startswith("host gz-trn-c12: nothing read, its tools failed")
    assert "ret is -8020" in not_read[0] and "libhccn.so: cannot open shared object file" in not_read[0]
    # only that node: no host read, exit 2 with the tool's line
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", "--dir", str(tmp_path / "gz-trn-c12")],
                             env=env)
    assert res.exit_code == 2 and "ret is -8020" in res.output and "Traceback" not in res.output


def test_a_failing_command_opsbrain_does_not_read_and_a_quiet_link_stat_are_no_failure() -> None:
    text = ("/usr/local/bin/npu-smi info -i 0 -t board\nInvalid card id.\n"
            "/usr/local/Ascend/driver/tools/hccn_tool -i 1 -link_stat -g\n[devid 1]link up count : 0\n"
            "/usr/local/bin/npu-smi info -t ecc -i 2\nError: the device is not exist\n")
    got = parse_command_outputs(text, "n1")
    assert got.failed == [("npu-smi info -t ecc -i 2", "Error: the device is not exist")]


@pytest.mark.parametrize("prompt", ["root@worker-3:~# ", "admin@worker-3:/home/admin$ ", "[root@worker-3 ~]# ",
                                    "[admin@worker-3 logs]$ "])
def test_a_shell_prompt_starts_a_command_of_its_host(prompt: str) -> None:
    """A terminal transcript: the prompt's ``user@host`` names the host whose output follows (before: the line was
    not read as a command and the output went to the command before it, or to none)."""
    text = (f"{prompt}npu-smi info -t health -i 3\n"
            "        Health Status                  : Critical\n"
            "        Error Code                     : 80E01801\n")
    got = parse_command_outputs(text)
    assert got.commands == 1 and got.host == "worker-3" and got.health_status == {3: "Critical"}
    assert got.fault_codes == {3: ["80E01801"]}
    assert all(s.host == "worker-3" for s in got.signals) and got.signals


def test_a_transcript_of_two_hosts_gives_each_its_own_readings(tmp_path: Path) -> None:
    from opsbrain.ingest.commands import parse_command_file

    text = ("root@node-a:~# hccn_tool -i 1 -link -g\nlink status: DOWN\n"
            "root@node-a:~# ls /var/log\nmessages\n"
            "[root@node-b ~]# hccn_tool -i 1 -link -g\nlink status: UP\n")
    parts = {p.host: p for p in parse_command_file(text, "dir-host")}
    assert set(parts) == {"node-a", "node-b"}
    assert parts["node-a"].link_down == {1: True} and parts["node-b"].link_down == {1: False}
    host = tmp_path / "collected"
    host.mkdir()
    (host / "session.log").write_text(text)
    src = CommandDirSource(tmp_path)
    src.collect()
    assert {s.host for s in src.signals if s.kind == "hccn:down"} == {"node-a"}
    assert set(src.collected) == {"node-a", "node-b"}
