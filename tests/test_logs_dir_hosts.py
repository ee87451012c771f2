"""``diagnose --logs DIR``: a line that names no host is its worker directory's (issue 14: the root in the user's
own terms), as the bundle reader places it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

FIX = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_root_device_is_named_with_its_workers_directory(engine: Any) -> None:
    """The worker directory ``worker-0`` only numbers its host; its syslog names it ``ascend-a01``, the name the
    operator knows it by (session 31: was ``worker-0``)."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs(str(FIX), engine)["diagnosis"]
    b = diagnose_bundle(FIX, engine)["diagnosis"]
    assert d["fault_class"] == b["fault_class"] == "hbm_uce"
    assert (d["root"]["host"], d["root"]["device"]) == (b["root"]["host"], b["root"]["device"]) == ("ascend-a01", 3)


def test_one_device_index_on_two_workers_is_two_devices(tmp_path: Path, engine: Any) -> None:
    """worker-0 and worker-1 both log an HBM UCE on their device 3: two devices, each named with its worker."""
    from opsbrain.diagnosis.hostplace import on_workers
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest import LineReader, ingest_path
    from opsbrain.ingest.ranks import RankCollector

    src = FIX / "worker-0" / "device_log"
    for w in ("collected/worker-0", "collected/worker-1"):
        shutil.copytree(src, tmp_path / w / "device_log")
    reader = LineReader()
    ingest_path(str(tmp_path), None, reader)
    placed = on_workers(reader.signals, RankCollector(tmp_path.name))
    comps = {s.component for s in placed if s.kind == "dev:80E01801"}
    assert comps == {"worker-0/npu3", "worker-1/npu3"}
    assert diagnose_logs(str(tmp_path), engine)["diagnosis"]["root"]["device"] == 3


@pytest.mark.parametrize("how", ["grep", "grep-n", "tail"])
def test_a_bundle_concatenated_names_the_same_root(how: str, tmp_path: Path, engine: Any) -> None:
    """The bundle's files as ``grep -r`` or ``tail`` print them, given as one file (or pasted): the same class and
    root (host and device) as the directory."""
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from tests.test_fd_fixture_variants import concatenated

    paste = tmp_path / "all.txt"
    paste.write_text("\n".join(concatenated(FIX, how)) + "\n")
    got = diagnose_logs(str(paste), engine)["diagnosis"]
    want = diagnose_logs(str(FIX), engine)["diagnosis"]
    assert (got["fault_class"], got["root"]["host"], got["root"]["device"]) == \
        (want["fault_class"], want["root"]["host"], want["root"]["device"]) == ("hbm_uce", "ascend-a01", 3)


def test_a_shells_glob_after_logs_is_read_as_the_directory_they_share(tmp_path: Path) -> None:
    """``opsbrain diagnose --logs worker-*/...`` (the shell expands it to many paths): read together, each file
    named by its path from the directory they share, so the worker and device are named as for the directory;
    stdin with paths, several incident files, a bundle with more paths and an incident file beside --logs (click
    cannot tell it from a glob's path) are refused with one line, exit 2."""
    import json

    from click.testing import CliRunner

    from opsbrain.cli import cli

    files = sorted(str(p) for p in FIX.rglob("*") if p.is_file() and p.name != "README.md")
    run = CliRunner().invoke(cli, ["diagnose", "--logs", *files, "--json", "--data-dir", str(tmp_path)])
    assert run.exit_code == 0, run.output
    d = json.loads(run.stdout)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", "ascend-a01", 3)
    inc = tmp_path / "inc.json"
    inc.write_text('{"lines": ["EI0002 notify wait timeout"]}')
    for args in (["--logs", "-", files[0]], [files[0], files[1]], ["--bundle", str(FIX), files[0]],
                 [str(inc), "--logs", files[0]]):
        run = CliRunner().invoke(cli, ["diagnose", *args, "--data-dir", str(tmp_path)])
        assert run.exit_code == 2 and "Traceback" not in run.output and len(run.stderr.strip().splitlines()) == 1


