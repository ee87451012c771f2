"""Collections as real tools and hosts leave them: msnpureport's export, rotated syslog files, syslog's missing
year."""

from __future__ import annotations

from pathlib import Path

from opsbrain.bundle import read_bundle


def test_a_syslog_line_is_never_placed_after_tomorrow() -> None:
    from datetime import date, datetime

    from opsbrain.bundle.stamps import syslog_stamp, syslog_us, to_us

    today = date.today()
    ahead = date(today.year, today.month, today.day)
    # a day two months after today, in syslog's form: with the reference now, the closest year would be this one's
    # (or the next), but a log read today cannot hold it: it is last year's
    month = (today.month + 1) % 12 + 1
    line = f"{datetime(2000, month, 1):%b} 1 10:00:00 host kernel: x"
    now = datetime(ahead.year, ahead.month, ahead.day, 12)
    got = syslog_stamp(line, now)
    assert got is not None and got <= now
    assert syslog_us(line, now, {}) == to_us(got)


def test_a_rotated_syslog_files_name_gives_the_year(tmp_path: Path) -> None:
    import gzip

    b = tmp_path / "n7" / "var" / "log"
    b.mkdir(parents=True)
    line = "Mar  1 10:04:58 n7 kernel: [83211.1] pcieport 0000:80:00.0: AER: Uncorrected (Fatal) error received\n"
    (b / "messages").write_text(line.replace("10:04:58", "11:00:00"))
    (b / "messages-20250301.gz").write_bytes(gzip.compress(line.replace("Mar  1", "Feb 28").encode()))
    lines, _rep = read_bundle(tmp_path / "n7")
    assert sorted(ln.t for ln in lines)[0] < sorted(ln.t for ln in lines)[-1]
    _lines, rep = read_bundle(tmp_path / "n7")
    assert rep["span"]["first"].startswith("2025-02-28") and rep["span"]["last"].startswith("2025-03-01")



def test_msnpureports_export_is_one_host_and_its_device_syslog_the_devices(tmp_path: Path) -> None:
    root = tmp_path / "export"
    ev = root / "2025-03-01-10-06-00" / "slog" / "dev-os-5" / "run" / "event" / "event_20250301100501123.log"
    ev.parent.mkdir(parents=True)
    ev.write_text("[EVENT] DRV(1021,dmp_daemon):2025-03-01-10:05:01.100.000 [dms_event.c:512][tid:1021] dms event "
                  "report: device_id=5, event_id=0x80E01801, assertion=occur\n")
    sys = root / "2025-03-01-10-06-00" / "message" / "dev-os-5" / "syslog"
    sys.parent.mkdir(parents=True)
    sys.write_text("Mar  1 10:05:01 davinci kernel: [  12.3] ecc: multi-bit ECC error\n")
    lines, rep = read_bundle(root)
    assert [w["dir"] for w in rep["workers"]] == ["."]  # the dated folder is no host of its own
    assert {ln.origin for ln in lines} == {"pod0/node0/npu5"}


def test_a_syslog_line_whose_message_has_a_head_of_its_own_keeps_the_syslog_time(tmp_path: Path) -> None:
    node = tmp_path / "node-7"
    node.mkdir()
    (node / "messages").write_text(
        "Mar  1 09:39:56 n07 kubelet[2001]: I0301 09:39:56.000000    2001 kubelet.go:2400] SyncLoop (PLEG): event\n"
        "Mar  1 10:05:00 n07 kernel: [83213.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
        "Heartbeat lost! (device=5; lost_count=4)\n")
    _lines, rep = read_bundle(tmp_path / "node-7")
    assert rep["lines"]["untimed"] == 0
    assert rep["span"]["first"][5:] == "03-01T09:39:56" and rep["span"]["last"][5:] == "03-01T10:05:00"


def test_a_zh_cn_locales_syslog_month_is_read(tmp_path: Path) -> None:
    # rsyslog under LANG=zh_CN.UTF-8 writes the month as "3月" (tester U, session 30): before, every line of such a
    # messages file was untimed and placed at the last stamp of the host's process logs, after the job's timeouts
    from datetime import datetime

    from opsbrain.ingest.timestamps import parse_stamp

    node = tmp_path / "node-7"
    node.mkdir()
    (node / "messages").write_text(
        "3月 01 09:06:00 node-35 kernel: [ 9197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
        "Heartbeat lost! (device=6; lost_count=4)\n"
        "12月 1 10:00:00 node-35 systemd[1]: Started Session 1 of user root.\n", encoding="utf-8")
    _lines, rep = read_bundle(node)
    assert rep["lines"]["untimed"] == 0
    assert {rep["span"]["first"][5:], rep["span"]["last"][5:]} == {"03-01T09:06:00", "12-01T10:00:00"}
    assert parse_stamp("[六 3月  1 10:03:20 2025] x") == (datetime(2025, 3, 1, 10, 3, 20).timestamp(), True)
    assert parse_stamp("13月 1 10:00:00 h k: x")[0] is None


