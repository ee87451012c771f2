"""Log bundles (issue 9): the twin writes them in the real Ascend layout; opsbrain reads and diagnoses them.

Hand-written bundles in tests/fixtures/bundles (a two-worker cluster without pod ids, a single-worker bundle, a
broken one) always run; symbolic links, binary, oversized and too-deep files are added at run time. The round trip
runs a few fast built-in scenarios (benchmarks/roundtrip_bundles.py runs all of them). Tests with the real vendor
knowledge skip when ../shared/reference/vendor is absent.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.bundle import BundleParams, check_bundle, classify, diagnose_bundle, read_bundle, write_incident_bundle
from opsbrain.bundle import layout as L
from opsbrain.bundle.reader import stamp, syslog_stamp
from opsbrain.bundle.writer import qualify
from opsbrain.cli import cli
from opsbrain.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "bundles"
VENDOR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "vendor"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.fixture(scope="module")
def matcher() -> Any:
    from opsbrain.kb import SignatureMatcher, load_kb

    return SignatureMatcher(load_kb())


# ---- names and time stamps ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rel", "kind", "worker", "extra"), [
    ("pod0-node3/messages", L.MESSAGES, "pod0-node3", None),
    ("w1/var/log/messages-20250301", L.MESSAGES, "w1", None),
    ("w1/messages.gz", None, None, None),
    # Debian / Ubuntu hosts: rsyslog's syslog and kern.log and their rotations
    ("w1/var/log/kern.log", L.MESSAGES, "w1", None),
    ("w1/var/log/syslog.1", L.MESSAGES, "w1", None),
    ("w1/kern.log.2", L.MESSAGES, "w1", None),
    ("w1/syslog.txt", L.TRAIN, "w1", L.UNNAMED_CONSOLE),  # a text log of no known name: read as a console
    # serving and tooling logs, named as ascend-fd's parse finds them (its kg_parse test input's directories)
    ("w1/mindie/log/debug/mindie-ms_11_202411061400.log", L.OTHER, "w1", "mindie"),
    ("w1/mindie/log/debug/mindie-cert_11_202411061400.log", None, None, None),
    ("w1/pymotor_vllm/vllm-p0-cbf7496f5-qc255_node-97-40.log", L.OTHER, "w1", "vllm"),
    ("w1/pymotor_vllm/mindie-motor-controller_1.log", L.OTHER, "w1", "vllm"),
    ("w1/ttp_log/ttp_log.log.1", L.OTHER, "w1", "mindio"),
    ("w1/amct_log/amct_onnx.log", L.OTHER, "w1", "amct"),
    ("w1/device-os_20231031164139951.log", L.DEVICE_OS, "w1", None),
    # msnpureport's export directory (its run time) wraps the device logs, names no worker
    ("w1/20250619092715/slog/dev-os-0/debug/device-0/device-0_20250619092715212.log", L.DEVICE_OS, "w1", 0),
    ("w1/20250619092715/hisi_logs/device-3/history.log", L.HISTORY, "w1", 3),
    ("w1/2025-03-01-10-06-00/hisi_logs/device-3/history.log", L.HISTORY, "w1", 3),  # a dated folder names no host
    ("w1/20250619092715/message/dev-os-5/syslog", L.MESSAGES, "w1", 5),  # msnpureport's device-side syslog
    ("w1/20250619092715/message/syslog", L.MESSAGES, "w1", None),
    ("n/var/log/npu/slog/run/event/event_20231031164139951.log", L.DEVICE_OS, "n", None),  # the host's own slog
    ("n/var/log/npu/slog/debug/device-0/device-0_20231031164139951.log", L.DEVICE_OS, "n", 0),
    ("n/output/log/rank_0/error.log", L.TRAIN, "n", L.UNNAMED_CONSOLE),  # MindFormers' per-rank logs
    ("n/output/msrun_log/worker_0.log", L.TRAIN, "n", L.UNNAMED_CONSOLE),
    ("n/var/log/ascend_seclog/ascend_install.log", L.TRAIN, "n", L.UNNAMED_CONSOLE),
    ("n/var/log/mindie-ms/run/log.txt", L.TRAIN, "n", L.UNNAMED_CONSOLE),  # MindIE MS's own log
    ("cluster/kubectl_get_events.txt", L.TRAIN, "cluster", L.UNNAMED_CONSOLE),
    # MindCluster's collection layout spells kdump's file with an underscore
    ("w1/crash/127.0.0.1-2024-09-23-11:25:29/vmcore_dmesg.txt", L.VMCORE, "w1", "127.0.0.1-2024-09-23-11:25:29"),
    ("w1/dmesg", L.DMESG, "w1", None),
    ("w1/rank-12.log", L.TRAIN, "w1", None),
    ("w1/worker-0.txt", L.TRAIN, "w1", None),
    ("w1/process_log/run/plog/plog-1234_20250301000000000.log", L.PLOG, "w1", 1234),
    ("w1/process_log/debug/plog/plog-99_1.log", L.PLOG, "w1", 99),
    ("w1/process_log/run/plog/plog-x_1.log", None, None, None),
    ("w1/device_log/slog/dev-os-5/run/device-os/device-os_20250301000000000.log", L.DEVICE_OS, "w1", 5),
    ("w1/device_log/hisi_logs/device-2/history.log", L.HISTORY, "w1", 2),
    ("w1/environment_check/npu_info_after.txt", L.NPU_INFO, "w1", "after"),
    ("w1/mindx-dl/devicePlugin/devicePlugin.log", L.DEVICE_PLUGIN, "w1", None),
    ("switch/pod0-l2plane3-sw07/logfile/log.log", L.SWITCH, None, "pod0-l2plane3-sw07"),
    ("cluster/mindx-dl/clusterd/clusterd.log", L.CLUSTERD, None, None),
    ("cluster/jobs/serve/decode0/rank_table.json", L.RANK_TABLE, None, "serve/decode0"),
    ("messages", L.MESSAGES, "", None),
    ("w1/notes.txt", L.TRAIN, "w1", L.UNNAMED_CONSOLE),
    ("w1/process_log/run/plog/notes.txt", None, None, None),  # a name unknown inside the layout's directories
    ("llama-worker-3_previous.log", L.TRAIN, "llama-worker-3", None),  # kubectl logs dumps: the pod is the worker
    ("dumps/llama-worker-3.log", L.TRAIN, "dumps", None),
    # real layouts (ascend-fd fixtures, issue 14 item 7)
    ("w1/dl_log/devicePlugin/devicePlugin-2024-01-10T03-30-45.197.log", L.DEVICE_PLUGIN, "w1", None),
    ("w1/dl_log/noded/noded.log", L.NODED, "w1", None),
    ("w1/dl_log/npu-exporter/npu-exporter.log", L.MINDCLUSTER, "w1", "npu-exporter"),
    ("w1/dl_log/volcano-scheduler/volcano-scheduler.log", L.VOLCANO, "w1", "volcano-scheduler"),
    ("w1/process_log/rank_3/plog/plog-77_20250301000000000.log", L.PLOG, "w1", 77),
    ("job/ascend/process_log/debug/device-0/device-10972_20230131024824126.log", L.CANN_DEVICE, "job", 10972),
    ("w1/device_log/slog/dev-os-3/device-0/device-0_20230607152210099.log", L.DEVICE_OS, "w1", 0),
    # msnpureport's export of the device's own slog with its level directory (ascend-fd's toolkit reads
    # slog/dev-os-N/debug/device-N/device-N*.log as the device log): the device's, not a host process's CANN log
    ("w1/device_log/slog/dev-os-3/debug/device-3/device-3_20230607152210099.log", L.DEVICE_OS, "w1", 3),
    ("w1/device_log/slog/dev-os-3/debug/device-os/device-os_20230607152207758.log", L.DEVICE_OS, "w1", 3),
    ("w1/device_log/slog/host/host_kernel.log", L.HOST_KERNEL, "w1", None),
    ("w1/device_log/hisi_logs/device-1/20241204162140-590391000/log/kernel.log", L.HISI_DUMP, "w1", 1),
    ("w1/device_log/hisi_logs/device-0/20230713162044-070000011/bbox/driver.txt", L.HISI_DUMP, "w1", 0),
    ("job/ascend/environment_check/worker-0/npu_info_before.txt", L.NPU_INFO, "job", "before"),
    ("job/ascend/environment_check/worker-0/npu_3_details.csv", L.ENV_TABLE, "job", None),
    ("lcne_log/log_1_20250814013158.log", L.SWITCH, None, None),
    ("lcne_log/pod0-l2plane3-sw07/log.log", L.SWITCH, None, "pod0-l2plane3-sw07"),
    ("w1/vmcore-dmesg.txt", L.VMCORE, "w1", None),
    ("kg/plog-10972_20230131024824126.log", L.PLOG, "kg", 10972),
    # CANN's own log directory copied as it is ($HOME/ascend/log: ASCEND_PROCESS_LOG_PATH's default)
    ("w1/ascend/log/debug/plog/plog-77_20250301000000000.log", L.PLOG, "w1", 77),
    ("w1/ascend/log/run/device-2/device-77_20250301000000000.log", L.CANN_DEVICE, "w1", 77),
    ("log/debug/plog/plog-77_20250301000000000.log", L.PLOG, "", 77),
])
def test_files_are_recognised_by_name(rel: str, kind: str | None, worker: str | None, extra: Any) -> None:
    fk = classify(rel)
    if kind is None:
        assert fk is None
        return
    assert fk is not None and fk.kind == kind and fk.worker == worker
    if extra is not None:
        assert extra in (fk.pid, fk.device, fk.tag)


def test_the_reader_keeps_no_detection_or_diagnosis_of_its_own() -> None:
    import ast

    src = (Path(__file__).resolve().parents[1] / "opsbrain" / "bundle" / "reader.py").read_text()
    mods = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module} | {
        a.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in mods if m.startswith(("opsbrain.detection", "opsbrain.diagnosis"))}


def test_real_time_stamps_of_the_new_sources() -> None:
    from opsbrain.bundle.reader import dir_stamp, klog_stamp

    assert stamp("[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] x", "slog") == \
        datetime(2025, 4, 16, 3, 8, 13, 704312)
    assert stamp("Jul 31 2025 18:36:19+08:00 Z3_22R_99_30 %%01DEVM/1/x", "iso") == datetime(2025, 7, 31, 18, 36, 19)
    assert klog_stamp("E0111 03:29:15.700191       1 x.go:1] y", datetime(2025, 1, 20)) == \
        datetime(2025, 1, 11, 3, 29, 15, 700191)
    assert dir_stamp("20230713162044-070000011") == datetime(2023, 7, 13, 16, 20, 44) and dir_stamp("x") is None


def test_time_stamps_of_every_layout() -> None:
    assert stamp("[ERROR] DRV(1,d):2025-03-01-10:03:20.123.456 [f.c:1][dev3]x", "slog") == \
        datetime(2025, 3, 1, 10, 3, 20, 123456)
    assert stamp("[WARN ] 2025/03/01 10:03:20.500000 1  a.go:1  x", "hwlog") == datetime(2025, 3, 1, 10, 3, 20, 500000)
    assert stamp("[Sat Mar  1 10:03:20 2025] x", "ctime") == datetime(2025, 3, 1, 10, 3, 20)
    assert stamp("[2025-03-01 10:03:20,123] [INFO] x", "iso") == datetime(2025, 3, 1, 10, 3, 20, 123000)
    assert stamp("[ERROR] DRV(1,d):2025-13-01-10:03:20.123.456 x", "slog") is None  # month 13
    # syslog has no year: the one closest to the rest of the bundle, across a new year too
    new_year = datetime(2025, 1, 1, 0, 0, 5)
    assert syslog_stamp("Dec 31 23:59:59 h kernel: x", new_year) == datetime(2024, 12, 31, 23, 59, 59)
    assert syslog_stamp("Mar  1 10:00:00 h kernel: x", datetime(2025, 3, 1)) == datetime(2025, 3, 1, 10)
    assert syslog_stamp("Foo 99 25:61:00 h kernel: x", datetime(2025, 3, 1)) is None


def test_job_event_names_round_trip() -> None:
    from opsbrain.bundle.reader import _unqualify

    detail = {"node": "pod0/node7", "component": "pod0/node7/npu4", "replace": {"pod0/node38": "pod0/node46"},
              "nodes": ["pod0/node2", "pod0/node3"], "instance": "serve/prefill1", "rank": 3}
    q = qualify(detail)
    assert q["component"] == "pod0-node7/npu4" and q["nodes"] == ["pod0-node2", "pod0-node3"]
    assert _unqualify(json.loads(json.dumps(q)), {}) == detail


# ---- hand-written bundles in the real layout -------------------------------------------------------------------------
def test_real_cluster_bundle_without_pod_ids(engine: Any, matcher: Any) -> None:
    rep = diagnose_bundle(FIX / "hbm-uce-real", engine, matcher)
    workers = {w["dir"]: w for w in rep["workers"]}
    assert workers["worker-0"]["internal_node"] == "pod0/node0" and workers["worker-1"]["internal_node"] == "pod0/node1"
    assert workers["worker-0"]["named_by"] == "sorted order" and workers["worker-0"]["hosts"] == ["ascend-a01"]
    assert workers["worker-0"]["ips"] == ["192.168.10.11"]
    proc = {p["pid"]: p for p in rep["processes"]}
    assert proc[23456]["device"] == 3 and proc[23456]["rank"] == 3 and proc[23456]["internal_node"] == "pod0/node0"
    d = rep["diagnosis"]
    # the host as the bundle names it (its syslog's), the reader's numbering kept apart (session 32)
    assert (d["fault_class"], d["component"]) == ("hbm_uce", "ascend-a01/npu3/hbm")
    assert d["internal_component"] == "pod0/node0/npu3/hbm"
    # evidence names the real file and line
    inc = next(i for i in rep["incidents"] if i["id"] == rep["primary"])
    # worker-0 only numbers it; its syslog names it (session 31); keyed by that name, the reader's id apart (session 33)
    assert inc["nodes"] == ["ascend-a01"] and inc["internal_nodes"] == {"ascend-a01": "pod0/node0"}
    assert workers["worker-0"]["name"] == "ascend-a01" and d["root"]["host"] == "ascend-a01"
    files = {(e["file"], e["line"]) for e in inc["evidence_lines"]}
    assert ("worker-0/device_log/slog/dev-os-3/run/device-os/device-os_20250301100000000.log", 2) in files
    assert any(ev.startswith("worker-0/process_log/run/plog/plog-23456_") and ":2: " in ev for ev in d["evidence"])
    # kernel line in messages and dmesg, the event in slog and history, the old link record twice: read once
    assert rep["lines"]["duplicates"] == 3
    assert rep["skipped"] == [{"path": "README.md", "reason": "unknown file (not a source of facts.md §7)"}]
    assert any(k["code"] == "80E01801" for k in rep["knowledge"])
    # metrics from npu_info_after.txt reach the diagnosis inputs
    assert rep["metrics"] == 2


def test_single_worker_bundle_link_down_from_hccn_records(engine: Any) -> None:
    rep = diagnose_bundle(FIX / "roce-down-single", engine)
    assert [w["dir"] for w in rep["workers"]] == ["."]
    d = rep["diagnosis"]
    # a real host's devid 4 is NPU 4's one RoCE port (the twin's two-ports-per-NPU numbering read it as npu2/roce0
    # until session 28: the reader's pod0/node0 id for the host looked like the twin's)
    assert (d["fault_class"], d["component"], d["internal_component"]) == ("roce_port_down", "ascend-b07/npu4",
                                                                           "pod0/node0/npu4")
    assert (d["root"]["host"], d["root"]["device"]) == ("ascend-b07", 4)  # its syslog's host, not the bundle's name
    states = {x["when"]: x["state"] for x in rep["link_state"]}
    assert states == {"before": {4: "UP"}, "after": {4: "DOWN"}}


def test_link_up_before_and_down_after_without_a_record_is_a_link_down(tmp_path: Path, engine: Any) -> None:
    b = tmp_path / "b"
    shutil.copytree(FIX / "roce-down-single", b)
    after = b / "environment_check" / "npu_info_after.txt"
    after.write_text("\n".join(ln for ln in after.read_text().splitlines() if "10:00:00 2025    LINK DOWN" not in ln))
    lines, _rep = read_bundle(b)
    synth = [ln for ln in lines if ln.source == "hccn" and "LINK DOWN" in ln.text]
    assert len(synth) == 1 and synth[0].file == "environment_check/npu_info_after.txt"
    assert diagnose_bundle(b, engine)["diagnosis"]["internal_component"] == "pod0/node0/npu4"


def test_broken_bundle_is_read_with_everything_listed(tmp_path: Path, engine: Any) -> None:
    b = tmp_path / "broken"
    shutil.copytree(FIX / "broken", b)
    w = b / "worker-0"
    (w / "dmesg").write_bytes(b"\x00\x01\x02\x7fELF" * 400)                       # binary junk: refused
    (w / "rank-1.log").symlink_to("/etc/passwd")                                  # symlink: refused
    (w / "process_log" / "run" / "plog" / "plog-777_20250301000000000.log").write_text("x" * 5000)  # oversized
    with (w / "rank-0.log").open("a") as fh:                                      # junk lines: malformed
        fh.write("[2025-03-01 10:00:02,000] [ERROR] \x00\x00\x00\x00 binary in a text log\n")
        fh.write("\ufffd\ufffd\ufffd\ufffd\ufffd\n")
    deep = b.joinpath(*[f"d{i}" for i in range(12)])
    deep.mkdir(parents=True)
    (deep / "messages").write_text("Mar  1 10:00:00 deep kernel: Kernel panic - not syncing\n")
    rep = diagnose_bundle(b, engine, params=BundleParams(max_file_bytes=4096))
    refused = {x["path"]: x["reason"] for x in rep["refused"]}
    assert "binary" in refused["worker-0/dmesg"]
    assert "symbolic link" in refused["worker-0/rank-1.log"]
    assert "over the 4096-byte limit" in refused["worker-0/process_log/run/plog/plog-777_20250301000000000.log"]
    assert any("deeper than 10" in r for r in refused.values())
    assert {x["path"] for x in rep["skipped"]} == {"notes.txt", "worker-0/environment_check/notes.md",
                                                   "worker-0/process_log/run/plog/plog-abc_123.log"}
    assert rep["read_as_console"] == []  # a note at the root beside worker directories is no host's console
    assert rep["lines"]["malformed"] == 2
    assert rep["lines"]["untimed"] >= 4  # two impossible syslog stamps, a bare line, month 13, garbage time, ...
    kinds = {k for i in rep["incidents"] for k in i["kinds"]}
    assert {"os:panic", "dev:80E01801"} <= kinds  # the good lines still count
    assert rep["incidents"][0]["opened_at"] == "2025-03-01T10:00:00"


def test_not_a_directory_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):  # session 42: said as --logs says it
        read_bundle(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError):
        read_bundle(tmp_path / "f")
    (tmp_path / "link").symlink_to(FIX / "broken")
    with pytest.raises(InputError, match="symbolic link"):
        read_bundle(tmp_path / "link")


def test_an_empty_bundle_is_refused_and_one_of_unknown_files_abstains(tmp_path: Path, engine: Any) -> None:
    # an empty directory is no collection (tester U, session 30: it answered "unknown", exit 0; the sweep side
    # refuses empty input too)
    with pytest.raises(InputError, match="no file in the bundle"):
        diagnose_bundle(tmp_path, engine)
    (tmp_path / "README.txt").write_text("collected by hand\n")
    rep = diagnose_bundle(tmp_path, engine)
    assert rep["incidents"] == [] and rep["diagnosis"]["fault_class"] == "unknown"
    # (session 41: README.txt is skipped by name, as --logs DIR skips it, not read as a console of 1 line)
    assert rep["diagnosis"]["evidence"][0].startswith("no fault found: no known fault signal in 0 lines")
    assert [x["path"] for x in rep["skipped"]] == ["README.txt"]


# ---- the twin writes bundles; they parse back to the same diagnoses ------------------------------------------------
@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory, engine: Any) -> dict[str, Any]:
    """hbm-uce-training run through the chaos library with a run store and run-time bundles."""
    from opsbrain import chaos
    from opsbrain.store import RunStore

    home = tmp_path_factory.mktemp("home")
    bundles = tmp_path_factory.mktemp("bundles")
    journal = chaos.run(chaos.plan("hbm-uce-training"), store=RunStore(home), bundle_dir=bundles, home=home)
    return {"home": home, "bundles": bundles, "journal": journal}


def test_bundle_folders_do_not_say_which_incident_was_injected(stored_run: dict[str, Any]) -> None:
    """The journal ids (``f0001`` an injected fault, ``i0002`` an incident of no fault) name no bundle folder: the
    folders are a neutral sequence in the journal's order, and only the sidecar beside each says which journal
    incident it holds (session 33; before, ``bundles/f0001/`` told a reader the ground truth)."""
    j = stored_run["journal"]
    ids = [i["id"] for i in j["incidents"]]
    assert any(i.startswith("f") for i in ids) and any(i.startswith("i") for i in ids)  # both kinds in this run
    folders = sorted(p.name for p in stored_run["bundles"].iterdir() if p.is_dir())
    assert folders == [f"b{n:04d}" for n in range(1, len(ids) + 1)]
    assert [b["bundle"] for b in j["bundles"]] == folders and [b["incident"] for b in j["bundles"]] == ids
    for b in j["bundles"]:
        side = json.loads((stored_run["bundles"] / f"{b['bundle']}.sim.json").read_text())
        assert side["incident"]["id"] == b["incident"]  # the round trip's mapping, outside the bundle
        assert not any(i in p.name for p in Path(b["path"]).rglob("*") for i in ids)


def test_bundle_layout_written_at_run_time(stored_run: dict[str, Any]) -> None:
    j = stored_run["journal"]
    assert [b["incident"] for b in j["bundles"]] == [i["id"] for i in j["incidents"]]
    root = stored_run["bundles"] / "b0001"
    node = root / "pod0-node35"
    # npu3's HBM reports through its die 0, A3 logical device 6 (session 37: the folders name logical devices)
    devos = list((node / "device_log" / "slog" / "dev-os-6" / "run" / "device-os").iterdir())
    assert len(devos) == 1 and re.fullmatch(r"device-os_\d{17}\.log", devos[0].name)
    assert "[fault_manager][" in devos[0].read_text() and "event_id=0x80e01801;" in devos[0].read_text()
    # the black box's record of the UCE (0xA8028802, hicann/driver dms_event_distribute_proc.c:29), in its layout
    hist = (node / "device_log" / "hisi_logs" / "device-6" / "history.log").read_text()
    assert re.fullmatch(r"\[[\d\-:.]+\] system exception code \[0xA8028802\]: ModuleName \[DRIVER\], ExceptionReason "
                        r"\[DRIVER_EXCEPTION\], TimeStamp \[\d{14}-\d{9}\]\.\n", hist), hist
    plogs = {p.name.split("_")[0]: p for p in (node / "process_log" / "run" / "plog").iterdir()}
    assert len(plogs) == 8  # one process per NPU of the training job on the node
    from faultlib.telemetry import formats as fmt

    text = plogs[f"plog-{fmt.pid_of('pod0/node35/npu3')}"].read_text().splitlines()
    assert "hcom init by file success" in text[0] and "device[6]" in text[0] and "rank[27]" in text[0]
    assert any("ErrCode=507053" in ln for ln in text)
    assert "507053" in (node / "rank-27.log").read_text()
    assert "receive devFaultInfo: common.DevFaultInfo{EventID:2162169857, LogicID:6, " in (
        node / "dl_log" / "devicePlugin" / "devicePlugin.log").read_text()
    assert not (root / "cluster" / "dl_log" / "clusterd").exists()  # no program prints the twin's job-event line
    table = json.loads((root / "cluster" / "jobs" / "train" / "rank_table.json").read_text())
    assert int(table["server_count"]) == 14
    info = (node / "environment_check" / "npu_info_after.txt").read_text().splitlines()
    assert re.fullmatch(r"Datetime: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}", info[0])  # as real collections open
    # ascend-fd cuts the file into one snippet per command at the command's path prefix ("/usr/local"; its
    # npu_info_parser COMMAND_PREFIX_SET): every hccn_tool / npu-smi command must start a snippet
    cmds = [ln for ln in info if ("hccn_tool" in ln or "npu-smi" in ln) and not ln.startswith(("|", "+"))]
    assert cmds and all(ln.startswith(("/usr/local/Ascend/driver/tools/hccn_tool -i ", "/usr/local/bin/npu-smi info"))
                        for ln in cmds)
    assert all(info[i - 1] == "" for i, ln in enumerate(info) if ln in cmds and i > 1)
    assert any(ln.startswith("| npu-smi ") and "Version: " in ln for ln in info)  # ascend-fd's NpuSmiInfoParser
    assert (node / "environment_check" / "npu_info_before.txt").exists()
    # time stamps consistent across files: the processes' HCCL init lines (at the window's start) come before every
    # other line (no closing plog line: the writer's former 'process log flushed' is in no CANN source)
    lines, rep = read_bundle(root)
    plog_t = [ln.t for ln in lines if ln.source == "plog"]
    assert all(min(plog_t) <= ln.t for ln in lines if ln.source != "hccn")
    assert rep["time_origin"] == "2025-03-01T00:00:00"  # the manifest's epoch: t is simulated seconds
    assert not any(ln.job for ln in lines)  # no job events: the crash shows in the rank's own console
    crash = next(ln for ln in lines if ln.source == "train" and "507053" in ln.text)
    assert crash.t == pytest.approx(600.0, abs=5.0) and crash.origin == "pod0/node35"
    # the noise incident's bundle holds the switch chips' logs
    assert (stored_run["bundles"] / "b0002" / "lcne_log" / "pod0-node26-l1sw0" / "log.log").exists()
    assert not any(p.name in ("mindx-dl", "switch") for p in root.rglob("*"))  # the names ascend-fd looks for


def test_run_time_bundles_parse_back_to_the_same_diagnoses(stored_run: dict[str, Any], engine: Any) -> None:
    for b in stored_run["journal"]["bundles"]:
        chk = check_bundle(b["path"], engine)
        assert chk["comparisons"], b
        assert chk["same"], chk["comparisons"]
    f = next(i for i in stored_run["journal"]["incidents"] if i["id"] == "f0001")
    rep = diagnose_bundle(stored_run["bundles"] / "b0001", engine)
    assert (rep["diagnosis"]["fault_class"], rep["diagnosis"]["component"]) == \
        (f["diagnosis"]["fault_class"], f["diagnosis"]["component"])


@pytest.mark.parametrize("scenario", ["hbm-overtemp-inference", "link-down-training"])
def test_round_trip_of_fault_bundles(scenario: str, tmp_path: Path, engine: Any,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Two controller incidents of one fault, metrics from npu-smi output (over-temperature); switch logs and the
    job stall that tells a link down from a self-healing flap (link down)."""
    import opsbrain.runner.run as rr
    from opsbrain import chaos

    worlds: list[Any] = []
    build = rr.build_world
    monkeypatch.setattr(rr, "build_world", lambda *a, **k: worlds.append(build(*a, **k)) or worlds[-1])
    journal = rr.run_plan(chaos.plan(scenario), engine)
    faults = [i for i in journal["incidents"] if i["injected"]]
    assert faults
    for entry in faults:
        write_incident_bundle(worlds[0], entry, tmp_path / entry["id"])
        chk = check_bundle(tmp_path / entry["id"], engine)
        assert len(chk["comparisons"]) == len(entry["incident_ids"])
        assert chk["same"], chk["comparisons"]


