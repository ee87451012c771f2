"""Bundles of real clusters (hand-built in the collection's layout, non-twin host names): the verdict names the
host and device as the bundle does, and a documented hardware fault on the root device of a collective's wait chain
outranks the chain's software symptom (the collective timeout is its consequence)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle

HBM_EVENT = ("[ERROR] DRV(1187,dmp_daemon):2025-03-01-10:03:20.400.000 [dms_fault.c:688][dev3]fault event: "
             "event_id=0x80e01801, assertion=occur, severity=critical, dev_id=3, hbm multi-bit ecc error, "
             "uncorrectable\n")


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _device_log(worker: Path, dev: int, text: str) -> None:
    p = worker / "device_log" / "slog" / f"dev-os-{dev}" / "run" / "device-os" / "device-os_20250301100000000.log"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"[INFO] DRV(1187,dmp_daemon):2025-03-01-10:00:00.000.000 [dms_main.c:120][dev{dev}]device os "
                 "running\n" + text)


def _plog(worker: Path, pid: int, lines: list[str]) -> None:
    p = worker / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(ln + "\n" for ln in lines))


def test_a_real_hosts_component_is_named_as_the_bundle_names_it(tmp_path: Path, engine: Any) -> None:
    """environment_check/worker-3 names the host: the component is ``worker-3/npu3/hbm``, not the reader's
    ``pod0/node0/npu3/hbm`` (kept as ``internal_component``); root host and device as before."""
    w = tmp_path / "collected" / "gz-trn-c12"
    env = w / "environment_check" / "worker-3"
    env.mkdir(parents=True)
    (env / "npu_info_before.txt").write_text("$ npu-smi info -t health -i 3\nHealth Status : OK\n")
    _device_log(w, 3, HBM_EVENT)
    _plog(w, 23456, [
        "[INFO] HCCL(23456,python):2025-03-01-10:00:00.123.456 [hcom.cc:187][23457]hcom init by file success, "
        "rankTablePath[/user/config/rank_table.json], rankNum[8], rank[3], server[192.168.10.11], device[3]",
        "[ERROR] RUNTIME(23456,python):2025-03-01-10:03:20.450.000 [stream.cc:1044][23457]Stream synchronize failed, "
        "device_id=3, retCode=0x7bcad, ErrCode=507053, desc=[device memory uncorrectable ecc error (hbm uce)]"])
    rep = diagnose_bundle(tmp_path / "collected", engine)
    d = rep["diagnosis"]
    assert [w["name"] for w in rep["workers"]] == ["worker-3"]
    assert d["fault_class"] == "hbm_uce"
    assert d["component"] == "worker-3/npu3/hbm" and d["internal_component"] == "pod0/node0/npu3/hbm"
    assert (d["root"]["host"], d["root"]["device"], d["root"]["component"]) == ("worker-3", 3, "worker-3/npu3/hbm")
    assert not any("pod0/node0" in e for e in d["evidence"])
    inc = rep["incidents"][0]["diagnosis"]
    assert inc["component"] == "worker-3/npu3/hbm"


def test_the_twins_own_bundle_keeps_its_ids(tmp_path: Path, engine: Any) -> None:
    """A directory named like the twin's host (``pod0-node5``) is that host: its id is the component, unchanged. Its
    devices are Atlas A3 logical ids (session 37): device 3 is die 1 of NPU 1, whose HBM it reports."""
    w = tmp_path / "b" / "pod0-node5"
    _device_log(w, 3, HBM_EVENT)
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert d["component"] == "pod0/node5/npu1/hbm" and "internal_component" not in d


def _collective(root: Path, hosts: list[str], culprit: int, culprit_times_out: bool = False) -> None:
    """Ranks 0..n-1 on ``hosts`` (rank r on device 0, the culprit's on device 3): every other rank logs HCCL's
    notify-wait (EI0002) and socket (EI0006) time-outs naming the culprit, 30 minutes (HCCL_EXEC_TIMEOUT's default)
    after the culprit's device reported an HBM UCE (0x80E01801) in its device log."""
    ident = "10.1.0.1%eth0_60000_0_1740823200"
    for r, h in enumerate(hosts):
        pid, dev = 40100 + r, 3 if r == culprit else 0
        head = f"HCCL({pid},python):2025-03-01-"
        lines = [f"[INFO] {head}10:00:00.100.000 [topoinfo_detect.cc:506] [{pid}][HCCL_TRACE][Flat]SetupAgent "
                 f"rankNum[{len(hosts)}], rank[{r}], rootInfo identifier[{ident}], server[10.1.0.{r + 1}%eth0], "
                 f"logicDevId[{dev}], phydevId[{dev}], deviceIp[10.2.0.{r + 1}]"]
        if r != culprit:
            lines += [f"[ERROR] {head}10:33:21.000.000 [task_exception_handler.cc:300] [{pid}]EI0002: The wait "
                      "execution of the Notify register times out. Reason: The Notify register has not received the "
                      f"Notify record from remote rank [{culprit}]. base information: [streamID:[5], taskID[7]]"]
        if r != culprit or culprit_times_out:
            lines += [f"[ERROR] {head}10:33:21.{100 + k:03d}.000 [hccl_communicator.cc:900] [{pid}]EI0006: Getting "
                      "socket times out." for k in range(3)]
        _plog(root / h, pid, lines)
        (root / h / "messages").write_text(f"Mar  1 10:00:05 {h} systemd[1]: Started Session 1 of user root.\n")
    _device_log(root / hosts[culprit], 3, HBM_EVENT)


def test_bundle_b_hbm_uce_on_the_root_device_outranks_the_collective_timeout(tmp_path: Path, engine: Any) -> None:
    """Before: collective_timeout_sw at ascend-c03 device 3 (the root cluster's class, from the waiters' lines:
    the root's device log, named by the reader's id, was not counted as the root's own)."""
    _collective(tmp_path / "b", ["ascend-c01", "ascend-c02", "ascend-c03", "ascend-c04"], culprit=2)
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce", d["evidence"][:3]
    assert (d["root"]["host"], d["root"]["device"]) == ("ascend-c03", 3)
    assert d["root_cluster"]["root"] == "ascend-c03 device 3" and d["root_cluster"]["fault_class"] == "hbm_uce"
    assert d["root_cluster"]["chain"]  # the wait chain is still shown


def test_the_root_devices_own_timeouts_do_not_outvote_its_hardware_fault(tmp_path: Path, engine: Any) -> None:
    """The root rank times out too (waiting on its neighbour, its own lines full of EI0002/EI0006): its device's
    documented HBM UCE is still the class; the timeouts are the consequence."""
    _collective(tmp_path / "b", ["h1", "h2", "h3", "h4", "h5", "h6"], culprit=2, culprit_times_out=True)
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    rc = d["root_cluster"]
    assert rc["root"] == "h3 device 3", rc
    assert d["fault_class"] == "hbm_uce" and rc["fault_class"] == "hbm_uce", (rc["class_from"], d["evidence"][:3])
    assert (d["root"]["host"], d["root"]["device"]) == ("h3", 3)


def _mr(cls: str) -> dict[str, Any]:
    """A deciding root cluster (documented class ``cls``): root h3 device 3, waited on by h1 device 0."""
    return {"decides": True, "fault_class": cls, "confidence": 0.7, "documented": True, "class_from": "rule 2",
            "component": "h3/npu3", "summary": "notify wait timeout; root h3 device 3", "evidence_lines": [],
            "roots": [{"host": "h3", "device": 3, "name": "h3 device 3"}], "chain": ["h1 device 0", "h3 device 3"]}


def _verdict(cls: str, comp: str) -> dict[str, Any]:
    return {"fault_class": cls, "component": comp, "confidence": 0.62, "evidence": ["x"], "evidence_lines": []}


@pytest.mark.parametrize(("verdict", "comp", "cluster", "want", "host"), [
    ("hbm_uce", "h3/npu3/hbm", "collective_timeout_sw", "hbm_uce", "h3"),   # hardware at the root outranks
    ("hbm_uce", "npu3/hbm", "collective_timeout_sw", "hbm_uce", "h3"),      # (its host unnamed: the root's)
    ("hbm_uce", "h1/npu0/hbm", "collective_timeout_sw", "collective_timeout_sw", "h3"),  # not at a root: overruled
    ("framework_error", "h3/npu3", "hbm_uce", "hbm_uce", "h3"),             # not the reverse
    ("collective_timeout_sw", "h3/npu3", "hbm_uce", "hbm_uce", "h3"),
])
def test_a_hardware_verdict_at_a_root_device_outranks_the_clusters_software_class(
        verdict: str, comp: str, cluster: str, want: str, host: str) -> None:
    from opsbrain.diagnosis.multirank import apply_root_cluster

    out = _verdict(verdict, comp)
    apply_root_cluster(out, _mr(cluster), None)
    assert out["fault_class"] == want and (out["root"]["host"], out["root"]["device"]) == (host, 3), out


def test_datetime_stamps_are_the_collections_local_time_and_zones_are_not_mixed_silently(tmp_path: Path) -> None:
    """Unzoned ``Datetime:`` / plog stamps are read as the collection's local time (said in the report); a file
    written in UTC (``...Z``) beside them is moved onto the zone a ``Datetime:`` line states, and where none states
    one the report says the bundle mixes zoned and unzoned times."""
    from opsbrain.bundle import read_bundle

    w = tmp_path / "b" / "worker-0"
    _plog(w, 1, ["[ERROR] RUNTIME(1,python):2025-03-01-10:00:00.000.000 [x.cc:1][1]first, local time"])
    (w / "train.log").write_text("2025-03-01T02:30:00Z ERROR second, written in UTC\n")
    lines, rep = read_bundle(tmp_path / "b")
    assert rep["time_zone"]["assumed"].startswith("times without a zone are the collection's local time")
    assert rep["time_zone"]["zoned_files"] == {"worker-0/train.log": "+00:00"}
    assert any("write times with a zone (+00:00" in n for n in rep["limits"]), rep["limits"]
    env = w / "environment_check"
    env.mkdir()
    (env / "npu_info_after.txt").write_text("Datetime: 2025-03-01 10:40:00.123456 +08:00\n\nlink status: UP\n")
    lines, rep = read_bundle(tmp_path / "b")
    assert rep["time_zone"]["stated"] == "+08:00" and rep["time_zone"]["moved_files"] == {"worker-0/train.log": 480}
    t = {ln.file.rsplit("/", 1)[-1]: ln.t for ln in lines}
    assert t["train.log"] - t["plog-1_20250301100000000.log"] == 1800.0  # 02:30Z is 10:30 at +08:00


def test_the_text_answer_names_real_workers_by_their_own_names_not_the_readers_ids() -> None:
    """The read summary of a real bundle names each worker by its folder and host, server address and devices; the
    reader's numbering (``pod0/node0``) is in ``--json`` as ``internal_node`` only (session 33; before: ``worker
    worker-0 (named ascend-a01) -> pod0/node0 (sorted order)``)."""
    import json

    from click.testing import CliRunner

    from opsbrain.cli import cli

    fix = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real"
    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(fix)]).output
    assert "  worker worker-0 (named ascend-a01; server 192.168.10.11; devices 0, 3)\n" in out, out
    assert "pod0/node" not in out and "sorted order" not in out, out
    rep = json.loads(CliRunner().invoke(cli, ["diagnose", "--bundle", str(fix), "--json"]).stdout)
    w0 = next(w for w in rep["workers"] if w["dir"] == "worker-0")
    assert w0["internal_node"] == "pod0/node0" and "node" not in w0 and w0["devices"] == [0, 3]