def test_a_bundle_deeper_down_names_its_workers_from_where_they_differ(tmp_path: Path, engine: Any) -> None:
    """``collected/2025-06-19/job/worker-0``: the worker is ``worker-0`` under --bundle as under --logs (named
    after its syslog's host, ``ascend-a01``, in both since session 31)."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    shutil.copytree(FIX, tmp_path / "collected" / "2025-06-19" / "job")
    b = diagnose_bundle(tmp_path, engine)
    assert sorted(w["dir"].rpartition("/")[2] for w in b["workers"]) == ["worker-0", "worker-1"]
    assert sorted(w["name"] for w in b["workers"]) == ["ascend-a01", "ascend-a02"]
    assert b["diagnosis"]["root"]["host"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["root"]["host"] \
        == "ascend-a01"


def test_grep_of_absolute_paths_names_the_worker_not_the_root(tmp_path: Path, engine: Any) -> None:
    """``grep -rn "" /abs/path/worker-*``: the names start with ``/``; the worker is still ``worker-0``, named after
    its syslog's host ``ascend-a01`` (before the review's mend: a host named ``//tmp/.../worker-0``, or ``/`` for
    ``/root/ascend/log``)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from tests.test_fd_fixture_variants import concatenated

    lines = [f"{FIX.resolve().as_posix()}/{ln}" for ln in concatenated(FIX, "grep-n")]
    paste = tmp_path / "all.txt"
    paste.write_text("\n".join(lines) + "\n")
    d = diagnose_logs(str(paste), engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", "ascend-a01", 3)


@pytest.mark.parametrize("top", [True, False], ids=["with-top-folder", "flat"])
def test_one_archive_per_worker_is_named_as_its_folder(top: bool, tmp_path: Path, engine: Any) -> None:
    """A job collected host by host, one archive each (``tar czf worker-1.tgz worker-1`` or ``-C worker-1 .``),
    names its workers as the folders do: ``worker-0``, not ``worker-0.tgz:worker-0``; an archive without a top
    folder still shows its ``device_log`` (before: the worker was ``worker-0.tgz:device_log``)."""
    import tarfile

    from opsbrain.diagnosis.hostplace import on_workers
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest import LineReader, ingest_path
    from opsbrain.ingest.ranks import RankCollector

    for w in ("worker-0", "worker-1"):
        with tarfile.open(tmp_path / f"{w}.tgz", "w:gz") as tar:
            tar.add(FIX / "worker-0", arcname=w if top else ".")
    reader = LineReader()
    ingest_path(str(tmp_path), None, reader)
    ranks = RankCollector(tmp_path.name)
    placed = on_workers(reader.signals, ranks, reader.origins)
    assert {s.component for s in placed if s.kind == "dev:80E01801"} == {"worker-0/npu3", "worker-1/npu3"}
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", "worker-0", 3)


def test_evidence_counted_over_several_components_says_so(tmp_path: Path, engine: Any) -> None:
    """Two hosts' syslogs, each with an ECC error on its device 3: the evidence line counts both and names one of
    them and the other (before: ``2 x ecc:uce on node1/npu3``, as if both were node1's)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for host in ("node1", "node2"):
        (tmp_path / host).mkdir()
        (tmp_path / host / "messages").write_text(
            f"Jan 24 11:24:07 {host} kernel: [ 100.1] EDAC MC0: 1 UE multi-bit ECC error on NPU device 3\n")
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce"
    assert any(e.startswith("2 x ") and e.endswith("and 1 other") for e in d["evidence"]), d["evidence"]


def test_a_syslog_host_inside_a_worker_directory_is_that_worker(tmp_path: Path, engine: Any) -> None:
    """hbm-uce-real's worker-0 holds a syslog whose head names ``ascend-a01``: its ECC lines are worker-0's, one
    device with the dmesg's (before: ``ascend-a01/npu3`` beside ``worker-0/npu3``, two devices), the worker named
    after the host since session 31. A file holding two hosts' lines keeps their names."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs(str(FIX), engine)["diagnosis"]
    assert any(e.startswith("2 x ") and e.endswith("(ecc:uce) on ascend-a01/npu3") for e in d["evidence"]), \
        d["evidence"]
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "messages").write_text("".join(
        f"Jan 24 11:24:0{i} {h} kernel: [ 100.1] EDAC MC0: 1 UE multi-bit ECC error on NPU device 3\n"
        for i, h in enumerate(("node1", "node2"))))
    ev = diagnose_logs(str(tmp_path), engine)["diagnosis"]["evidence"]
    assert any(e.startswith("2 x ") and "node" in e and e.endswith("and 1 other") for e in ev), ev