def test_a_panic_is_left_where_kdump_leaves_it(tmp_path: Path, engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A node crash's panic line is in ``crash/<ip>-<time>/vmcore-dmesg.txt`` (where kdump writes it and ascend-fd's
    host-OS parser looks), never in ``messages`` or ``dmesg``; the bundle still diagnoses to the same crash."""
    import opsbrain.runner.run as rr
    from opsbrain import chaos

    worlds: list[Any] = []
    build = rr.build_world
    monkeypatch.setattr(rr, "build_world", lambda *a, **k: worlds.append(build(*a, **k)) or worlds[-1])
    journal = rr.run_plan(chaos.plan("node-crash-inference"), engine)
    entry = next(i for i in journal["incidents"] if i["injected"] and i["injected"]["kind"] == "node_crash")
    write_incident_bundle(worlds[0], entry, tmp_path / "b")
    dumps = sorted((tmp_path / "b").glob("*/crash/*/vmcore-dmesg.txt"))
    assert len(dumps) == 1, dumps
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+-\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d", dumps[0].parent.name)
    assert "Kernel panic - not syncing" in dumps[0].read_text()
    for f in (tmp_path / "b").glob("*/*"):
        if f.name in ("messages", "dmesg"):
            assert "Kernel panic" not in f.read_text(), f
    chk = check_bundle(tmp_path / "b", engine)
    assert chk["same"], chk["comparisons"]


def test_write_refuses_a_non_empty_directory(stored_run: dict[str, Any]) -> None:
    from faultlib.engine import Simulation
    from opsbrain.bundle import write_bundle

    with pytest.raises(InputError, match="refusing to overwrite"):
        write_bundle(stored_run["bundles"] / "b0001", Simulation(), start_s=0, end_s=1, nodes=[])


# ---- the CLI ---------------------------------------------------------------------------------------------------------
def test_cli_diagnose_bundle_json_and_text(tmp_path: Path) -> None:
    runner = CliRunner()
    home = ["--data-dir", str(tmp_path)]
    res = runner.invoke(cli, ["diagnose", "--bundle", str(FIX / "hbm-uce-real"), "--json", *home])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["diagnosis"]["fault_class"] == "hbm_uce"
    assert data["incidents"][0]["evidence_lines"][0]["file"].startswith("worker-0/")
    res = runner.invoke(cli, ["diagnose", "--bundle", str(FIX / "broken"), *home])
    assert res.exit_code == 0, res.output
    assert "skipped notes.txt" in res.stdout and "worker worker-0 (named ascend-c03" in res.stdout


@pytest.mark.parametrize("args", [["diagnose"], ["diagnose", "x.json", "--bundle", "d"],
                                  ["diagnose", "--logs", "f", "--bundle", "d"]])
def test_cli_diagnose_needs_exactly_one_input(args: list[str]) -> None:
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and ("exactly one of INCIDENT_FILE, --logs FILE or --bundle DIR" in res.stderr
                                   or "--bundle reads one bundle" in res.stderr)


def test_cli_runs_bundle_regenerates_identical_bundles(stored_run: dict[str, Any], tmp_path: Path) -> None:
    runner = CliRunner()
    run_id = stored_run["journal"]["run_id"]
    out = tmp_path / "out"
    res = runner.invoke(cli, ["runs", "bundle", run_id, "--incident", "f0001", "--out", str(out),
                              "--data-dir", str(stored_run["home"]), "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["reproduced"] and [b["incident"] for b in rep["bundles"]] == ["f0001"]
    assert sorted(p.name for p in out.iterdir()) == ["b0001", "b0001.sim.json"]  # the round trip's sidecar too
    a, b = stored_run["bundles"] / "b0001", out / "b0001"
    assert (out / "b0001.sim.json").read_bytes() == (stored_run["bundles"] / "b0001.sim.json").read_bytes()
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)  # deterministic re-run
    res = runner.invoke(cli, ["runs", "bundle", run_id, "--out", str(out), "--data-dir", str(stored_run["home"])])
    assert res.exit_code == 2 and "refusing to overwrite" in res.stderr
    res = runner.invoke(cli, ["runs", "bundle", run_id, "--incident", "f9999", "--out", str(out),
                              "--data-dir", str(stored_run["home"])])
    assert res.exit_code == 2 and "no incident 'f9999'" in res.stderr
    res = runner.invoke(cli, ["runs", "bundle", "no-such-run", "--out", str(out),
                              "--data-dir", str(stored_run["home"])])
    assert res.exit_code == 2


# ---- vendor knowledge (skipped without the shared reference files) ---------------------------------------------------
def test_bundle_with_imported_vendor_knowledge(tmp_path: Path, engine: Any) -> None:
    if not (VENDOR / "kg-config.json").exists():
        pytest.skip("vendor reference files not present")
    from opsbrain.kb import SignatureMatcher, import_faultcode, import_kg, load_imported, load_kb

    kg = import_kg(VENDOR / "kg-config.json", tmp_path)
    fc = import_faultcode(VENDOR / "faultCode.json", tmp_path)
    assert kg.imported > 1000 and fc.imported > 700
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path))
    rep = diagnose_bundle(FIX / "roce-down-single", engine, matcher)
    vendor = [k for k in rep["knowledge"] if k["source"] == "imported"]
    assert any(k["code"] == "81078603" and k["cause"] and k["first"].startswith("device_log/") for k in vendor)
    inc = rep["incidents"][0]
    assert any(k["source"] == "imported" for k in inc["knowledge"])


def test_a_bundle_whose_only_known_line_is_a_vendor_entry_takes_the_mapped_class(tmp_path: Path, engine: Any) -> None:
    # as diagnose --logs does (issue 14): the kernel's kbox vmalloc dump matches only the imported knowledge-graph
    # entry Comp_OS_Kernel_Mem_06 (insufficient memory, page memory leakage), which vendor_map.yaml maps to npu_oom
    if not (VENDOR / "kg-config.json").exists():
        pytest.skip("vendor reference files not present")
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(VENDOR / "kg-config.json", tmp_path / "imports")
    bundle = tmp_path / "b" / "worker-0"
    bundle.mkdir(parents=True)
    (bundle / "messages").write_text(
        "Mar 15 03:40:50 node-a kernel: [16794.226248] [kbox] Vmallocinfo Start >>>>>>>>>>>>>\n"
        "Mar 15 03:40:50 node-a kernel: [16794.236105] [kbox] vmalloc info num over SHOW_MAX_LINE=3000!\n",
        encoding="utf-8")
    with_kg = SignatureMatcher(load_kb(), load_imported(tmp_path / "imports"))
    without = SignatureMatcher(load_kb(), [])
    assert diagnose_bundle(tmp_path / "b", engine, without)["diagnosis"]["fault_class"] == "unknown"
    for rep in (diagnose_bundle(tmp_path / "b", engine, with_kg), diagnose_logs(str(tmp_path / "b"), engine, with_kg)):
        d = rep["diagnosis"]
        assert d["fault_class"] == "npu_oom" and any(r["kind"] == "vendor:npu_oom" for r in d["evidence_lines"])
    assert diagnose_bundle(tmp_path / "b", engine, with_kg)["diagnosis"]["root"]["host"] == "node-a"  # its syslog's


def _kg_matcher(tmp_path: Path) -> Any:
    """A matcher with MindCluster's knowledge graph imported (the test skips without the shared reference files)."""
    if not (VENDOR / "kg-config.json").exists():
        pytest.skip("vendor reference files not present")
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(VENDOR / "kg-config.json", tmp_path / "imports")
    return SignatureMatcher(load_kb(), load_imported(tmp_path / "imports"))