PLOG = ("[ERROR] RUNTIME(3813,python3):2025-03-01-10:05:02.846.600 [stream.cc:1875] 3813 rtStreamSynchronize "
        "execute failed, reason=[device mem error][FUNC:FuncErrorReason]\n")


def _linked(tmp_path: Path) -> Path:
    store = tmp_path / "store" / "worker-1" / "process_log" / "run" / "plog"
    store.mkdir(parents=True)
    (store / "plog-3813_20250301100000000.log").write_text(PLOG)
    b = tmp_path / "bundle"
    b.mkdir()
    (b / "worker-1").symlink_to(tmp_path / "store" / "worker-1")
    (b / "worker-1" / "loop").symlink_to(b)  # a link back up: walked once, not for ever
    return b


def test_symbolic_links_are_read_only_when_asked_and_each_directory_once(tmp_path: Path) -> None:
    from opsbrain.bundle.layout import BundleParams

    b = _linked(tmp_path)
    lines, rep = read_bundle(b)
    assert lines == [] and rep["refused"][0]["reason"].endswith("(--follow-links reads it)")
    lines, rep = read_bundle(b, BundleParams(follow_links=True))
    assert [ln.file for ln in lines] == ["worker-1/process_log/run/plog/plog-3813_20250301100000000.log"]
    assert any("already walked" in x["reason"] for x in rep["refused"])


def test_logs_lists_a_link_it_does_not_follow_and_follows_it_when_asked(tmp_path: Path) -> None:
    from opsbrain.ingest.text import LineReader
    from opsbrain.ingest.textpaths import ingest_path

    b = _linked(tmp_path)
    _sigs, stats = ingest_path(str(b))
    assert stats.lines == 0 and any("worker-1: symbolic link: not followed" in x for x in stats.not_read)
    r = LineReader()
    r.follow_links = True
    _sigs, stats = ingest_path(str(b), reader=r)
    assert stats.lines == 1
    assert any("already walked" in x for x in stats.not_read)