def test_an_archive_on_stdin_that_cannot_be_copied_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full temporary directory: one line naming stdin and what to do, not a traceback."""
    import io
    import tarfile
    import tempfile

    from opsbrain.errors import InputError
    from opsbrain.ingest import ingest_path

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(FIX / "worker-0" / "dmesg", arcname="dmesg")

    def full(*_a: object, **_k: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", full)
    with pytest.raises(InputError, match="No space left on device; save it to a file"):
        ingest_path("-", stdin=io.BytesIO(buf.getvalue()))


SMI = """+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 4     910B3               | OK            | 96.8        48                0    / 0             |
| 0                         | 0000:C5:00.0  | 87          0    / 0          61245/ 65536         |
+===========================+===============+====================================================+
| 5     910B3               | Alarm         | 96.8        49                0    / 0             |
| 0                         | 0000:C6:00.0  | 87          0    / 0          61245/ 65536         |
+===========================+===============+====================================================+
"""


def test_an_answer_without_a_class_still_names_the_one_place_of_the_errors(tmp_path: Path, engine: Any) -> None:
    """``npu-smi info`` with NPU 5's Health ``Alarm``: no class can be told, but the root is node-1 device 5 (before:
    no host, no device, though the evidence named node-1/npu5)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    (tmp_path / "node-1").mkdir()
    (tmp_path / "node-1" / "npu-smi.txt").write_text(SMI)
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    assert d["fault_class"] == "unknown" and (d["root"]["host"], d["root"]["device"]) == ("node-1", 5)
    assert any("every error names node-1/npu5" in e for e in d["evidence"])


CONSOLE = ("RuntimeError: ACL stream synchronize failed, error code:507053\n"
           "Fault RAS occurs in the system: [event_id:0x80e01801] Uncorrectable ECC / other uncorrectable memory "
           "error.\n")


@pytest.mark.parametrize("rel, host", [("worker-0/rank-3.txt", "worker-0"),
                                       ("llama-pretrain-worker-3.log", "llama-pretrain-worker-3"),
                                       ("llama-pretrain-worker-3_previous.log", "llama-pretrain-worker-3")])
def test_a_class_without_a_component_names_the_one_host_whose_lines_failed(tmp_path: Path, engine: Any, rel: str,
                                                                           host: str) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    (tmp_path / "b" / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "b" / rel).write_text(CONSOLE)
    (tmp_path / "b" / "llama-pretrain-worker-0.log").write_text(" iteration 100/5000 | lm loss: 2.3E+00 |\n")
    d = diagnose_logs(str(tmp_path / "b"), engine)["diagnosis"]
    b = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert d["fault_class"] == b["fault_class"] == "hbm_uce"
    assert d["root"]["host"] == b["root"]["host"] == host