def test_vendor_entries_vote_with_the_signals_of_the_incident_the_verdict_rests_on(tmp_path: Path,
                                                                                     engine: Any) -> None:
    # where the incident with the most errors abstains, the verdict rests on the clearest documented incident, a copy
    # of its row: its own signals (an HBM UCE, device-os event_id=0x80e01801) answer, so only entries of that class
    # join (oneclick.vendor_votes); another host's kbox vmalloc dump (Comp_OS_Kernel_Mem_06, mapped to npu_oom) was
    # read as the only evidence and turned the hbm_uce verdict into npu_oom
    from types import SimpleNamespace

    from opsbrain.bundle.diagnose import _vendor_verdict
    from opsbrain.bundle.records import BundleLine
    from opsbrain.ingest.signal import Signal

    m = _kg_matcher(tmp_path)
    texts = ["Mar 15 03:40:50 node-a kernel: [16794.226248] [kbox] Vmallocinfo Start >>>>>>>>>>>>>",
             "Mar 15 03:40:50 node-a kernel: [16794.236105] [kbox] vmalloc info num over SHOW_MAX_LINE=3000!"]
    lines = [BundleLine(50.0 + k, "worker-2", "syslog", None, t, "worker-2/messages", k + 1, None)
             for k, t in enumerate(texts)]
    own = [Signal(100.0 + k, "dev:80E01801", "worker-1/npu3", "worker-1", 2, "HBM MULTI BIT ECC, Uncorrectable "
                  "ECC, device_id=3, event_id=0x80e01801") for k in range(2)]
    d = engine.diagnose_signals(own, 101.0)
    assert d.fault_class == "hbm_uce"
    rows = [{"id": "b0001", "diagnosis": None, "evidence_lines": []},
            {"id": "b0002", "diagnosis": d.as_dict(), "evidence_lines": []}]
    incs = [SimpleNamespace(signals=[], nodes={"worker-0"}), SimpleNamespace(signals=own, nodes={"worker-1"})]
    documented = {**rows[1], "diagnosis": dict(rows[1]["diagnosis"])}
    voted = _vendor_verdict(incs, rows, documented, m.match_lines(texts, None), lines, m, engine)
    assert voted is None or voted["diagnosis"]["fault_class"] == "hbm_uce"


