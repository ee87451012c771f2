"""Multi-rank root cause (issue 14 item 6): plog identity and errors (opsbrain.ingest.ranks), the wait graph and its
root (opsbrain.diagnosis.rootcluster), the verdict in the operator's terms (opsbrain.diagnosis.multirank).

Synthetic lines below are in the real plog format (shapes copied from the public ascend-fd fixtures and test inputs,
values changed), with free host names. Tests on ascend-fd's own fixtures skip when ../shared is absent.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.rootcluster import analyse
from opsbrain.ingest.ranks import RankCollector
from opsbrain.ingest.workers import host_root

FX = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "ascend-fd-fixtures"
needs_fixtures = pytest.mark.skipif(not FX.is_dir(), reason="../shared/reference/ascend-fd-fixtures is absent")


def ts(sec: float) -> str:
    s = int(sec)
    us = round((sec - s) * 1e6)
    return f"2025-06-19-09:{s // 60:02d}:{s % 60:02d}.{us // 1000:03d}.{us % 1000:03d}"


def setup(pid: int, t: float, rank: int, n: int, server: str, dev: int, dev_ip: str, ident: str = "grp") -> str:
    return (f"[INFO] HCCL({pid},python3):{ts(t)} [topoinfo_detect.cc:506] [{pid}][HCCL_TRACE][Flat]SetupAgent "
            f"rankNum[{n}], rank[{rank}], rootInfo identifier[{ident}], server[{server}%eth0], serverPort[60000]"
            f"deviceType[2], logicDevId[{dev}], phydevId[{dev}], deviceIp[{dev_ip}]")


def err(pid: int, t: float, text: str, where: str = "transport_manager.cc:777") -> str:
    return f"[ERROR] HCCL(903,python3.8):{ts(t)} [{where}] [16542]{text}"  # the printed pid is not the process's


def transport(remote_server: str, remote_dev: int) -> str:
    return (f"[Create][DestLink]Transport init error! createLink para:rank[1]-localUserrank[1]-localIpAddr[], "
            f"dst_rank[0]-remoteUserrank[0]-remoteIpAddr[{remote_server}/{remote_dev}], machineType[1], serverId[], "
            f"linkMode[1], tag[AllGather_group_name_0]")


def link_row(dest: str, dest_rank: int, src: str, src_rank: int, role: str = "client") -> str:
    return f"  |  {dest}({dest_rank})   |   {src}({src_rank})   |  {role}  | no connect |   "


def collect(files: dict[str, list[str]], root: str = "job") -> Any:
    c = RankCollector(root)
    for name, lines in files.items():
        c.feed_lines(lines, name)
    return c.table()


HOSTS = [("ascend-a01", "192.168.0.1", "10.9.0.1"), ("ascend-a02", "192.168.0.2", "10.9.0.2"),
         ("gpu-less-box", "192.168.0.3", "10.9.0.3"), ("node_17", "192.168.0.4", "10.9.0.4")]


def chain_bundle(n: int) -> dict[str, list[str]]:
    """``n`` hosts, device k on host k; host k>0 fails to set up its transport toward host k-1 (a wait chain)."""
    files = {}
    for k in range(n):
        host, server, dip = HOSTS[k]
        pid = 1000 + k
        files[f"{host}/process_log/run/plog/plog-{pid}_20250619092715212.log"] = [
            setup(pid, 10 + k, k, n, server, k, dip)]
        errs = [err(pid, 100 + k, "[Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0x1], size[2239]",
                    "adapter_hccp.cc:1357")]
        if k > 0:
            errs.append(err(pid, 100.5 + k, transport(HOSTS[k - 1][1], k - 1)))
        files[f"{host}/process_log/debug/plog/plog-{pid}_20250619092939806.log"] = errs
    return files


# ---- identity and errors ----------------------------------------------------------------------------------------
def test_identity_from_setup_lines_and_pid_from_the_file_name() -> None:
    t = collect(chain_bundle(2))
    procs = {p.name: p for p in t.processes}
    a = procs["ascend-a01 device 0"]
    assert a.pid == "1000" and a.server == "192.168.0.1" and a.device_ip == "10.9.0.1" and a.ranks == {"grp": (0, 2)}
    b = procs["ascend-a02 device 1"]
    assert [e.kind for e in b.errors] == ["normal", "transport"]
    assert (b.errors[1].remote_ip, b.errors[1].remote_device) == ("192.168.0.1", 0)
    assert b.errors[1].ref.file.endswith("plog-1001_20250619092939806.log") and b.errors[1].ref.line == 2


def test_hcom_init_line_timeouts_and_device_address_from_npu_info() -> None:
    c = RankCollector("w")
    c.feed("[TRACE] HCCL(10972,python3):2023-01-31-02:48:31.222.202 [status:init] [hcom.cc:196][x][3]hcom init by "
           "file success,take time [1174468]us, rankTablePath[/x.json], rankNum[8], rank[3],server[51.38.68.155], "
           "device[3]", "host7/process_log/debug/plog/plog-10972_1.log", 1)
    c.feed("[INFO] HCCL(10972,python3):2025-06-19-09:27:24.674.788 [externalinput.cc:407] [10972]HCCL_CONNECT_TIMEOUT "
           "set by environment to [130]s", "host7/process_log/run/plog/plog-10972_2.log", 1)
    c.feed_lines(["/usr/local/Ascend/driver/tools/hccn_tool -i 3 -ip -g", "ipaddr:10.10.0.13", "netmask:255.0.0.0"],
                 "host7/environment_check/npu_info_before.txt")
    (p,) = c.table().processes
    assert (p.worker, p.device, p.ranks, p.server) == ("host7", 3, {"identifier-NA": (3, 8)}, "51.38.68.155")
    assert p.timeouts == {"HCCL_CONNECT_TIMEOUT": 130} and p.device_ip == "10.10.0.13"


def test_lines_differing_only_in_time_are_read_once_and_junk_is_ignored() -> None:
    line = err(5, 1.0, "[Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0x1]", "adapter_hccp.cc:1357")
    later = err(5, 2.0, "[Recv][RaSocket]errNo[0x000000000500000d] recv fail, data[0x1]", "adapter_hccp.cc:1357")
    t = collect({"w/process_log/debug/plog/plog-5_1.log": [line, later, "garbage", "", "[ERROR] no module"]})
    assert [e.kind for e in t.processes[0].errors] == ["normal"]


def test_worker_of_a_path() -> None:
    assert host_root("worker-3/process_log/debug/plog/plog-1_2.log") == ("worker-3", None)
    assert host_root("job/ascend/process_log/run/plog/plog-1_2.log") == ("job", None)  # wrapper skipped
    assert host_root("job/ascend/environment_check/worker-0/npu_info_after.txt") == ("job", "worker-0")
    assert host_root("plog-1_2.log") == ("", None)
    assert host_root("kg_parse/plog-1_2.log") == ("kg_parse", None)
    # CANN's own log directory ($HOME/ascend/log/{debug,run}/plog/, .../device-N/) copied as it is
    assert host_root("w1/ascend/log/debug/plog/plog-1_2.log") == ("w1", None)
    assert host_root("w1/ascend/log/run/device-3/device-1_2.log") == ("w1", None)
    assert host_root("log/debug/plog/plog-1_2.log") == ("", None)


@pytest.mark.parametrize("rel", [
    "job/ascend/process_log/run/plog/plog-1_2.log",  # wrapped by ascend/
    "job/Ascend/process_log/debug/plog/plog-1_2.log",  # any case
    "worker-2/training/process_log/debug/plog/plog-1_2.log",
    "fault_diag_data/worker-4/process_log/debug/plog/plog-1_2.log",
    "w1/ascend/log/debug/plog/plog-1_2.log",  # CANN's own log directory
    "worker-6/os_log/process_log/run/plog/plog-1_2.log",
])
def test_the_bundle_layout_and_the_rank_analysis_name_a_worker_alike(rel: str) -> None:
    # one report joins the bundle reader's workers and the rank chain's: a worker has one name in both
    from opsbrain.bundle.layout import classify

    kind = classify(rel)
    assert kind is not None and kind.worker == host_root(rel)[0]


def test_the_environment_check_sub_directory_names_the_worker() -> None:
    t = collect({"j/ascend/process_log/debug/plog/plog-7_1.log": [setup(7, 1, 0, 1, "1.1.1.1", 0, "2.2.2.2")],
                 "j/ascend/environment_check/worker-5/npu_info_before.txt": ["Datetime x"]})
    assert t.processes[0].worker == "worker-5"


# ---- the wait graph ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_transport_chain_root_is_the_tail(n: int) -> None:
    rc = analyse(collect(chain_bundle(n)))
    assert rc.kind == "transport" and [p.name for p in rc.roots] == ["ascend-a01 device 0"]
    assert rc.chain == [f"{HOSTS[k][0]} device {k}" for k in range(n - 1, -1, -1)] and not rc.cycle
    assert len(rc.edges) == n - 1 and rc.evidence[0].file.startswith("ascend-a01/")


def test_socket_mutual_wait_is_a_cycle_and_an_unknown_remote_a_dead_end() -> None:
    files = {
        "hA/process_log/run/plog/plog-1_1.log": [setup(1, 1, 0, 3, "192.168.1.1", 0, "10.1.0.1", "world")],
        "hA/process_log/debug/plog/plog-1_2.log": [err(1, 50.2, link_row("10.1.0.2", 1, "10.1.0.1", 0, "server"),
                                                       "comm_base.cc:1018")],
        "hB/process_log/run/plog/plog-2_1.log": [setup(2, 1, 1, 3, "192.168.1.2", 0, "10.1.0.2", "world"),
                                                 setup(2, 1, 1, 3, "192.168.1.2", 0, "10.1.0.2", "world")],
        "hB/process_log/debug/plog/plog-2_2.log": [err(2, 50.0, link_row("10.1.0.1", 0, "10.1.0.2", 1),
                                                       "comm_base.cc:1018")],
        "hB/process_log/debug/plog/plog-3_2.log": [err(3, 50.1, link_row("3.0.0.0", 3, "10.1.0.3", 2),
                                                       "comm_base.cc:1018")],
        "hB/process_log/run/plog/plog-3_1.log": [setup(3, 1, 2, 3, "192.168.1.2", 1, "10.1.0.3", "world")],
    }
    rc = analyse(collect(files))
    assert rc.kind == "socket" and rc.cycle
    assert [p.name for p in rc.roots] == ["hB device 0", "hA device 0"]  # earliest error first
    assert rc.chain == ["hB device 0", "hA device 0", "hB device 0"]
    assert rc.other_roots == [["hB device 1"]]
    assert rc.dead_ends == [{"waiter": "hB device 1", "remote": "3.0.0.0", "ref": rc.dead_ends[0]["ref"],
                             "why": rc.dead_ends[0]["why"]}]
    # the same bundle without hA: hB device 0's remote resolves to no process; the peer its link row names (address
    # and rank) did not answer and is the root, hB device 0 the one that waited (it was its own root before)
    alone = analyse(collect({k: v for k, v in files.items() if k.startswith("hB/")}))
    assert [p.name for p in alone.roots] == ["10.1.0.1 (rank 0)"]
    assert alone.chain == ["hB device 0", "10.1.0.1 (rank 0)"] and "the one that waited" in alone.rule
    assert alone.as_dict()["roots"][0]["peer"] is True and alone.dead_ends[0]["waiter"] == "hB device 0"


def test_a_peer_wait_that_names_no_peer_has_no_root_and_says_who_waited() -> None:
    """EI0006's own line without its link table (HCCL guide 'Connection Setup Timeout'): the peer is unknown; the
    device that logged it waited, it is not the root."""
    line = "[Wait][LinkEstablish]wait socket establish timeout, role[0] rank[0] timeout[120 s]"
    files = {"hB/process_log/run/plog/plog-2_1.log": [setup(2, 1, 1, 3, "192.168.1.2", 0, "10.1.0.2", "world")],
             "hB/process_log/debug/plog/plog-2_2.log": [err(2, 50.0, line, "hccl_socket_manager.cc:816")]}
    rc = analyse(collect(files))
    assert rc.kind == "socket" and rc.roots == [] and not rc.chain
    assert "hB device 0 waited for a peer" in rc.rule and "the one that waited" in rc.rule


def test_a_remote_whose_host_is_there_but_never_came_up_is_said_so() -> None:
    files = chain_bundle(2)
    files["ascend-a02/process_log/debug/plog/plog-1001_20250619092939806.log"] = [
        err(1001, 101.5, transport("192.168.0.1", 5))]  # device 5 of the first host: no process ran there
    rc = analyse(collect(files))
    assert [p.name for p in rc.roots] == ["ascend-a02 device 1"]
    assert "never came up" in rc.dead_ends[0]["why"] and rc.dead_ends[0]["remote"] == "192.168.0.1/5"


def notify_lines(pid: int, t: float, remote: str, tag: str = "AllReduce_grp", index: int | None = None) -> list[str]:
    idx = f", index[{index}]" if index is not None else ""
    return [err(pid, t, f"[TaskExceptionHandler][Callback]Task run failed, base information is streamID:[3], "
                        f"taskID[7], taskType[Notify Wait], tag[{tag}]{idx}.", "task_exception_handler.cc:452"),
            err(pid, t, f"[TaskExceptionHandler][Callback]Task run failed, para information is notify id:[0x7], "
                        f"stage:[ffffffff], remote rank:[{remote}].", "task_exception_handler.cc:454"),
            err(pid, t, "[TaskExceptionHandler][Callback]Task run failed, groupRank information is group:[grp], "
                        "user define information[rankSize:4].", "task_exception_handler.cc:456")]


def notify_bundle(remotes: dict[int, str | None], times: dict[int, float] | None = None) -> dict[str, list[str]]:
    files = {}
    for r in range(4):
        host = f"srv{r // 2}"
        files[f"{host}/process_log/run/plog/plog-{50 + r}_1.log"] = [setup(50 + r, 1, r, 4, f"10.0.0.{r // 2 + 1}",
                                                                           r % 2, f"10.8.0.{r}")]
        if remotes.get(r) is not None:
            files[f"{host}/process_log/debug/plog/plog-{50 + r}_2.log"] = notify_lines(
                50 + r, (times or {}).get(r, 200 + r), str(remotes[r]))
    return files


def test_notify_timeout_ranks_that_never_reported_are_the_root() -> None:
    rc = analyse(collect(notify_bundle({0: "3", 1: "3", 2: "3"})))
    assert rc.kind == "notify" and [p.name for p in rc.roots] == ["srv1 device 1"]


def test_notify_wait_chain_and_a_wait_on_itself() -> None:
    rc = analyse(collect(notify_bundle({0: "1", 1: "2", 2: "3", 3: "local"})))
    assert [p.name for p in rc.roots] == ["srv1 device 1"] and rc.cycle
    assert rc.chain == ["srv0 device 0", "srv0 device 1", "srv1 device 0", "srv1 device 1", "srv1 device 1"]
    assert "waits on itself" in rc.rule


def test_all_reported_but_spread_over_the_exec_timeout_blames_the_late_one() -> None:
    rc = analyse(collect(notify_bundle({0: "1", 1: "0", 2: "0", 3: "0"}, {0: 10, 1: 11, 2: 12, 3: 2000})))
    assert [p.name for p in rc.roots] == ["srv1 device 1"] and "came late" in rc.rule


def test_ei0002s_own_message_names_the_rank_waited_for() -> None:
    # a task exception in the text every version prints, without the older [TaskExceptionHandler] tag, then EI0002's
    # own message (its template: "... the Notify record from remote rank [%s]") naming the remote (tester U,
    # session 30: before, no wait had a remote and every erroring device was a possible root)
    files = notify_bundle({})
    for r in range(3):
        files[f"srv{r // 2}/process_log/debug/plog/plog-{50 + r}_2.log"] = [
            err(50 + r, 200 + r, "Task run failed, base information is streamID:[3], taskID[92], taskType[Notify "
                                 "Wait], tag[AllReduce_grp].", "task_exception_handler.cc:512"),
            err(50 + r, 200 + r, "EI0002: The wait execution of the Notify register times out. Reason: The Notify "
                                 "register has not received the Notify record from remote rank [3].",
                "task_exception_handler.cc:530")]
    table = collect(files)
    waits = [e for p in table.processes for e in p.errors]
    assert len(waits) == 3 and {(e.kind, e.remote_rank) for e in waits} == {("notify", 3)}
    rc = analyse(table)
    assert rc.kind == "notify" and [p.name for p in rc.roots] == ["srv1 device 1"]


def test_cqe_error_to_a_device_address() -> None:
    files = notify_bundle({})
    files["srv0/process_log/debug/plog/plog-50_2.log"] = [
        err(50, 5, "[Heartbeat]cqe err status[12], time:[2023-07-04 22:15:59.095392], ip:[10.8.0.3]",
            "heartbeat.cc:551")]
    rc = analyse(collect(files))
    assert rc.kind == "cqe" and [p.name for p in rc.roots] == ["srv1 device 1"]
    assert rc.chain == ["srv0 device 0", "srv1 device 1"]


def test_no_errors_no_roots() -> None:
    rc = analyse(collect(notify_bundle({})))
    assert rc.kind == "none" and rc.roots == []


# ---- wired into diagnose --logs ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def write(root: Path, files: dict[str, list[str]]) -> None:
    for rel, lines in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines) + "\n")


def test_diagnose_logs_names_the_root_device_the_chain_and_the_lines(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    write(tmp_path, chain_bundle(3))
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    assert d["fault_class"] != "unknown" and d["root"]["host"] == "ascend-a01" and d["root"]["device"] == 0
    rc = d["root_cluster"]
    assert rc["chain"] == "gpu-less-box device 2 -> ascend-a02 device 1 -> ascend-a01 device 0"
    assert any(e["file"].startswith("gpu-less-box/") and e["line"] == 2 for e in d["evidence_lines"])
    assert d["decided_by"].startswith("multi-rank root cluster")


def test_the_class_reason_names_the_root_devices_lines_once(tmp_path: Path, engine: Any) -> None:
    """The root's own lines are in the input: the reason says so once (the wording for a root named by its peers is
    not spliced into it: "the root devices' own own error lines" before)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    write(tmp_path, chain_bundle(3))
    d = diagnose_logs(str(tmp_path), engine)["diagnosis"]
    why = d["root_cluster"]["class_from"]
    assert "root devices'" in why and "own own" not in why and "reporting devices'" not in why