def test_cli_follow_links(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    b = _linked(tmp_path)
    home = ["--data-dir", str(tmp_path / "home")]
    for how in (["--bundle", str(b)], ["--logs", str(b)]):
        res = CliRunner().invoke(cli, ["diagnose", *how, *home])
        assert res.exit_code == 0 and "--follow-links reads it" in res.stdout, res.output
        res = CliRunner().invoke(cli, ["diagnose", *how, "--follow-links", *home])
        assert res.exit_code == 0 and "not followed" not in res.stdout, res.output


EVENTS = ("NAMESPACE     LAST SEEN   TYPE      REASON     OBJECT                                         MESSAGE\n"
          "kube-system   8s          Warning   Occur      pod/ascend-device-plugin-daemonset-910-dlpmv   device fault, "
          "nodeName:k8smaster, assertion:Occur, cardID:2, deviceID:0, faultCodes:80E01801, "
          "faultLevelName:RestartBusiness, alarmRaisedTime:2023-11-21 05:36:53\n")
"""``kubectl get events -n kube-system`` as MindCluster's "Fault Event Information" page shows it (mxdlug_com_009), with
the HBM UCE's code in place of the page's 8C084E00."""


def test_a_device_plugin_event_names_its_node_and_npu_and_takes_its_level() -> None:
    from opsbrain.ingest.parsers import parse_line

    sigs = parse_line(EVENTS.splitlines()[1], 0.0, "pod0/node0")
    assert [(s.kind, s.severity, s.component) for s in sigs] == [
        ("plugin:80E01801", 2, "k8smaster/npu2"), ("level:RestartBusiness", 0, "k8smaster/npu2")]  # not the
    # Warning type's 1, not deviceID's npu0
    low = parse_line(EVENTS.splitlines()[1].replace("RestartBusiness", "NotHandleFault"), 0.0, None)
    assert low[0].severity == 1
    rec = parse_line(EVENTS.splitlines()[1].replace("assertion:Occur", "assertion:Recovery"), 0.0, None)
    assert rec[0].kind == "plugin:80E01801:recover"


def test_kubectl_events_beside_the_clusters_logs_are_read(tmp_path: Path) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    f = tmp_path / "b" / "cluster" / "kubectl_get_events.txt"
    f.parent.mkdir(parents=True)
    f.write_text(EVENTS)
    engine = load_engine()
    for d in (diagnose_bundle(tmp_path / "b", engine)["diagnosis"], diagnose_logs(str(tmp_path / "b"), engine)[
            "diagnosis"]):
        assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("hbm_uce", "k8smaster", 2)


def test_one_nodes_program_directories_are_that_node(tmp_path: Path) -> None:
    """MindFormers' output/log/rank_N and output/msrun_log, MindIE's mindie/log/debug and MindIE MS's
    var/log/mindie-ms/run, the driver's var/log/ascend_seclog: one host, under --bundle and --logs alike."""
    from opsbrain.ingest.workers import host_root

    node = tmp_path / "node-a"
    for rel in ("output/log/rank_0/error.log", "output/msrun_log/worker_0.log", "mindie/log/debug/mindie-llm_1.log",
                "var/log/mindie-ms/run/log.txt", "var/log/ascend_seclog/ascend_install.log", "var/log/messages"):
        (node / rel).parent.mkdir(parents=True, exist_ok=True)
        (node / rel).write_text("x\n")
        assert host_root(f"node-a/{rel}")[0] == "node-a", rel
    _lines, rep = read_bundle(tmp_path)
    assert [w["dir"] for w in rep["workers"]] == ["node-a"]


def test_a_cri_heads_utc_time_is_read_on_the_programs_own_clock(tmp_path: Path) -> None:
    """kubelet's CRI head is UTC; MindIE's own stamp the host's local time (+08:00): a traceback line that has only
    the head is placed by the offset the lines with both show, not 8 h before its error line."""
    uid = "6b1c2f0e-0d5e-4c55-9a57-3f1b7e9a2c11"
    pod = tmp_path / "node-a" / "var" / "log" / "pods" / f"infer_mindie-server-0_{uid}" / "mindie" / "0.log"
    pod.parent.mkdir(parents=True)
    pod.write_text(
        "2025-11-25T09:23:11.888410233Z stdout F [2025-11-25 17:23:11,888] [249] [2814] [llm] [ERROR] "
        "[logging.py-348] : Warmup failed, because of out of memory\n"
        "2025-11-25T09:23:11.888502117Z stdout F Traceback (most recent call last):\n"
        "2025-11-25T09:23:12.000000000Z stdout F RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n")
    lines, rep = read_bundle(tmp_path / "node-a")
    assert rep["span"]["first"].startswith("2025-11-25T17:23:11") and rep["span"]["last"].startswith("2025-11-25T17:23")
    assert lines[-1].t - lines[0].t < 2.0


def test_a_job_folders_console_does_not_swallow_its_workers(tmp_path: Path) -> None:
    job = tmp_path / "b" / "job"
    for w in ("worker-0", "worker-1"):
        plog = job / w / "process_log" / "run" / "plog" / "plog-1_20250301100000000.log"
        plog.parent.mkdir(parents=True)
        plog.write_text(PLOG)
    (job / "summary.log").write_text("job failed\n")
    (job / "worker-1" / "tools").mkdir()
    (job / "worker-1" / "messages").write_text("Mar  1 10:05:00 w1 kernel: x\n")
    (job / "worker-1" / "tools" / "check.log").write_text("checked\n")
    _lines, rep = read_bundle(tmp_path / "b")
    # tools/ is worker-1's; since session 42 the job folder's summary.log, above two workers, is no host's console
    # (skipped as a note at the root is): before, the job folder was a worker of its own
    assert {w["dir"] for w in rep["workers"]} == {"job/worker-0", "job/worker-1"}
    assert {"path": "job/summary.log", "reason": "unknown file above worker directories"} in rep["skipped"]


def test_a_real_hosts_hccn_devid_is_its_npu_and_the_twins_keeps_its_numbering() -> None:
    from opsbrain.ingest.parsers import parse_line

    rec = "[devid 3]    Wed Dec  3 10:00:00 2025    LINK DOWN"

    def port(**twin: bool) -> str | None:
        return next(s.component for s in parse_line(rec, 0.0, "pod0/node0", **twin) if s.kind == "hccn:down")

    assert port(twin=False) == "pod0/node0/npu3"
    assert port() == "pod0/node0/npu1/roce1"  # the twin's two ports an NPU


def test_a_loggers_head_without_a_year_times_its_lines(tmp_path: Path) -> None:
    """vLLM's ``ERROR 12-03 06:21:44 [...]`` head (no year) beside a plog with full stamps a day later: each line at
    its own head's time, in the plog's year, not all at the plog's end."""
    node = tmp_path / "node-a"
    plog = node / "process_log" / "run" / "plog" / "plog-1_20251204131001123.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("[ERROR] RUNTIME(1,python3):2025-12-04-18:30:00.000.001 [stream.cc:1] 1 x failed\n")
    (node / "vllm-server.log").write_text(
        "(APIServer pid=1) INFO 12-03 06:02:10 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
        "(EngineCore_DP0 pid=2) ERROR 12-03 06:21:44 [core.py:634] RuntimeError: NPU out of memory. Tried to allocate "
        "2.00 GiB\n"
        "[rank1]:[E1203 06:22:01.123456 ProcessGroupHCCL.cpp:1] watchdog caught collective operation timeout\n")
    lines, rep = read_bundle(node)
    got = {ln.text[:12]: ln.t for ln in lines if ln.file == "vllm-server.log"}
    assert len(got) == 3 and rep["placed_files"] == []
    t = sorted(got.values())
    assert t[1] - t[0] == 1174.0 and abs(t[2] - t[1] - 17.123456) < 1e-6
    assert rep["span"]["first"] == "2025-12-03T06:02:10"


def test_ranks_consoles_build_the_wait_chain_to_the_rank_that_failed(tmp_path: Path) -> None:
    """Three ranks log EI0002 naming remote rank 2 (the CANN error manager's form), rank 2 logged the device error
    first: the consoles alone (no plog) give rank 2's device as the root, under --logs and --bundle."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    node = tmp_path / "node-a"
    node.mkdir()
    for r in range(4):
        pid = 13075 + r
        head = f"[ERROR] 2025-06-25-{'10:31:20' if r == 2 else '11:01:22'} (PID:{pid}, Device:{r}, RankID:{r}) " \
               "ERR00100 PTA call acl api failed\n"
        if r == 2:
            text = ("RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), "
                    "error code is 507053\n" + head)
        else:
            text = head + (f"EI0002: [PID: {pid}] 2025-06-25-11:01:22.586.187 The wait execution of the Notify "
                           "register times out. Reason: The Notify register has not received the Notify record from "
                           "remote rank: [2]. base information: [streamID:[109]]\n")
        (node / f"rank_{r}.log").write_text(text)
    engine = load_engine()
    for d in (diagnose_logs(str(node), engine)["diagnosis"], diagnose_bundle(node, engine)["diagnosis"]):
        assert d["root_cluster"]["root"].endswith("device 2"), d["root_cluster"]
        assert d["root"]["device"] == 2


def _npu_info(states: list[str]) -> str:
    """``hccn_tool -i N -link -g`` outputs as FaultDiag's environment check collects them (mindxdlFDUG021)."""
    return "".join(f"/usr/local/Ascend/driver/tools/hccn_tool -i {i} -link -g\nlink status: {st}\n\n"
                   for i, st in enumerate(states))


def test_one_snapshot_with_a_port_down_among_ports_up_is_a_link_down(tmp_path: Path) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.kb.training import load_engine

    env = tmp_path / "b" / "node-a" / "environment_check"
    env.mkdir(parents=True)
    (env / "npu_info_after.txt").write_text(_npu_info(["UP"] * 3 + ["DOWN"] + ["UP"] * 4))
    engine = load_engine()
    d = diagnose_bundle(tmp_path / "b", engine)["diagnosis"]
    assert (d["fault_class"], d["root"]["host"], d["root"]["device"]) == ("roce_port_down", "node-a", 3)
    (env / "npu_info_after.txt").write_text(_npu_info(["DOWN"] * 8))  # no RoCE cabling: no fault read from it
    assert diagnose_bundle(tmp_path / "b", engine)["incidents"] == []


def test_faultdiags_device_form_of_a_link_record_is_read() -> None:
    from opsbrain.bundle.statefiles import _HCCN_REC

    assert _HCCN_REC.search("[device 3]    Wed Dec  3 10:00:00 2025    LINK DOWN").groups() == ("3", "DOWN")


def test_a_class_on_a_node_names_the_one_device_its_incidents_signals_name(tmp_path: Path) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    node = tmp_path / "node-a"
    node.mkdir()
    (node / "train.log").write_text(
        "[rank1]:[E324 13:00:25.428029551 compiler_depend.ts:574] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkHCCL(SeqNum=196, OpType=ALLREDUCE, Timeout(ms)=3600000) ran for 3600185 milliseconds before "
        "timing out.\n"
        "EI9999: Inner Error!\n"
        "EI9999: 2024-10-21-10:42:00.358.410  The error from device(chipId:3, dieId:0), serial number is 9, hccl "
        "fftsplus task timeout occurred during task execution, stream_id:5, sq_id:5, task_id:38827, stuck\n")
    engine = load_engine()
    b = diagnose_bundle(node, engine)["diagnosis"]
    d = diagnose_logs(str(node / "train.log"), engine)["diagnosis"]
    assert b["fault_class"] == d["fault_class"] and b["root"]["device"] == d["root"]["device"] == 3


def test_a_loop_of_hccn_tool_queries_gives_each_output_to_its_device(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    f = tmp_path / "cmds.txt"
    f.write_text(_npu_info(["UP"] * 3 + ["DOWN"] + ["UP"] * 4))
    d = diagnose_logs(str(f), load_engine())["diagnosis"]
    assert (d["fault_class"], d["root"]["device"]) == ("roce_port_down", 3)  # was: no device named


def test_a_querys_device_ends_at_a_blank_line() -> None:
    from opsbrain.ingest.text import ingest_text

    sigs, _ = ingest_text("hccn_tool -i 3 -link -g\nlink status: DOWN\n\n"
                          "kernel: pcieport 0000:80:00.0: AER: Uncorrected (Fatal) error received\n")
    assert {s.component for s in sigs if s.kind == "hccn:down"} == {"npu3"}
    assert [s.component for s in sigs if s.kind == "os:pcie_fatal"] == [None]  # (npu3 without the blank line)


def test_a_real_hosts_net_health_answers_are_read_in_its_npu_info(tmp_path: Path) -> None:
    env = tmp_path / "node-a" / "environment_check"
    env.mkdir(parents=True)
    (env / "npu_info_after.txt").write_text(
        "current time        : Wed Dec  3 10:00:00 2025\n"
        + "".join(f"/usr/local/Ascend/driver/tools/hccn_tool -i {i} -net_health -g\n"
                  f"net health status: {'Receive timeout' if i == 5 else 'Success'}\n\n" for i in range(8)))
    lines, _rep = read_bundle(tmp_path / "node-a")
    got = {ln.origin: ln.text for ln in lines}
    assert len(got) == 8 and got["pod0/node0/npu5"] == "net health status: Receive timeout"
    assert {ln.t for ln in lines} == {lines[0].t}  # all at the file's own time


def test_a_bundle_without_a_stamp_is_dated_by_the_latest_date_time_its_lines_write(tmp_path: Path) -> None:
    from datetime import datetime

    from opsbrain.bundle.stamps import latest_written

    (tmp_path / "describe-device-plugin.txt").write_text(
        "Start Time:           Tue, 18 Nov 2025 09:12:40 +0800\n"
        "Events:\n"
        "  Warning  Occur     8s    (combined from similar events): device fault, nodeName:worker-3, "
        "assertion:Occur, cardID:2, deviceID:0, faultCodes:80E01801, faultLevelName:RestartBusiness, "
        "alarmRaisedTime:2025-11-21 05:36:53\n")
    (tmp_path / "describe-job-pod.txt").write_text("      Finished:     Fri, 21 Nov 2025 05:37:10 +0800\n")
    _lines, rep = read_bundle(tmp_path)
    assert {p["at"] for p in rep["placed_files"]} == {"2025-11-21T05:37:10"}
    assert all("writes" in p["why"] for p in rep["placed_files"])
    # a date in the future is a setting or an expiry (a certificate's notAfter), not when the lines were written
    assert latest_written(["notAfter 2099-01-01 00:00:00", "alarmRaisedTime:2025-11-21 05:36:53"]) == \
        datetime(2025, 11, 21, 5, 36, 53)
    assert latest_written(["no date here", "version 2.0.1"]) is None


def test_torch_npus_error_head_is_a_consoles_time_stamp() -> None:
    from datetime import datetime

    from opsbrain.bundle.stamps import stamp

    line = "[rank13]: [ERROR] 2025-04-29-18:46:11 (PID:1066924, Device:5, RankID:13) ERR00100 PTA call acl api failed"
    assert stamp(line, "iso") == datetime(2025, 4, 29, 18, 46, 11)
    assert stamp("x 2025-06-25-11:01:22.586.187 y", "iso") == datetime(2025, 6, 25, 11, 1, 22, 586187)  # slog's