def test_a_vendor_entry_of_another_host_does_not_place_the_fault_on_the_incidents_node(tmp_path: Path,
                                                                                        engine: Any) -> None:
    # the incident (worker-0) abstains; the kbox vmalloc dump that decides (Comp_OS_Kernel_Mem_06 -> npu_oom) is in
    # worker-2's messages: the verdict named worker-0, whose logs hold no such line
    from types import SimpleNamespace

    from opsbrain.bundle.diagnose import _vendor_verdict
    from opsbrain.bundle.records import BundleLine
    from opsbrain.ingest.signal import Signal

    m = _kg_matcher(tmp_path)
    text = "Mar 15 03:40:50 node-a kernel: [16794.226248] [kbox] Vmallocinfo Start >>>>>>>>>>>>>"
    own = [Signal(100.0, "net:error", None, "worker-0", 2, "some error")]
    d = engine.diagnose_signals(own, 100.0)
    assert d.abstained
    row = {"id": "b0001", "diagnosis": d.as_dict(), "evidence_lines": []}
    inc = SimpleNamespace(signals=own, nodes={"worker-0"})
    for node, want in (("worker-2", None), ("worker-0", "worker-0")):
        lines = [BundleLine(50.0, node, "syslog", None, text, f"{node}/messages", 1, None)]
        voted = _vendor_verdict([inc], [row], row, m.match_lines([text], None), lines, m, engine)
        assert voted is not None and voted["diagnosis"]["fault_class"] == "npu_oom"
        assert voted["diagnosis"]["component"] == want