def test_a_device_named_by_the_exception_spreading_line_is_the_root_though_none_of_its_lines_is_there(
        engine: Any) -> None:
    """One rank's pasted cluster-exception line (HCCL user guide, fault-detection chapter: the line names where the
    exception occurred): the named server/device is the root, not the process that printed the line."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    line = ("[ERROR]HCCL(41717,python3):2025-06-19-09:00:50.000.000[task_exception_handler.cc:610] [41717]"
            "[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[10.20.0.7/5], Arrival Time:[Thu "
            "Jun 19 09:00:40 2025], ExceptionType:[Stuck Occurred], Possible Reason:1.Host process is stuck, "
            "2.Device task is stuck")
    d = diagnose_logs("-", engine, stdin=io.BytesIO(line.encode()))["diagnosis"]
    assert (d["root"]["host"], d["root"]["device"]) == ("10.20.0.7", 5)
    assert d["root_cluster"]["chain"] == "process 41717 -> 10.20.0.7 device 5"
    assert d["fault_class"] == "collective_timeout_sw" and d["confidence"] > 0
    assert "reporting devices'" in d["decided_by"]


def test_pasted_plog_lines_on_stdin_are_placed_by_their_server(engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    lines = []
    for k in range(3):
        _h, server, dip = HOSTS[k]
        lines.append(setup(700 + k, 10, k, 3, server, k, dip).replace("HCCL(903,", f"HCCL({700 + k},"))
        if k:
            lines.append(err(700 + k, 50 + k, transport(HOSTS[k - 1][1], k - 1)).replace("(903,", f"({700 + k},"))
    d = diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]
    assert d["root"]["name"] == "192.168.0.1 device 0"
    assert d["root_cluster"]["chain"].startswith("192.168.0.3 device 2 -> ")


# ---- ascend-fd's own fixtures ------------------------------------------------------------------------------------
ROOT_RE = r"{w}\b.*?(device|dev|npu|chip|/)[-_ ]?0*{d}\b"


# The class each fixture's evidence supports (docs/bundles.md says why, from the fixture's lines and the vendor
# documents), decided by documented rules (multirank.decide_class rules 1-2), so that a retrained model cannot flip it.
@needs_fixtures
@pytest.mark.parametrize(("case", "host", "device", "chain", "cls"), [
    ("st_event_timeout_testcase", "worker-1", 0, "worker-1 device 0 -> worker-0 device 0 -> worker-1 device 0",
     "collective_timeout_sw"),
    # worker-1 alone: the peer its link table names (worker-0's device, absent) did not answer and is the root
    ("st_event_timeout_testcase/worker-1", "124.0.0.21", None, "worker-1 device 0 -> 124.0.0.21 (rank 0)",
     "collective_timeout_sw"),
    ("st_transport_init_testcase", "worker-0", 0, "worker-2 device 2 -> worker-1 device 1 -> worker-0 device 0",
     "collective_timeout_sw"),
    # st_testcase's link change records are of 2022-08-01, seven weeks before its plogs (2022-09-23): the ports'
    # history, not the CQE's cause (derive.link_history_dropped); the root's own error lines are the driver's
    ("st_testcase", "worker-0", 0, "worker-0 device 0 -> 51.38.68.155", "driver_firmware_error"),
])
def test_ascend_fd_fixtures_both_ways(case: str, host: str, device: int | None, chain: str, cls: str,
                                     engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for rep in (diagnose_bundle(FX / case, engine), diagnose_logs(str(FX / case), engine)):
        d = rep["diagnosis"]
        assert d["fault_class"] == cls
        rc = d["root_cluster"]
        assert rc["fault_class"] == cls and rc["documented"], rc["class_from"]  # a documented rule, not the model
        assert (d["root"]["host"], d["root"]["device"]) == (host, device)
        assert rc["chain"] == chain
        if device is not None:
            assert re.search(ROOT_RE.format(w=re.escape(host), d=device), json.dumps(d, indent=1))
        else:  # a silent peer: no line of its own, no device of the input
            assert d["root"]["peer"] and rc["roots"][0]["peer"]
        assert d["evidence_lines"] and all(e["file"] and e["line"] for e in d["evidence_lines"])


@needs_fixtures
def test_ascend_fd_fixture_worker_alone_whose_peer_no_line_names(engine: Any) -> None:
    """st_transport_init's worker-3 alone: its transport error names no remote. The root is unknown (ascend-fd's
    code 133, root device unknown) and worker-3 device 2 is named as the device that waited, not as the root (it was
    the root before: the one rule for a missing peer, tester BJ)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    case = FX / "st_transport_init_testcase" / "worker-3"
    for rep in (diagnose_bundle(case, engine), diagnose_logs(str(case), engine)):
        d = rep["diagnosis"]
        assert d["fault_class"] == "collective_timeout_sw"
        assert d["root_cluster"]["roots"] == [] and d["component"] is None
        assert (d["root"]["host"], d["root"]["device"]) == (None, None) and d["root"]["peer"]
        assert any("worker-3 device 2 waited for a peer" in e for e in d["evidence"])