@pytest.mark.parametrize("swap", [False, True])
def test_the_same_failure_on_two_hosts_is_rooted_where_it_came_first_under_both_inputs(tmp_path: Path, engine: Any,
                                                                                        swap: bool) -> None:
    """Two consoles with torch_npu's error block (Ascend/pytorch#66's layout), the same error half an hour apart:
    the earlier is the root, whatever the directories' names; the bundle reads torch_npu's head as the time."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    def console(rank: int, dev: int, pid: int, at: str) -> str:
        return "".join(f"[rank{rank}]: {t}\n" for t in (
            "Traceback (most recent call last):",
            "  File \"/home/ma-user/work/pretrain_gpt.py\", line 30, in <module>",
            "RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: "
            "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035",
            f"[ERROR] {at} (PID:{pid}, Device:{dev}, RankID:{rank}) ERR00100 PTA call acl api failed",
            "[Error]: The vector core execution is abnormal."))
    early, late = ("node-0", "node-1") if swap else ("node-1", "node-0")
    for host, text in ((early, console(13, 5, 1066924, "2025-04-29-18:46:11")),
                       (late, console(2, 2, 1066001, "2025-04-29-19:16:11"))):
        (tmp_path / "job" / host).mkdir(parents=True)
        (tmp_path / "job" / host / "train.log").write_text(text)
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    b = diagnose_bundle(tmp_path, engine)["diagnosis"]
    assert (d["root"]["host"], d["root"]["device"]) == (b["root"]["host"], b["root"]["device"]) == (early, 5)
    assert d["fault_class"] == b["fault_class"]


@pytest.mark.parametrize("days_before", [23, 0])
def test_a_ports_link_records_from_before_the_job_are_history(tmp_path: Path, engine: Any, days_before: int) -> None:
    """``-link_stat -g`` lists a port's changes back to its first link-up (the hccl fault-diagnosis guide's output):
    a flap weeks before the job's first line is not its failure; one during the job is."""
    from datetime import date

    from opsbrain.diagnosis.oneclick import diagnose_logs

    day = 28 - days_before
    wd = f"{date(2025, 10, day):%a}"
    w = tmp_path / "job" / "worker-0"
    (w / "environment_check").mkdir(parents=True)
    (w / "environment_check" / "npu_info_before.txt").write_text(
        "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link_stat -g\n"
        "[devid 0]current time        : Tue Oct 28 21:46:46 2025\n"
        "[devid 0]link up count       : 2\n"
        "[devid 0]link down count     : 1\n"
        "[devid 0]link change records :\n"
        f"[devid 0]    {wd} Oct {day:2d} 21:43:51 2025    LINK UP\n"
        f"[devid 0]    {wd} Oct {day:2d} 21:43:50 2025    LINK DOWN\n"
        "[devid 0]    Sun Oct  5 10:13:35 2025    LINK UP\n")
    plog = w / "process_log" / "run" / "plog"
    plog.mkdir(parents=True)
    (plog / "plog-2111665_20251028214052405.log").write_text(
        "[INFO] HCCL(2111665,all_reduce_test):2025-10-28-21:40:52.719.213 [op_base.cc:1292] [2111665]"
        "Entry-HcclCommInitRootInfoInner:ranks[4], rank[0], rootinfo: host ip[127.10.0.1] port[60000] nicDeploy[1] "
        "identifier[127.10.0.1%enp_60000_0_1761275812718970], deviceLogicId[0]\n")
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    if days_before:
        assert d["fault_class"] == "unknown" and any("history" in e for e in d["evidence"])
    else:
        assert d["fault_class"] == "link_flap", d["evidence"]


def test_out_of_memory_is_placed_on_the_device_that_ran_out_not_its_waiting_peer(tmp_path: Path, engine: Any) -> None:
    """``tail`` of two hosts' logs, the waiting peer's first: node-a runs out of device memory (CANN EL0004 and the
    runtime's rtMalloc line), node-b's collective then times out (EI0006); the verdict names node-a device 0."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    paste = tmp_path / "tail.log"
    paste.write_text(
        "==> node-b/worker_9.log <==\n"
        "[rank9]: [ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:9) ERR01100 OPS call acl api failed.\n"
        "[rank9]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank "
        "did not send the data in time. Please check the reason for the rank being stuck\n\n"
        "==> node-a/worker_0.log <==\n"
        "[PID: 210907] 2025-04-08-18:05:10.384.694 Memory_Allocation_Failure(EL0004): Failed to allocate memory "
        "requested by GE module.\n"
        "        Call rtMalloc fail, purpose: page caching, type = 2, size:3221291008, device_id:0[FUNC:Alloc]"
        "[FILE:device_allocator.cc][LINE:72]\n")
    d = diagnose_logs(str(paste), engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("npu_oom", "node-a", 0)


def test_a_fan_out_tools_host_is_the_lines_host() -> None:
    from opsbrain.ingest import ingest_text

    sigs, _ = ingest_text("worker-1: [ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:9) ERR01100 OPS call "
                          "acl api failed.\n")
    assert {s.host for s in sigs} == {"worker-1"}


_UCE = ("[rank8]: [ERROR] 2025-09-14-04:11:40 (PID:1201, Device:0, RankID:8) ERR00100 PTA call acl api failed: "
        "NPU function error: UCE ERROR., error code is 507053")
_WAIT = ("[rank2]:[E compiler_depend.ts:413] EI0002: [PID: 991] 2025-09-14-04:41:41.008.112 The wait execution of the "
         "Notify register times out. Reason: The Notify register has not received the Notify record from remote "
         "rank: [8]. base information: [streamID:[3], taskID[12], tag[AllReduce_172.16.0.21%eth0_60000_0_1]]")


@pytest.mark.parametrize(("root_head", "peer_head", "host"), [
    ("[pod/job-worker-1/pytorch] ", "[pod/job-worker-0/pytorch] ", "job-worker-1"),  # kubectl logs --prefix
    ("job-worker-1  | ", "job-worker-0  | ", "job-worker-1"),  # docker compose logs
    ("worker-1: ", "worker-0: ", "worker-1"),  # pdsh / clush
    ("2025-09-14 04:11:40 node-1: ", "2025-09-14 04:41:41 node-0: ", "node-1"),  # a collector's stamp and host
    ("(RayWorkerWrapper pid=1201, ip=10.0.0.12) ", "(RayWorkerWrapper pid=991, ip=10.0.0.11) ", "10.0.0.12"),
])
def test_a_multi_host_paste_names_the_host_whose_line_carries_the_root(
        tmp_path: Path, engine: Any, root_head: str, peer_head: str, host: str) -> None:
    """Two hosts' output in one paste, each line behind its source's head: the root is named with the host whose
    own line carries the fault (the verdict and its JSON root, not only the root cluster)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(f"{root_head}{_UCE}\n{peer_head}{_WAIT}\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", host, 0)