def test_the_bundle_report_is_the_same_in_every_process(tmp_path: Path) -> None:
    """The report's JSON does not depend on the process's string hashing: a line that matches the knowledge base and
    an imported entry once listed the sources in set order (PYTHONHASHSEED 0-1 gave imported first, 2-3 kb)."""
    import os
    import subprocess
    import sys

    from opsbrain.kb import import_faultcode, import_kg

    vendor = Path(__file__).parent / "fixtures" / "vendor_small"
    import_kg(vendor / "kg_good.json", tmp_path / "kb_imports")
    import_faultcode(vendor / "faultcode_good.json", tmp_path / "kb_imports")
    root = Path(__file__).resolve().parents[1]
    outs = []
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "OPSBRAIN_HOME": str(tmp_path)}
        proc = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--bundle",
                               str(root / "tests" / "fixtures" / "bundles" / "hbm-uce-real"), "--json"],
                              capture_output=True, text=True, env=env, cwd=root, check=True)
        outs.append(re.sub(r'"timing_s": \{[^}]*\}', "", proc.stdout))
    assert len(set(outs)) == 1
    assert list(json.loads(proc.stdout)["knowledge_lines_by_source"]) == ["imported", "kb"]


def test_files_at_the_bundles_root_are_named_by_the_bundle(tmp_path: Path) -> None:
    # one worker whose logs sit at the bundle's root (directory "."): the answer names it as the root cluster does,
    # by the bundle's own name, not "."
    plog = tmp_path / "job7" / "process_log" / "run" / "plog" / "plog-1_20240101000000000.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("[ERROR] DRV(1,python):2024-01-01-00:00:00.000.000 [a.c:1] fault event id 0x80E01801 on device 3\n")
    from opsbrain.kb.training import load_engine

    rep = diagnose_bundle(tmp_path / "job7", load_engine())
    assert rep["diagnosis"]["root"]["host"] == "job7" and rep["diagnosis"]["root"]["device"] == 3
    assert [w["name"] for w in rep["workers"]] == ["job7"]