@needs_fixtures
def test_ascend_fd_fixture_classes_do_not_rest_on_the_model(engine: Any) -> None:
    """The same roots and classes from a model that knows nothing (uniform probabilities, abstaining)."""
    from opsbrain.bundle import diagnose_bundle

    class Blank:
        classes = engine.model.classes

        def proba_one(self, feats: Any) -> list[float]:
            return [1.0 / len(self.classes)] * len(self.classes)

        def novelty(self, feats: Any) -> float:
            return 0.0

    blank = type(engine)(Blank())  # type: ignore[arg-type]
    for case, cls in [("st_event_timeout_testcase", "collective_timeout_sw"),
                      ("st_transport_init_testcase", "collective_timeout_sw"),
                      ("st_testcase", "driver_firmware_error")]:
        rc = diagnose_bundle(FX / case, blank)["diagnosis"]["root_cluster"]
        assert (rc["fault_class"], rc["documented"]) == (cls, True), (case, rc["class_from"])


@needs_fixtures
def test_ascend_fd_module_inputs_get_a_documented_class(engine: Any) -> None:
    """st_module_testcase is one file per log source, many unrelated faults: the bundle's verdict is the incident
    its documented signatures name most clearly, not the abstaining one with the most lines."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.multirank import clear_vote

    rep = diagnose_bundle(FX / "st_module_testcase", engine)
    d = rep["diagnosis"]
    assert d["fault_class"] != "unknown" and len(rep["incidents"]) > 5
    assert any("name its class most clearly" in e for e in d["evidence"])
    assert any(e["file"].startswith("kg_parse/") for e in d["evidence_lines"])
    primary = next(i for i in rep["incidents"] if i["id"] == rep["primary"])
    assert primary["diagnosis"]["fault_class"] == d["fault_class"]
    assert clear_vote([], list(engine.model.classes)) is None


VENDOR = FX.parent / "vendor"


@pytest.mark.skipif(not (VENDOR / "kg-config.json").exists(), reason="../shared/reference/vendor is absent")
@needs_fixtures
@pytest.mark.parametrize(("case", "entries", "logs_only"), [
    ("st_testcase", {"AISW_MindSpore_Compiler_01", "AISW_PyTorch_Env_02"}, {"AISW_PyTorch_Env_02"}),
    ("st_event_timeout_testcase", {"AISW_CANN_HCCL_017"}, set()),
    ("st_transport_init_testcase", {"AISW_CANN_HCCL_018"}, set()),
])
def test_ascend_fd_fixtures_vendor_entries(case: str, entries: set[str], logs_only: set[str], engine: Any,
                                           tmp_path: Path) -> None:
    """The knowledge-graph entries ascend-fd finds (its kg-config.json regexes) are matched on the same lines, for
    --logs and for the bundle (the bundle reader drops a file's lines before its first time stamp, and st_testcase's
    rank-6 console has none: its AISW_PyTorch_Env_02 line shows in --logs only). Comp_Network_Custom_01 and
    AISW_TRACEBACK_* are not in kg-config.json: ascend-fd's code raises them from npu_info link records and
    tracebacks; opsbrain's own roce_port_down / traceback signatures read the same lines (the link records, seven
    weeks older than the job, are matched but do not decide)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(VENDOR / "kg-config.json", tmp_path)
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path))
    bundle = diagnose_bundle(FX / case, engine, matcher)
    assert entries - logs_only <= {k["entry"] for k in bundle["knowledge"] if k["source"] == "imported"}
    logs = diagnose_logs(str(FX / case), engine, matcher)
    assert entries <= {k["entry"] for k in logs["vendor_entries"]}
    cls = "driver_firmware_error" if case == "st_testcase" else "collective_timeout_sw"
    assert bundle["diagnosis"]["fault_class"] == logs["diagnosis"]["fault_class"] == cls