PLOG0 = FIX / "worker-0" / "process_log" / "run" / "plog" / "plog-23456_20250301100000123.log"  # server 192.168.10.11
PLOG1 = next((FIX / "worker-1" / "process_log" / "run" / "plog").glob("plog-*.log"))  # server 192.168.10.12


@pytest.mark.parametrize(("layout", "host"), [
    # a job's directory holding its ranks' directories: the ranks are the job's, no host is named by a directory;
    # the plog's own init line names its server
    ({"job/rank_0": PLOG0}, "192.168.10.11"),
    ({"job/rank_0": PLOG0, "job/rank_1": PLOG1}, "192.168.10.11"),
    ({"job/rank_0/process_log/run/plog": PLOG0}, "192.168.10.11"),
    ({"job/ascend/log/run/plog": PLOG0}, "192.168.10.11"),
    # a job's folder above its workers' folders: the worker's
    ({"myjob/worker-0/process_log/run/plog": PLOG0}, "worker-0"),
    ({"train-llama/worker-0": PLOG0}, "worker-0"),
    ({"collected/train-llama/worker-0": PLOG0, "collected/train-llama/worker-1": PLOG1}, "worker-0"),
    # a host's own directory stays its name
    ({"node-1/process_log/run/plog": PLOG0}, "node-1"),
    ({"ascend-a01/rank_0": PLOG0}, "ascend-a01"),
], ids=["job-rank", "job-two-ranks", "job-rank-process_log", "job-ascend-log", "jobname-worker-process_log",
        "jobname-worker", "collected-jobname-workers", "host-dir", "host-dir-rank"])
def test_a_container_directory_never_names_the_host(layout: dict[str, Path], host: str, tmp_path: Path,
                                                    engine: Any) -> None:
    """``--logs DIR`` with the logs at ``DIR/job/rank_0/...`` or ``DIR/<jobname>/worker-0/...``: the host is the
    worker-like directory, or the host the lines name (the plog's ``server[...]``), never the job's folder (before:
    ``host job`` / ``host myjob``)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for where, src in layout.items():
        (tmp_path / where).mkdir(parents=True)
        shutil.copy(src, tmp_path / where / src.name)
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    assert d["fault_class"] == "hbm_uce"
    assert (d["root"]["host"], d["root"]["device"]) == (host, 3), d["root"]
    roots = (d.get("root_cluster") or {}).get("roots") or []
    assert roots and roots[0]["host"] == host, roots
    assert not any(("job/" in e or "jobname" in e or "train-llama/" in e) for e in d["evidence"]), d["evidence"]