def test_a_controller_incident_reopened_after_recovery_is_held_by_the_bundle_incident_still_open() -> None:
    # the live controller closed its first incident when the recovery ran and opened another when the fault showed
    # again (qingtian-failure-training: 600 s and 720 s); the bundle holds no recovery and keeps one incident
    from opsbrain.bundle import compare

    inc = {"id": "i0001", "opened_at_s": 600.0, "last_at_s": 720.0, "signals": 18,
           "diagnosis": {"fault_class": "qingtian_failure", "component": "pod0/node43/qingtian"}}
    rows = compare({"incidents": [inc]}, [(600.0, "qingtian_failure", "pod0/node43/qingtian"),
                                         (720.0, "qingtian_failure", "pod0/node43/qingtian"),
                                         (720.0, "node_crash", "pod0/node43"),
                                         (900.0, "qingtian_failure", "pod0/node43/qingtian")])
    assert [r["same"] for r in rows] == [True, True, False, False]
    assert rows[1]["bundle_incident"] == "i0001" and rows[3]["bundle_incident"] is None


def test_an_ubuntu_hosts_kern_log_and_syslog_are_read_as_its_syslog(tmp_path: Path, engine: Any) -> None:
    # /var/log/kern.log and /var/log/syslog (rsyslog on Debian / Ubuntu) both hold the kernel's lines: read, and a
    # kernel line in both is read once (before, both were skipped as unknown files)
    w = tmp_path / "b" / "worker-3" / "var" / "log"
    w.mkdir(parents=True)
    panic = "Mar  1 10:00:00 npu-host-3 kernel: [ 812.5] Kernel panic - not syncing: Fatal exception\n"
    (w / "kern.log").write_text(panic, encoding="utf-8")
    (w / "syslog").write_text("Mar  1 09:59:58 npu-host-3 systemd[1]: Started Session 4 of user root.\n" + panic,
                              encoding="utf-8")
    rep = diagnose_bundle(tmp_path / "b", engine)
    assert not rep["skipped"]
    assert rep["lines"]["read"] == 2 and rep["lines"]["duplicates"] == 1
    assert rep["diagnosis"]["root"]["host"] == "npu-host-3"  # worker-3 only numbers it; both logs name it