@needs_fixtures
def test_ascend_fd_cycle_roots_are_both_devices(engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle

    rc = diagnose_bundle(FX / "st_event_timeout_testcase", engine)["diagnosis"]["root_cluster"]
    assert rc["root"] == "worker-1 device 0, worker-0 device 0" and rc["cycle"] and rc["kind"] == "socket"


def test_workers_are_named_from_where_their_paths_differ() -> None:
    from opsbrain.ingest.workers import shared_head

    for names, want in ((["collected/worker-0", "collected/worker-1"], ["worker-0", "worker-1"]),
                        (["job.tar.gz:job/a/w1", "job.tar.gz:job/b/w2"], ["a/w1", "b/w2"]),
                        (["x/worker-0"], ["x/worker-0"]), (["worker-0", "worker-1"], ["worker-0", "worker-1"]),
                        (["", "sub/worker-1"], ["", "sub/worker-1"]), (["a/w", "b/w"], ["a/w", "b/w"])):
        cut = shared_head(names)
        assert [n[cut:] for n in names] == want, names


def test_an_archive_without_a_top_folder_names_its_workers_as_the_bundle_reader_does() -> None:
    # ``tar czf job.tgz worker-0 worker-1`` (no top folder): --logs labels a member ``job.tgz:worker-0/...``
    # (opsbrain.ingest.bytelines.read_members); the bundle reader names the worker ``worker-0``. A ':' in a directory's
    # own name (an address with its port) is no archive's
    from opsbrain.ingest.workers import shared_head

    for names, want in ((["job.tgz:worker-0", "job.tgz:worker-1"], ["worker-0", "worker-1"]),
                        (["in/job.tar.gz:10.0.0.1", "in/job.tar.gz:10.0.0.2"], ["10.0.0.1", "10.0.0.2"]),
                        (["job.zip:c/w1", "job.zip:c/w2"], ["w1", "w2"]), (["job.tgz:worker-0"], ["worker-0"]),
                        (["in/job.tar.gz:c/worker-0"], ["c/worker-0"]),
                        (["host:0", "host:1"], ["host:0", "host:1"])):
        cut = shared_head(names)
        assert [n[cut:] for n in names] == want, names


# ---- the AI CPU's notify wait (device logs) --------------------------------------------------------------------
# The form of ascend-fd's st_aicpu_notify_testcase (Ascend/mind-cluster @22bb3d98, component/ascend-faultdiag/test/):
# the device log process_log/debug/device-<N>/device-<host pid>_<stamp>.log holds the AI CPU scheduler's HCCL lines
# (their printed pid is the scheduler's); a notify-wait task exception names the remote rank, the opData line after
# it the communicator. ascend-fd finds root = the rank waited for (code 109). Values here are our own.
def _aicpu(pid: int, t: float, text: str, where: str = "aicpu_communicator.cc:3083") -> str:
    return f"[ERROR] HCCL(7001,aicpu_scheduler):{ts(t)} [{where}] [7100]{text}"


def _base(kind: str, remote: int) -> str:
    return (f"[TaskException]base information is streamId:12, sqid:13, head:40, tail:41, type:{kind}, localRank:1, "
            f"remoteRank:{remote}, taskId:99, notifyId:5, addr1High:0x0, addr1Low:0x0, addr2High:0x0, addr2Low:0x0.")


OPDATA = ("[TaskException]opData information is tag:worldCommSendRecv_2_1_grp_aSendExecutor_device, group:grp_a, "
          "opIndex:77, count:1024, dataType:11, opType:4, rootId:4294967295, dstAddr:0x10, srcAddr:0x10.")


def _identity_line(pid: int, t: float, rank: int, dev: int) -> str:
    return (f"[INFO] HCCL({pid},python3.8):{ts(t)} [hccl_comm.cc:129] [{pid}]hcclCommInitInfo:commId[c], rank[{rank}], "
            f"totalRanks[2], serverId[%bond0.1], deviceType[4],logicDevId[{dev}], identifier[grp_a]")


def aicpu_bundle() -> dict[str, list[str]]:
    return {
        "w0/process_log/run/plog/plog-500_1.log": [_identity_line(500, 1.0, 0, 6)],
        "w0/process_log/debug/device-6/device-500_2.log": [
            _aicpu(500, 100.0, "Task {devId: 1 streamId: 12} run failed of exception, idx:[0]",
                   "aicpu_hccl_sqcq.cc:330"),
            _aicpu(500, 100.1, _base("SDMA", 1).replace("localRank:1", "localRank:0"), "aicpu_communicator.cc:3750")],
        "w1/process_log/run/plog/plog-600_1.log": [_identity_line(600, 1.0, 1, 2)],
        "w1/process_log/debug/device-2/device-600_2.log": [
            _aicpu(600, 900.0, _base("NOTIFY WAIT", 4294967295)),
            _aicpu(600, 900.1, OPDATA, "aicpu_communicator.cc:3806"),
            _aicpu(600, 900.2, _base("NOTIFY WAIT", 0)),
            _aicpu(600, 900.3, OPDATA, "aicpu_communicator.cc:3806")],
    }


def test_an_ai_cpu_notify_wait_in_a_device_log_is_a_wait_for_the_rank_it_names() -> None:
    table = collect(aicpu_bundle())
    w1 = next(p for p in table.processes if p.worker == "w1")
    assert w1.pid == "600" and w1.device == 2  # the device log is the host process's (its name), not the scheduler's
    notify = [e for e in w1.errors if e.kind == "notify"]
    assert [(e.remote_rank, e.group) for e in notify] == [(0, "grp_a")]  # UINT32_MAX names no rank
    rc = analyse(table)
    assert [p.name for p in rc.roots] == ["w0 device 6"]
    assert rc.chain == ["w1 device 2", "w0 device 6"] and rc.kind == "notify"


def test_two_ai_cpu_exceptions_on_different_threads_keep_each_its_own_communicator() -> None:
    # thread 7100's base line, then thread 7200's base line, then each thread's opData line: each base line pairs with
    # its own thread's next line (before, the other thread's line in between dropped the first exception)
    other = OPDATA.replace("grp_a", "grp_b")
    lines = [_aicpu(600, 900.0, _base("NOTIFY WAIT", 0)),
             _aicpu(600, 900.0, _base("NOTIFY WAIT", 3)).replace("[7100]", "[7200]"),
             _aicpu(600, 900.1, other, "aicpu_communicator.cc:3806").replace("[7100]", "[7200]"),
             _aicpu(600, 900.1, OPDATA, "aicpu_communicator.cc:3806")]
    files = {**aicpu_bundle(), "w1/process_log/debug/device-2/device-600_2.log": lines}
    w1 = next(p for p in collect(files).processes if p.worker == "w1")
    assert sorted((e.remote_rank, e.group) for e in w1.errors if e.kind == "notify") == [(0, "grp_a"), (3, "grp_b")]


def test_an_ai_cpu_base_line_followed_by_another_line_of_its_thread_has_no_communicator() -> None:
    lines = [_aicpu(600, 900.0, _base("NOTIFY WAIT", 0)),
             _aicpu(600, 900.05, "[TaskException]some other error of the same thread"),
             _aicpu(600, 900.1, OPDATA, "aicpu_communicator.cc:3806")]
    files = {**aicpu_bundle(), "w1/process_log/debug/device-2/device-600_2.log": lines}
    w1 = next(p for p in collect(files).processes if p.worker == "w1")
    assert [e for e in w1.errors if e.kind == "notify"] == []


def test_an_os_device_log_is_no_process_log() -> None:
    from opsbrain.ingest.ranks import RE_PLOG_FILE

    assert RE_PLOG_FILE.search("w/process_log/debug/device-3/device-1365_20250806230906733.log").group("pid") == "1365"
    assert RE_PLOG_FILE.search("w/ascend/log/debug/device-3/device-77_2025.log").group("pid") == "77"
    assert RE_PLOG_FILE.search("w/device_log/slog/dev-os-3/device-0/device-0_20230607152210099.log") is None


@pytest.mark.parametrize("rel", ["device_log/slog/dev-os-0/debug/device-0/device-0_20250619092715212.log",
                                 "device_log/slog/dev-os-0/device-0/device-0_20250619092715212.log"])
def test_a_device_os_log_adds_no_process(rel: str) -> None:
    # msnpureport's export of the device's own slog, also with its level directory (ascend-fd's toolkit,
    # msnpureport_log_config.py: slog/dev-os-N/debug/device-N/device-N*.log): its number is the device's, its lines
    # the device's own (the HCCP service, the AI CPU scheduler): taken as "process 0" (or the scheduler's pid) they
    # made a device that is no rank an erroring process, a suspect root
    files = chain_bundle(2)
    files[f"ascend-a01/{rel}"] = [
        f"[ERROR] HCCP(1234,hccp_service.bin):{ts(99)} [ra_hdc.c:100][tid:5]hdc recv failed, ret -1",
        f"[ERROR] HCCL(3496,aicpu_scheduler):{ts(99.5)} [aicpu_communicator.cc:3083] [3896][TaskException]base "
        "information is streamId:149, sqid:153, head:1488, tail:136, type:NOTIFY WAIT, localRank:0, remoteRank:1, "
        "taskId:26064, notifyId:760",
        f"[ERROR] HCCL(3496,aicpu_scheduler):{ts(99.5)} [aicpu_communicator.cc:3806] [3896][TaskException]opData "
        "information is tag:worldCommSendRecv_grp, group:grp, opIndex:39013693"]
    t = collect(files)
    assert [p.name for p in t.processes] == ["ascend-a01 device 0", "ascend-a02 device 1"]


@pytest.mark.parametrize("reader", ["bundle", "logs"])
def test_an_ai_cpu_notify_wait_bundle_is_a_collective_timeout_on_the_rank_waited_for(reader: str,
                                                                                      tmp_path: Path) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    for name, lines in aicpu_bundle().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    engine = load_engine(None, say=lambda m: None)
    rep = diagnose_bundle(tmp_path, engine) if reader == "bundle" else diagnose_logs(str(tmp_path), engine)
    d = rep["diagnosis"]
    assert d["fault_class"] == "collective_timeout_sw" and d["confidence"] > 0
    assert (d["root"]["host"], d["root"]["device"]) == ("w0", 6)
    assert d["root_cluster"]["chain"] == "w1 device 2 -> w0 device 6"


def _row(dest: str, dest_rank: int, src: str, src_rank: int, role: str) -> str:
    # HCCL's LINK_ERROR_INFO row with its port columns (the form of ascend-fd's st_transport_timeout_testcase)
    return f"   |  {dest}({dest_rank})   |  16666  |   {src}({src_rank})   |  0  |  {role}  | time out |"


P2P_TO_1 = "[Wait][P2PConnected]connected p2p timeout, timeout:130 s. local logicDevid:{dev}, remote physic id:1."


def stale_row_job() -> dict[str, list[str]]:
    """Device a/2 waits (link row) for rank 10 at b/2's address; b/2's row names rank 8 (b/0) at an address no
    process has; b/0 waits (p2p) for device 1, which logged nothing."""
    ident = "10.0.0.1%eth0_60000_0_1"
    return {
        "a/process_log/run/plog/plog-10_1.log": [setup(10, 1.0, 2, 16, "10.0.0.1", 2, "192.168.1.2", ident)],
        "a/process_log/debug/plog/plog-10_2.log": [err(10, 100.0, _row("192.168.1.12", 10, "192.168.1.2", 2, "server"),
                                                       "hccl_socket_manager.cc:553")],
        "b/process_log/run/plog/plog-20_1.log": [setup(20, 1.0, 8, 16, "10.0.0.2", 0, "192.168.1.10", ident)],
        "b/process_log/debug/plog/plog-20_2.log": [err(20, 160.0, P2P_TO_1.format(dev=0), "p2p_mgmt.cc:305")],
        "b/process_log/run/plog/plog-21_1.log": [setup(21, 1.0, 9, 16, "10.0.0.2", 1, "192.168.1.11", ident)],
        "b/process_log/run/plog/plog-22_1.log": [setup(22, 1.0, 10, 16, "10.0.0.2", 2, "192.168.1.12", ident)],
        "b/process_log/debug/plog/plog-22_2.log": [
            err(22, 150.0, _row("192.168.9.99", 8, "192.168.1.12", 10, "client"), "hccl_socket_manager.cc:553")],
    }


def test_a_link_row_with_ports_is_read_and_an_unknown_address_resolves_by_its_rank() -> None:
    files = stale_row_job()
    # then a later p2p wait of b/2 for device 1
    files["b/process_log/debug/plog/plog-22_2.log"].append(err(22, 151.0, P2P_TO_1.format(dev=2), "p2p_mgmt.cc:305"))
    table = collect(files)
    a = next(p for p in table.processes if p.worker == "a")
    assert [(e.remote_ip, e.remote_rank) for e in a.errors if e.remote_ip] == [("192.168.1.12", 10)]
    rc = analyse(table)
    assert [p.name for p in rc.roots] == ["b device 1"]
    # each device's first wait, as ascend-fd draws it: b device 2 waited for rank 8 (b device 0) before device 1
    assert rc.chain == ["a device 2", "b device 2", "b device 0", "b device 1"]


def test_a_link_rows_rank_is_read_in_the_communicator_the_row_names_this_process_in() -> None:
    # HCCL prints the row with the remote's and its own communicator rank (hccl_socket_manager.cc PrintSocketsInfo:
    # dstRankToUserRank, userRank_); a process in two communicators (a sub-group set up first, then the world) is
    # rank 10 only in the world: the stale address's rank 8 is the world's rank 8, not the sub-group's
    world, sub = "10.0.0.1%eth0_60000_0_1", "10.0.0.1%eth0_60000_0_2"
    files = {
        "a/process_log/run/plog/plog-10_1.log": [setup(10, 1.0, 3, 16, "10.0.0.1", 2, "192.168.1.2", sub),
                                                 setup(10, 2.0, 10, 16, "10.0.0.1", 2, "192.168.1.2", world)],
        "a/process_log/debug/plog/plog-10_2.log": [err(10, 100.0, _row("192.168.9.99", 8, "192.168.1.2", 10, "client"),
                                                       "hccl_socket_manager.cc:553")],
        "b/process_log/run/plog/plog-20_1.log": [setup(20, 1.0, 8, 16, "10.0.0.2", 0, "192.168.1.10", sub),
                                                 setup(20, 2.0, 5, 16, "10.0.0.2", 0, "192.168.1.10", world)],
        "b/process_log/run/plog/plog-21_1.log": [setup(21, 1.0, 6, 16, "10.0.0.2", 1, "192.168.1.11", sub),
                                                 setup(21, 2.0, 8, 16, "10.0.0.2", 1, "192.168.1.11", world)],
    }
    rc = analyse(collect(files))
    assert [p.name for p in rc.roots] == ["b device 1"]
    assert rc.chain == ["a device 2", "b device 1"]


def test_a_devices_first_wait_is_its_earliest_whatever_order_its_files_are_read_in() -> None:
    # a rotated plog (plog-<pid>_<stamp>.log, two stamps) read later one first (an archive's member order): the
    # chain follows the device's earliest wait, the link-table one, as when read in order
    later = {"b/process_log/debug/plog/plog-22_3.log": [err(22, 151.0, P2P_TO_1.format(dev=2), "p2p_mgmt.cc:305")]}
    files = stale_row_job()
    for order in (files | later, later | files):
        rc = analyse(collect(order))
        assert rc.chain == ["a device 2", "b device 2", "b device 0", "b device 1"]


def test_the_info_lines_of_a_big_device_log_keep_no_memory() -> None:
    # a CANN device log (read by the rank analysis since the AI CPU's notify wait is) is mostly INFO lines: only the
    # lines read further are de-duplicated, so none of these is remembered (a hash each kept ~70 bytes a line)
    import tracemalloc

    lines = (f"[INFO] HCCL(5375,aicpu_scheduler):{ts(60 + i / 1e4)} [aicpu_communicator.cc:3083] [5792]launch task "
             f"streamId:{i}, sqid:153, type:SDMA, taskId:{i}" for i in range(50_000))
    c = RankCollector("job")
    tracemalloc.start()
    try:
        c.feed_lines(lines, "w0/process_log/debug/device-2/device-600_2.log")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_an_ai_cpu_base_line_left_open_does_not_take_a_later_exceptions_communicator() -> None:
    files = aicpu_bundle()
    dev = "w1/process_log/debug/device-2/device-600_2.log"
    # the base line naming rank 0 is followed by another error line, not by its opData line; a later SDMA
    # exception's opData line must not close it
    files[dev] = [_aicpu(600, 900.2, _base("NOTIFY WAIT", 0)),
                  _aicpu(600, 900.25, "Task {devId: 1 streamId: 12} run failed of exception", "aicpu_hccl_sqcq.cc:330"),
                  _aicpu(600, 901.0, _base("SDMA", 0)), _aicpu(600, 901.1, OPDATA, "aicpu_communicator.cc:3806")]
    table = collect(files)
    w1 = next(p for p in table.processes if p.worker == "w1")
    assert not [e for e in w1.errors if e.kind == "notify"]


def test_only_the_devices_waited_for_are_the_roots_when_the_first_error_is_no_timeout() -> None:
    files = aicpu_bundle()
    # a third process, quiet (no timeout) and erroring, that nobody waited for
    files["w2/process_log/run/plog/plog-700_1.log"] = [_identity_line(700, 1.0, 0, 4).replace("grp_a", "grp_b")]
    files["w2/process_log/debug/plog/plog-700_2.log"] = [
        f"[ERROR] RUNTIME(700,python3.8):{ts(50.0)} [stars_engine.cc:1551]7 ProcLogicCqReport:Task run failed"]
    rc = analyse(collect(files))
    assert [p.name for p in rc.roots] == ["w0 device 6"] and rc.chain == ["w1 device 2", "w0 device 6"]


def test_a_heartbeat_line_naming_a_rank_whose_log_is_there_makes_that_rank_the_root() -> None:
    """The named rank's own plog is in the input (a full collection): its process is the root, the reporter waited
    on it (hicann/hccl docs/zh/user_guide/fault_diagnosis/task_exec_stage.md, the cluster heartbeat)."""
    def init(pid: int, rank: int) -> str:
        return (f"[INFO] HCCL({pid},all_reduce_test):2025-10-23-17:16:52.720.213 [op_base.cc:1292] [{pid}]"
                f"Entry-HcclCommInitRootInfoInner:ranks[4], rank[{rank}], rootinfo: host ip[127.10.0.1] port[60000] "
                f"nicDeploy[1] identifier[127.10.0.1%enp_60000_0_1761275812718970], deviceLogicId[{rank}]")
    lost = ("[ERROR]HCCL(2111665,all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:610][2111665]"
            "[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[127.10.0.1/1], Arrival Time:[Thu "
            "Oct 23 17:25:58 2025], Discoverer:[127.10.0.1/2], ExceptionType:[Heartbeat Lost Occurred], Possible "
            "Reason:1. Process has exited, 2. Network Disconnected")
    table = collect({"w/process_log/run/plog/plog-2111665_20251023171652405.log": [init(2111665, 0), lost],
                     "w/process_log/run/plog/plog-2111666_20251023171652405.log": [init(2111666, 1)]}, root="w")
    rc = analyse(table)
    assert rc.kind == "cluster" and [p.pid for p in rc.roots] == ["2111666"]
    assert len(rc.chain) == 2 and rc.chain[-1] == rc.roots[0].name and len(rc.edges) == 1
    # the named rank's plog not collected: a stand-in on the reporter's host (same server address), one name for it
    rc = analyse(collect({"w/process_log/run/plog/plog-2111665_20251023171652405.log": [init(2111665, 0), lost]},
                         root="w"))
    assert rc.chain == ["w device 0", "w device 1"], rc.chain


def test_the_process_the_kernels_oom_killer_ended_is_the_root_its_peers_waited_on() -> None:
    """The host's messages name the killed pid, which is rank 1's plog; ranks 0 and 2 time out (mm/oom_kill.c's
    line; the hccl fault-diagnosis guide: a peer process that exited)."""
    def init(pid: int, rank: int) -> str:
        return (f"[INFO] HCCL({pid},all_reduce_test):2025-10-24-11:16:52.720.213 [op_base.cc:1292] [{pid}]"
                f"Entry-HcclCommInitRootInfoInner:ranks[3], rank[{rank}], rootinfo: host ip[127.10.0.1] port[60000] "
                f"nicDeploy[1] identifier[127.10.0.1%enp_60000_0_1761275812718970], deviceLogicId[{rank}]")

    def timeout(pid: int) -> str:
        return (f"[ERROR] HCCL({pid},all_reduce_test):2025-10-24-11:18:29.597.044 [task_exception_handler.cc:908] "
                f"[{pid}][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[21]")
    kill = ("2025-10-24T11:17:30.071960+08:00 localhost kernel: [62919.620455] Out of memory: Killed process 2111666 "
            "(all_reduce_test) total-vm:401348kB, anon-rss:1536kB, file-rss:6144kB, shmem-rss:0kB, UID:0")
    plog = "w/process_log/run/plog/plog-{}_20251024111652405.log"
    files = {plog.format(2111665): [init(2111665, 0), timeout(2111665)],
             plog.format(2111666): [init(2111666, 1)],
             plog.format(2111667): [init(2111667, 2), timeout(2111667)]}
    rc = analyse(collect(files, root="w"))
    assert rc.kind != "killed" and {p.pid for p in rc.roots} == {"2111665", "2111667"}  # without the kernel's line
    rc = analyse(collect({**files, "w/messages": [kill]}, root="w"))
    assert rc.kind == "killed" and [p.pid for p in rc.roots] == ["2111666"] and len(rc.edges) == 2
    assert rc.evidence[0].text.endswith("UID:0")
    # Linux 4.x named the victim on a line of its own, without "Out of memory:" (v4.19 mm/oom_kill.c
    # __oom_kill_process; systemd/systemd#6966's layout): the same root (session 46)
    bare = ("Oct 24 11:17:30 localhost kernel: Killed process 2111666 (all_reduce_test) total-vm:401348kB, "
            "anon-rss:1536kB, file-rss:6144kB, shmem-rss:0kB")
    rc = analyse(collect({**files, "w/messages": [bare]}, root="w"))
    assert rc.kind == "killed" and [p.pid for p in rc.roots] == ["2111666"]


# ---- one host, one name: the server address a heartbeat names and the worker directory --------------------------
ROOT_IDENT = "10.0.0.1%eth0_60000_0_1761275812718970"


def _root_init(pid: int, rank: int, dev: int) -> str:
    """HCCL's communicator init by root info, as every rank prints it in its run plog (hicann/hccl
    docs/zh/user_guide/fault_diagnosis/debug_thinking.md: ``rootinfo`` is the root node's information;
    cluster_info_nego.md: the root rank, usually rank 0, calls HcclGetRootInfo with its host NIC's address and port,
    and the root info is broadcast to every rank): ``host ip`` is the root's host, the same on every rank."""
    return (f"[INFO] HCCL({pid},all_reduce_test):2025-10-23-17:16:52.720.213 [op_base.cc:1292] [{pid}]"
            f"Entry-HcclCommInitRootInfoInner:ranks[2], rank[{rank}], rootinfo: host ip[10.0.0.1] port[60000] "
            f"nicDeploy[1] identifier[{ROOT_IDENT}], deviceLogicId[{dev}]")


def _lost(pid: int, server: str, dev: int) -> str:
    """HCCL's heartbeat verdict naming the rank whose heartbeat was lost by its server address and device
    (hicann/hccl docs/zh/user_guide/fault_diagnosis/task_exec_stage.md, HeartbeatAbnormal)."""
    return (f"[ERROR]HCCL({pid},all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:610][{pid}]"
            f"[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[{server}/{dev}], Arrival Time:[Thu "
            "Oct 23 17:25:58 2025], Discoverer:[10.0.0.1/0], ExceptionType:[Heartbeat Lost Occurred], Possible "
            "Reason:1. Process has exited, 2. Network Disconnected")


def _two_hosts() -> dict[str, list[str]]:
    """wa runs rank 0 (device 0, the root) and reports rank 1's heartbeat lost at 10.0.0.2 device 1; wb runs rank 1
    (device 1). Neither prints its own server: their init lines name only the root's host."""
    return {"wa/process_log/run/plog/plog-100_20251023171652405.log": [_root_init(100, 0, 0),
                                                                        _lost(100, "10.0.0.2", 1)],
            "wb/process_log/run/plog/plog-200_20251023171652405.log": [_root_init(200, 1, 1)]}


def test_the_root_infos_host_ip_is_the_roots_host_not_every_processs_server() -> None:
    procs = {p.worker: p for p in collect(_two_hosts(), root="job").processes}
    assert procs["wa"].server == "10.0.0.1"  # the root (rank 0)'s host
    assert procs["wb"].server is None  # before: 10.0.0.1, the root's address, as if wb ran there


def _rank_table() -> str:
    """HCCL's rank table (hicann/hccl docs/zh/user_guide/cluster_info_config/rank_table_config_a2.md: server_list,
    server_id, device_id / device_ip / rank_id), pretty-printed over several lines as a job's hccl.json is."""
    return json.dumps({"version": "1.0", "server_count": "2", "status": "completed", "server_list": [
        {"server_id": "10.0.0.1", "device": [{"device_id": "0", "device_ip": "192.168.100.1", "rank_id": "0"}]},
        {"server_id": "10.0.0.2", "device": [{"device_id": "1", "device_ip": "192.168.100.2", "rank_id": "1"}]}]},
        indent=4)


def _ip_answer(dev: int, ip: str) -> list[str]:
    """``hccn_tool -i N -ip -g`` in a worker's npu_info file (ascend-fd's collection script writes the command line
    with its full path, then the tool's answer)."""
    return [f"/usr/local/Ascend/driver/tools/hccn_tool -i {dev} -ip -g", f"ipaddr:{ip}", "netmask:255.255.255.0", ""]


def test_a_rank_table_and_a_workers_device_address_name_the_server_of_its_processes() -> None:
    """The heartbeat names wb by its server address; wb's npu_info gives its device 1 the address the rank table
    lists under server 10.0.0.2: one host, one name in the chain (before: ``wa device 0 -> 10.0.0.2 device 1``, a
    stand-in beside wb's own process)."""
    files = {**_two_hosts(), "job/hccl.json": _rank_table().splitlines(),
             "wb/environment_check/npu_info_after.txt": _ip_answer(1, "192.168.100.2")}
    table = collect(files, root="job")
    assert {p.worker: p.server for p in table.processes} == {"wa": "10.0.0.1", "wb": "10.0.0.2"}
    rc = analyse(table)
    assert rc.kind == "cluster" and rc.chain == ["wa device 0", "wb device 1"], rc.chain
    assert [p.pid for p in rc.roots] == ["200"]
    # without the rank table nothing ties 10.0.0.2 to wb: the named device stays a stand-in by its address
    files.pop("job/hccl.json")
    assert analyse(collect(files, root="job")).chain == ["wa device 0", "10.0.0.2 device 1"]


def test_a_rank_table_that_lists_none_of_a_workers_addresses_leaves_its_server_alone() -> None:
    # the worker's devices are not in the rank table (another job's, or the twin's bundle beside its own addresses):
    # no server is found for it, and a process that prints its own keeps it (before: StopIteration, exit 70, on
    # the padded bundle of benchmarks/bench_startup.py)
    files = {"wc/process_log/run/plog/plog-300_1.log": [setup(300, 1, 0, 2, "10.0.0.9", 0, "192.168.7.7")],
             "wc/process_log/run/plog/plog-301_1.log": [err(301, 5, "recv fail")],  # prints no server
             "job/hccl.json": _rank_table().splitlines()}
    table = collect(files, root="job")
    assert {p.pid: p.server for p in table.processes} == {"300": "10.0.0.9", "301": None}


def test_the_root_infos_host_names_the_roots_worker_in_the_chain() -> None:
    """wb reports the root's (rank 0's) heartbeat lost at 10.0.0.1 device 0: wa, whose process is the root of the
    communicator, is that host (before: a stand-in named 10.0.0.1 beside wa device 0, or wb's own process read as
    living at the root's address)."""
    files = {"wa/process_log/run/plog/plog-100_20251023171652405.log": [_root_init(100, 0, 0)],
             "wb/process_log/run/plog/plog-200_20251023171652405.log": [_root_init(200, 1, 1),
                                                                         _lost(200, "10.0.0.1", 0)]}
    rc = analyse(collect(files, root="job"))
    assert rc.chain == ["wb device 1", "wa device 0"] and [p.pid for p in rc.roots] == ["100"], rc.chain


@pytest.mark.parametrize("how", ["logs", "bundle"])
def test_logs_and_bundles_name_the_heartbeats_peer_by_its_worker(tmp_path: Path, engine: Any, how: str) -> None:
    """The same two hosts as files: ``diagnose --logs DIR`` and ``--bundle DIR`` read the rank table and the npu_info
    answer alike (the bundle fed only its plogs, npu_info files and consoles to the rank analysis before)."""
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    write(tmp_path, {**_two_hosts(), "hccl.json": _rank_table().splitlines(),
                     "wb/environment_check/npu_info_after.txt": _ip_answer(1, "192.168.100.2")})
    d = (diagnose_logs(str(tmp_path), engine) if how == "logs" else diagnose_bundle(tmp_path, engine))["diagnosis"]
    assert d["root_cluster"]["chain"] == "wa device 0 -> wb device 1", d["root_cluster"]
    assert (d["root"]["host"], d["root"]["device"]) == ("wb", 1)
