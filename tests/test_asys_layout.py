"""CANN's ``asys collect`` output read as the bundle layout (opsbrain.ingest.asys; issue 14 item 7, real layouts)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import layout as L
from opsbrain.ingest import asys
from opsbrain.ingest.workers import device_dir, host_root

FIX = Path(__file__).parent / "fixtures" / "bundles"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "ascend-fd-fixtures"
OUT = "asys_output_20250301100500123"


def to_asys(rel: str) -> str | None:
    """Where asys would put the file at ``rel`` of a worker's collection (CANN's process logs, msnpureport's device
    logs, the host's syslog): the inverse of :func:`asys.place`, written from the tool's collectors, not from it."""
    parts = rel.split("/")
    for i, p in enumerate(parts):
        head, rest = parts[:i], parts[i + 1:]
        if p == "process_log":
            return "/".join([*head, OUT, "dfx", "log", "host", "cann", *rest])
        if p == "device_log" and rest[:1] == ["hisi_logs"]:
            return "/".join([*head, OUT, "dfx", "bbox", *rest[1:]])
        if p == "device_log" and rest[:1] == ["slog"] and len(rest) >= 5 and rest[1].startswith("dev-os-"):
            role = "system" if rest[3] in ("device-os", "event") else "firmware"
            return "/".join([*head, OUT, "dfx", "log", "device", rest[1], role, *rest[2:]])
    if parts[-1] == "messages":
        return "/".join([*parts[:-1], OUT, "dfx", "log", "host", "message", "messages"])
    return None


@pytest.mark.parametrize(("rel", "role", "path"), [
    (f"{OUT}/dfx/log/host/cann/run/plog/plog-1_20250301.log", asys.LOG,
     f"{OUT}/process_log/run/plog/plog-1_20250301.log"),
    (f"w1/{OUT}/dfx/log/host/cann/debug/device-2/device-7_1.log", asys.LOG,
     f"w1/{OUT}/process_log/debug/device-2/device-7_1.log"),
    (f"w1/{OUT}/dfx/log/host/message/syslog", asys.LOG, f"w1/{OUT}/syslog"),
    (f"w1/{OUT}/dfx/log/host/driver/host_kernel.log", asys.LOG,
     f"w1/{OUT}/device_log/slog/host/host_kernel.log"),
    (f"{OUT}/dfx/log/device/dev-os-3/system/run/device-os/device-os_1.log", asys.LOG,
     f"{OUT}/device_log/slog/dev-os-3/run/device-os/device-os_1.log"),
    (f"{OUT}/dfx/log/device/dev-os-3/firmware/debug/device-1/device-1_2.log", asys.LOG,
     f"{OUT}/device_log/slog/dev-os-3/debug/device-1/device-1_2.log"),
    (f"{OUT}/dfx/bbox/device-2/history.log", asys.LOG, f"{OUT}/device_log/hisi_logs/device-2/history.log"),
    # the collection's folder taken off (the root given, or an archive's top folder)
    ("dfx/bbox/device-2/history.log", asys.LOG, "device_log/hisi_logs/device-2/history.log"),
    (f"{OUT}/dfx/log/host/screen.txt", asys.CONSOLE, None),
    (f"{OUT}/health_result.txt", asys.HEALTH_ROLE, None),
    (f"{OUT}/software_info.txt", asys.NOT_READ, None),
    (f"{OUT}/dfx/stackcore/core.1", asys.NOT_READ, None),
    (f"{OUT}/dfx/log/device/dev-os-0/slogd/slogdlog", asys.NOT_READ, None),
])
def test_a_collections_files_are_placed_in_the_layout(rel: str, role: str, path: str | None) -> None:
    placed = asys.place(rel)
    assert placed is not None and (placed.role, placed.path) == (role, path)


@pytest.mark.parametrize("rel", [
    "w1/process_log/run/plog/plog-1_2.log",  # not a collection
    "w1/dfx/notes.txt",  # a dfx folder of something else
    f"{OUT}/readme.txt",  # no file asys writes
    f"{OUT}/dfx/log/host/unknown/x.log",
])
def test_paths_outside_a_collection_are_left_alone(rel: str) -> None:
    assert asys.place(rel) is None and asys.canonical(rel) == rel


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _relaid(src: Path, dst: Path) -> int:
    """``src`` copied to ``dst`` with every file asys collects moved where asys puts it; how many were moved."""
    moved = 0
    for rel in _files(src):
        new = to_asys(rel)
        moved += new is not None
        target = dst / (new or rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, target)
    return moved


def test_round_trip_of_the_layouts_names() -> None:
    """Every file of the real-format bundle, placed where asys puts it, is classified as the same kind, worker and
    device, and names the same worker and device to the multi-rank analysis."""
    src = FIX / "hbm-uce-real"
    seen = 0
    for rel in _files(src):
        new = to_asys(rel)
        if new is None:
            continue
        seen += 1
        assert asys.canonical(new).replace(f"{OUT}/", "") == rel  # the collection's folder kept: its host's
        a, b = L.classify(rel), L.classify(new)
        assert a is not None and b is not None and (a.kind, a.device) == (b.kind, b.device), rel
        assert a.worker == asys.host_dirs([b.worker])[b.worker], rel  # type: ignore[list-item,index]
        assert host_root(rel)[0] == asys.host_dirs([host_root(new)[0]])[host_root(new)[0]], rel
        assert device_dir(new) == device_dir(rel), rel
    assert seen >= 6


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _verdicts(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted((i["opened_at"], i["diagnosis"]["fault_class"], i["diagnosis"]["component"])
                  for i in report["incidents"])


def test_an_asys_collection_is_diagnosed_as_the_same_logs_in_the_usual_layout(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle

    assert _relaid(FIX / "hbm-uce-real", tmp_path / "asys") >= 6
    want = diagnose_bundle(FIX / "hbm-uce-real", engine)
    got = diagnose_bundle(tmp_path / "asys", engine)
    assert got["diagnosis"]["fault_class"] == want["diagnosis"]["fault_class"] == "hbm_uce"
    assert got["diagnosis"]["component"] == want["diagnosis"]["component"]
    assert _verdicts(got) == _verdicts(want)
    assert sorted({(w["name"], w["internal_node"]) for w in got["workers"]}) == sorted((w["name"], w["internal_node"])
                                                                                for w in want["workers"])


def test_an_asys_archive_and_its_summaries(tmp_path: Path, engine: Any) -> None:
    """``asys collect --tar=True`` leaves ``asys_output_<stamp>.tar.gz`` with the folder inside; the summaries are
    listed as recognised and not read, the console and the health file are read."""
    import tarfile

    from opsbrain.bundle.diagnose import diagnose_bundle

    src = FIX / "hbm-uce-real" / "worker-0"
    out = tmp_path / "one" / OUT
    _relaid(src, tmp_path / "one")
    (out / "software_info.txt").write_text("CANN version: 8.0.RC3\n")
    (out / "dfx" / "log" / "host").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "rank-3.log", out / "dfx" / "log" / "host" / "screen.txt")
    tgz = tmp_path / f"{OUT}.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(out, arcname=OUT)
    rep = diagnose_bundle(tgz, engine)
    assert rep["diagnosis"]["fault_class"] == "hbm_uce" and rep["diagnosis"]["component"].endswith("npu3/hbm")
    reasons = {s["path"]: s["reason"] for s in rep["skipped"]}
    assert any(p.endswith("software_info.txt") and "recognised, not read" in r for p, r in reasons.items())
    assert not any(p.endswith("screen.txt") for p in reasons)


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared (ascend-fd's fixtures)")
def test_ascend_fd_fixture_relaid_as_asys(tmp_path: Path, engine: Any) -> None:
    """ascend-fd's one-worker system test, its CANN and device logs moved where asys puts them: the same incidents
    on the same devices as in the layout ascend-fd reads."""
    from opsbrain.bundle.diagnose import diagnose_bundle

    src = SHARED / "st_testcase" / "modelarts-job-testdt" / "ascend"
    keep = tmp_path / "usual" / "host"
    for part in ("process_log", "device_log"):
        shutil.copytree(src / part, keep / part)
    assert _relaid(tmp_path / "usual", tmp_path / "asys") > 10
    want = diagnose_bundle(tmp_path / "usual", engine)
    got = diagnose_bundle(tmp_path / "asys", engine)
    assert _verdicts(got) == _verdicts(want)
    assert any(c == "hbm_uce" and re.search(r"/npu2/hbm$", str(w)) for _, c, w in _verdicts(got))


def _health_result(devices: list[tuple[int, str, list[tuple[str, str]]]]) -> str:
    """``health_result.txt`` as asys writes it: per device a table, its head the device and its health, one row a
    DSMI error code (``hex()``) and its string (the layout of cann/oam-tools src/asys/view/table.py)."""
    out = ""
    for dev, health, codes in devices:
        head = [[f"Device ID: {dev}", f"Overall Health: {health}"], ["", f"ErrorCode Num: {len(codes)}"]]
        rows = [list(c) for c in codes]
        widths = [max(len(r[i]) for r in [*head, ["none", "0"], *rows]) + 5 for i in range(2)]
        rule = " +-" + "".join("".ljust(w, "-") + "-+ " for w in widths) + "\n"
        out += "\n" + rule + "".join(" | " + "".join(c.ljust(widths[i]) + " | " for i, c in enumerate(r)) + "\n"
                                     for r in head)
        out += " +=" + "".join("".ljust(w, "=") + "=+ " for w in widths) + "\n"
        out += "".join(" | " + "".join(c.ljust(widths[i]) + " | " for i, c in enumerate(r)) + "\n" + rule
                       for r in rows)
    return out.replace("-+ -", "-+--").replace("=+ =", "=+==")


HEALTH = [(0, "Healthy", []), (3, "Critical", [("0x80e01801", "NA")]), (5, "Healthy", [])]


def test_asys_health_table_places_each_code_on_its_device(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "b" / OUT / "health_result.txt"
    f.parent.mkdir(parents=True)
    f.write_text(_health_result(HEALTH))
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["device"]) == ("hbm_uce", 3)
    for root in (tmp_path / "b", f.parent):  # the folder holding the collection, or the collection's own folder
        rep = diagnose_bundle(root, engine)
        assert rep["diagnosis"]["fault_class"] == "hbm_uce" and rep["diagnosis"]["component"].endswith("/npu3/hbm")
        assert rep["incidents"][0]["opened_at"].startswith("2025-03-01T10:05:00")  # the collection's time
        assert not rep["skipped"]


def test_a_section_mark_places_only_what_follows_it_in_its_own_file() -> None:
    from opsbrain.ingest.derive import section_placed
    from opsbrain.ingest.parsers.device import SECTION_DEVICE
    from opsbrain.ingest.signal import Signal

    def sig(kind: str, file: str, device: int | None = None, sev: int = 1, text: str = "| 0x80e01801 | NA |"
            ) -> Signal:
        return Signal(0.0, kind, f"npu{device}" if device is not None else None, "h", sev, text, None, device,
                      file=file)

    got = section_placed([sig("dev:80E01801", "a"), sig(SECTION_DEVICE, "a", 3, 2), sig("dev:80E01801", "b"),
                          sig("dev:80E01801", "a"), sig("dev:80E01801", "a", 1),
                          sig("msg:x", "a", text="EI0006: x"), sig("dev:80E01801", "a")], key=lambda s: s.file)
    assert [(s.file, s.device, s.severity) for s in got] == [("a", None, 1), ("b", None, 1), ("a", 3, 2),
                                                             ("a", 1, 1), ("a", None, 1), ("a", None, 1)]


def test_a_health_section_ends_where_its_table_does() -> None:
    from opsbrain.ingest import ingest_text

    text = _health_result([(7, "Critical", [("0x80e01801", "NA")])]) + (
        "\nMar  1 10:00:00 w-1 kernel: eth0: link down\n"
        "[ERROR] HCCL(1,python):2025-03-01-10:00:01.000.000 [x.cc:1] EI0006: Getting socket times out.\n")
    sigs = [s for s in ingest_text(text)[0] if not s.kind.startswith("level:")]
    assert any(s.kind == "dev:80E01801" and s.device == 7 for s in sigs)
    assert all(s.device != 7 for s in sigs if s.kind != "dev:80E01801")


def test_the_console_and_health_file_belong_to_the_collections_worker() -> None:
    from opsbrain.ingest.workers import host_root

    for rel in (f"node1/{OUT}/dfx/log/host/screen.txt", f"node1/{OUT}/health_result.txt",
                f"node1/{OUT}/dfx/log/host/cann/run/plog/plog-1_2.log"):
        assert host_root(rel)[0] == f"node1/{OUT}" == L.classify(rel).worker  # type: ignore[union-attr]
        assert asys.host_dirs([f"node1/{OUT}", "node1"])[f"node1/{OUT}"] == "node1"  # the host's directory


def test_dumps_are_never_read() -> None:
    assert L.classify(f"{OUT}/dfx/graph/ge_onnx_00001.pbtxt") is None
    assert L.classify(f"{OUT}/dfx/data-dump/0/Add.1.2.3") is None


def test_a_health_table_followed_or_exported_places_its_rows_and_leaks_no_mark(tmp_path: Path, engine: Any) -> None:
    """The table's device mark is used up where the table is read line by line: a follower's tail (across polls)
    and an exported incident's lines; no ``place:device`` kind reaches the detector or the diagnosis."""
    import json

    from opsbrain.diagnosis.oneclick import diagnose_incident_file
    from opsbrain.ingest.parsers.device import SECTION_DEVICE
    from opsbrain.sources.follow import LogFollower

    text = _health_result(HEALTH)
    follow = LogFollower(tmp_path, from_start=True)
    f = tmp_path / "node1" / "health_result.txt"
    f.parent.mkdir()
    lines = text.splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if "Device ID: 3" in ln) + 1  # the mark in one poll, its rows next
    f.write_text("".join(lines[:cut]))
    got = follow.poll(1.0)
    with f.open("a") as fh:
        fh.write("".join(lines[cut:]))
    got += follow.poll(2.0)
    assert all(s.kind != SECTION_DEVICE for s in got)
    assert [(s.kind, s.device) for s in got if s.kind.startswith("dev:")] == [("dev:80E01801", 3)]

    inc = tmp_path / "incident.json"
    inc.write_text(json.dumps({"lines": text.splitlines()}))
    d = diagnose_incident_file(str(inc), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce" and SECTION_DEVICE not in json.dumps(d)


def test_a_health_row_the_logs_hold_opens_no_second_incident(tmp_path: Path, engine: Any) -> None:
    """Collected six hours after the fault, the health table still lists the device's HBM UCE: a state at
    collection time, not a second fault; a code the logs do not hold still opens its own incident."""
    from opsbrain.bundle.diagnose import diagnose_bundle

    late = "asys_output_20250301160000123"
    _relaid(FIX / "hbm-uce-real" / "worker-0", tmp_path / "one")
    (tmp_path / "one" / OUT).rename(tmp_path / "one" / late)
    (tmp_path / "one" / late / "health_result.txt").write_text(
        _health_result([(3, "Critical", [("0x80e01801", "NA")]), (5, "Critical", [("0x80e01801", "NA")])]))
    rep = diagnose_bundle(tmp_path, engine)
    got = sorted((i["opened_at"][:13], i["diagnosis"]["component"]) for i in rep["incidents"])
    assert got == [("2025-03-01T10", "one/npu3/hbm"), ("2025-03-01T16", "one/npu5/hbm")]  # the worker's name


def test_collections_of_two_hosts_side_by_side_stay_two_hosts(tmp_path: Path, engine: Any) -> None:
    """``asys collect --output=/shared/out`` run on two hosts: two collection folders in one directory. Each is its
    host's: device 3 of each is its own device (before, both were read as one worker's device 3)."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    second = "asys_output_20250301100600456"
    for name, sub in ((OUT, "a"), (second, "b")):
        _relaid(FIX / "hbm-uce-real" / "worker-0", tmp_path / sub)
        (tmp_path / "out").mkdir(exist_ok=True)
        (tmp_path / sub / OUT).rename(tmp_path / "out" / name)
    syslog = tmp_path / "out" / second / "dfx" / "log" / "host" / "message" / "messages"
    syslog.write_text(syslog.read_text().replace("ascend-a01", "ascend-a02"))  # the second host's own syslog
    rep = diagnose_bundle(tmp_path / "out", engine)
    comps = {i["diagnosis"]["component"] for i in rep["incidents"] if i["diagnosis"]["fault_class"] == "hbm_uce"}
    assert len(comps) == 2 and all(c.endswith("/npu3/hbm") for c in comps)
    assert sorted(w["dir"] for w in rep["workers"]) == [OUT, second]
    assert sorted(w["name"] for w in rep["workers"]) == ["ascend-a01", "ascend-a02"]  # each syslog's own host
    from opsbrain.diagnosis.hostplace import on_workers
    from opsbrain.ingest import LineReader, ingest_path
    from opsbrain.ingest.ranks import RankCollector

    reader = LineReader()
    ingest_path(str(tmp_path / "out"), None, reader)
    placed = on_workers(reader.signals, RankCollector("out"))
    assert {s.component for s in placed if s.kind == "dev:80E01801"} == {f"{OUT}/npu3", f"{second}/npu3"}
    assert diagnose_logs(str(tmp_path / "out"), engine)["diagnosis"]["fault_class"] == "hbm_uce"


def test_one_host_collected_twice_stays_one_host(tmp_path: Path, engine: Any) -> None:
    """asys run twice on one host, both collections kept side by side: their syslogs name the same host, so they
    are one host's (one node, one HBM UCE incident), not two hosts' (the reviewer's repro, session 25)."""
    from opsbrain.bundle.diagnose import diagnose_bundle

    second = "asys_output_20250301100600456"
    for name, sub in ((OUT, "a"), (second, "b")):
        _relaid(FIX / "hbm-uce-real" / "worker-0", tmp_path / sub)
        (tmp_path / "node1").mkdir(exist_ok=True)
        (tmp_path / sub / OUT).rename(tmp_path / "node1" / name)
    rep = diagnose_bundle(tmp_path / "node1", engine)
    comps = {i["diagnosis"]["component"] for i in rep["incidents"] if i["diagnosis"]["fault_class"] == "hbm_uce"}
    assert len(comps) == 1 and len({w["internal_node"] for w in rep["workers"]}) == 1