def _kbox_of_device_2(root: Path) -> Path:
    # CANN troubleshooting 'HBM Bit ECC Fault' (canncommercial 800 maintenref troubleshooting_0008): the device black
    # box's kbox.txt under hisi_logs/device-2/<time>/bbox/ holds the APEI record, which names no device; the
    # directory does
    kbox = root / "node-7" / "hisi_logs" / "device-2" / "20240420162417-271713000" / "bbox" / "kbox.txt"
    kbox.parent.mkdir(parents=True)
    kbox.write_text("[2454.830692] {6}[Hardware Error] Hardware error from APEI Generic Hardware Error Source: 0\n"
                    "[2454.830696] {6}[Hardware Error]  section_type: memory error\n"
                    "[2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC\n", encoding="utf-8")
    return kbox


def test_a_device_dump_line_that_names_no_device_is_the_dumps_device(tmp_path: Path, engine: Any) -> None:
    # before, the signal stayed on the worker and the root named no device
    _kbox_of_device_2(tmp_path / "b")
    rep = diagnose_bundle(tmp_path / "b", engine)
    assert rep["diagnosis"]["fault_class"] == "hbm_uce"
    assert rep["diagnosis"]["root"]["host"] == "node-7" and rep["diagnosis"]["root"]["device"] == 2


@pytest.mark.parametrize("given", ["dir", "file"])
def test_logs_from_a_devices_own_directory_are_that_devices(tmp_path: Path, given: str) -> None:
    # --logs reads the same path: a directory, or the one file (its path names the device as the bundle's does)
    kbox = _kbox_of_device_2(tmp_path / "b")
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(tmp_path / "b" if given == "dir" else kbox), "--json"])
    assert res.exit_code == 0, res.output
    diag = json.loads(res.output)["diagnosis"]
    assert diag["fault_class"] == "hbm_uce" and diag["root"]["device"] == 2


@pytest.mark.parametrize(("path", "device"), [
    ("w/device_log/hisi_logs/device-2/20240420162417-271713000/bbox/kbox.txt", 2),
    ("w/device_log/slog/dev-os-3/debug/device-os/device-os_20240122045443091.log", 3),
    ("job.tgz:w1/process_log/debug/device-5/device-1234_20240101000000000.log", 5),
    ("w/process_log/run/plog/plog-1234_20240101000000000.log", None),
    ("notes/device-3.log", None),
    (None, None),
])
def test_the_device_whose_own_log_a_file_is(path: str | None, device: int | None) -> None:
    from opsbrain.ingest.workers import device_dir

    assert device_dir(path) == device



def test_a_written_plog_holds_no_invented_closing_line(stored_run: dict[str, Any]) -> None:
    """The writer closed each plog with 'log bundle collected, process log flushed' (runtime.cc:1520), a line no
    CANN source prints; a plog holds the HCCL init line and the process's own lines only."""
    plogs = list((stored_run["bundles"] / "b0001").rglob("plog-*.log"))
    assert len(plogs) >= 8
    assert all(p.read_text().startswith("[INFO] HCCL(") for p in plogs)
    assert not any("process log flushed" in p.read_text() for p in plogs)


def test_an_incident_a_stall_opened_is_held_by_the_bundle_incident_that_opens_before_the_diagnosis() -> None:
    # live, the scheduler's instant 'stalled' event opened the incident at 600 s; the bundle holds no job events and
    # opens it at the peers' notify-wait reports (626 s), before the live diagnosis (641 s): the same incident
    from opsbrain.bundle import compare

    inc = {"id": "i0001", "opened_at_s": 626.0, "last_at_s": 630.0, "signals": 313,
           "diagnosis": {"fault_class": "node_hang", "component": "pod0/node41"}}
    rows = compare({"incidents": [inc]}, [(600.0, "node_hang", "pod0/node41", 641.3),
                                         (600.0, "node_hang", "pod0/node41"),  # no diagnosis time: 2 s only
                                         (600.0, "node_hang", "pod0/node41", 620.0),  # diagnosed before it opened
                                         (600.0, "node_crash", "pod0/node41", 641.3)])
    assert [r["same"] for r in rows] == [True, False, False, False]
