"""Multi-host jobs a helper built in real layouts (session 60, probe60b), in small: a flat ``process_log/rank_N/`` of
two servers, a rank-table job whose waits name MindSpore's ``hccl_world_group``, a dead end at a rank the job's rank
table places. Line formats as docs/formats.md's real examples (HCCL's task exception handler, SetupAgent, ``hcom init
by file``, the runtime's ErrCode)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ingest.rankhosts import rank_in_table

IDENT = "10.20.0.1%enp189s0f0_60000_0_1740823200123456"


def _stamp(second: int) -> str:
    return f"2025-03-01-10:{second // 60:02d}:{second % 60:02d}.000.000"


def _setup(pid: int, rank: int, server: str, dev: int) -> str:
    return (f"[INFO] HCCL({pid},python3):{_stamp(1)} [topoinfo_detect.cc:506] [{pid + 5}][HCCL_TRACE][Flat]SetupAgent "
            f"rankNum[4], rank[{rank}], rootInfo identifier[{IDENT}], server[{server}%enp189s0f0], serverPort[60000]"
            f"deviceType[2], logicDevId[{dev}], phydevId[{dev}], deviceIp[192.168.{rank}.1{dev}]\n")


def _by_file(pid: int, rank: int, server: str, dev: int) -> str:
    return (f"[TRACE] HCCL({pid},python3):{_stamp(1)} [status:init] [hcom.cc:196][{pid + 5}][3]hcom init by file "
            f"success,take time [1174468]us, rankTablePath[/user/config/rank_table.json], rankNum[4], rank[{rank}],"
            f"server[{server}], device[{dev}]\n")


def _wait(pid: int, remote: int, group: str, second: int) -> str:
    head = f"[ERROR] HCCL({pid},python3):{_stamp(second)} [task_exception_handler.cc:45"
    tail = f"[{pid + 5}][TaskExceptionHandler][Callback]Task run failed, "
    return (f"{head}2] {tail}base information is streamID:[3], taskID[7], taskType[Notify Wait], tag[AllReduce_"
            f"{IDENT}].\n{head}4] {tail}para information is notify id:[0x7], stage:[ffffffff], "
            f"remote rank:[{remote}].\n"
            f"{head}6] {tail}groupRank information is group:[{group}], user define information[rankSize:4].\n")


def _uce(pid: int) -> str:
    return (f"[ERROR] RUNTIME({pid},python3):{_stamp(1200)} [api_c.cc:3783] [{pid + 5}]{pid + 5}rtStreamSynchronize:"
            "ErrCode=507053\n")


SERVERS = {0: ("10.20.0.1", 0), 1: ("10.20.0.1", 1), 2: ("10.20.0.2", 0), 3: ("10.20.0.2", 1)}


def _read(tmp_path: Path, job: Path) -> list[dict[str, Any]]:
    out = []
    for mode in ("--bundle", "--logs"):
        res = CliRunner().invoke(cli, ["diagnose", mode, str(job), "--json", "--data-dir", str(tmp_path / "d")])
        assert res.exit_code == 0, res.output
        doc = json.loads(res.output)
        out.append(doc.get("diagnosis", doc))
    return out


def test_a_flat_rank_folder_of_two_servers_keeps_every_process(tmp_path: Path) -> None:
    """ascend-fd's flat ``process_log/rank_N/`` of a two-server job: rank 1 (10.20.0.1 device 1) has the HBM fault,
    the others wait on it. Before, one process a device was kept (half the job dropped), and the root was an absent
    rank."""
    job = tmp_path / "job"
    for rank, (server, dev) in SERVERS.items():
        pid = 20000 + 100 * rank
        text = _setup(pid, rank, server, dev) + (_uce(pid) if rank == 1 else _wait(pid, 1, IDENT, 3000 + rank))
        plog = job / "process_log" / f"rank_{rank}" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
        plog.parent.mkdir(parents=True)
        plog.write_text(text)
    for d in _read(tmp_path, job):
        assert d["fault_class"] == "hbm_uce", d["fault_class"]
        assert (d["root"]["host"], d["root"]["device"]) == ("10.20.0.1", 1), d["root"]


@pytest.mark.parametrize("group", ["hccl_world_group", IDENT])
def test_a_world_group_wait_is_a_wait_in_the_processs_one_communicator(tmp_path: Path, group: str) -> None:
    """A rank-table job: rank 2 (10.20.0.2 device 0) was killed and printed nothing after its set-up; the others'
    waits name ``hccl_world_group``, which no ``hcom init by file`` line names (its communicator is
    ``identifier-NA``). Before, every wait was a dead end and the root the first waiter's remote."""
    job = tmp_path / "job"
    for rank, (server, dev) in SERVERS.items():
        pid = 20000 + 100 * rank
        name = "node-1" if server.endswith(".1") else "node-2"
        text = _by_file(pid, rank, server, dev)
        if rank != 2:
            text += _wait(pid, 2 if rank != 3 else 0, group if group != IDENT else "identifier-NA", 3000 + rank)
        plog = job / name / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
        plog.parent.mkdir(parents=True, exist_ok=True)
        plog.write_text(text)
    for d in _read(tmp_path, job):
        assert (d["root"]["host"], d["root"]["device"]) == ("node-2", 0), d["root"]


RANK_TABLE = {"version": "1.0", "server_count": "2", "status": "completed", "server_list": [
    {"server_id": "10.20.0.1", "device": [{"device_id": "0", "device_ip": "192.168.1.10", "rank_id": "0"},
                                          {"device_id": "1", "device_ip": "192.168.1.11", "rank_id": "1"}]},
    {"server_id": "10.20.0.2", "device": [{"device_id": "0", "device_ip": "192.168.2.10", "rank_id": "2"},
                                          {"device_id": "1", "device_ip": "192.168.2.11", "rank_id": "3"}]}]}


def test_an_absent_rank_is_placed_by_the_jobs_rank_table(tmp_path: Path) -> None:
    """The second server's logs were not collected; the first's ranks wait on rank 3, which the rank table places
    at 10.20.0.2 device 1. Before, the root's host was ``rank 3 of <communicator>`` and no device."""
    job = tmp_path / "job"
    job.mkdir()
    (job / "rank_table.json").write_text(json.dumps(RANK_TABLE, indent=2))
    for rank in (0, 1):
        server, dev = SERVERS[rank]
        pid = 20000 + 100 * rank
        plog = job / "node-1" / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
        plog.parent.mkdir(parents=True, exist_ok=True)
        plog.write_text(_setup(pid, rank, server, dev) + _wait(pid, 3, IDENT, 3000 + rank))
    for d in _read(tmp_path, job):
        assert (d["root"]["host"], d["root"]["device"]) == ("10.20.0.2", 1), d["root"]


def test_rank_in_table_needs_the_communicators_size_to_be_the_tables() -> None:
    from opsbrain.ingest.rankhosts import rank_table_listing

    listed = rank_table_listing({"rank_table.json": json.dumps(RANK_TABLE).splitlines()})
    assert rank_in_table(3, listed, 4) == ("10.20.0.2", 1, "rank_table.json")
    assert rank_in_table(3, listed, None) == ("10.20.0.2", 1, "rank_table.json")
    assert rank_in_table(1, listed, 2) is None  # a sub-communicator's rank 1 is no global rank
    assert rank_in_table(9, listed, None) is None


def test_a_sub_groups_rank_is_neither_the_world_groups_nor_the_tables(tmp_path: Path) -> None:
    """review60: a wait in a communicator no process registered (a sub-group MindSpore created; its rank 1 is no
    global rank) is no wait in the waiter's one communicator, nor a rank the rank table places: the root stays the
    unknown rank, not 10.20.0.1 device 1."""
    job = tmp_path / "job"
    job.mkdir()
    (job / "rank_table.json").write_text(json.dumps(RANK_TABLE, indent=2))
    for rank in (0, 2, 3):
        server, dev = SERVERS[rank]
        pid = 20000 + 100 * rank
        plog = job / f"node-{server[-1]}" / "process_log" / "run" / "plog" / f"plog-{pid}_20250301100000000.log"
        plog.parent.mkdir(parents=True, exist_ok=True)
        plog.write_text(_by_file(pid, rank, server, dev) + _wait(pid, 1, "dp_group_1", 3000 + rank))
    for d in _read(tmp_path, job):
        assert (d["root"]["host"], d["root"]["device"]) != ("10.20.0.1", 1), d["root"]
        assert d["root"]["device"] is None, d["root"]


def test_a_restart_with_a_new_address_is_no_second_host(tmp_path: Path) -> None:
    """review60: a pod rescheduled onto the same folder's device with a new address (the first process ended before
    the second began) is a restart of one host, not two hosts of one folder."""
    plogs = tmp_path / "job" / "worker-0" / "process_log" / "run" / "plog"
    plogs.mkdir(parents=True)
    for k, (server, second) in enumerate((("10.244.1.7", 0), ("10.244.1.9", 1800))):
        pid = 20000 + k
        text = _setup(pid, 0, server, 0).replace(_stamp(1), _stamp(second + 1))
        text += f"[INFO] GE({pid},python3):{_stamp(second + 60)} [graph_manager.cc:1201] [{pid + 5}]RunGraph done\n"
        if k:
            text += _uce(pid).replace(_stamp(1200), _stamp(second + 120))
        (plogs / f"plog-{pid}_2025030110000{k}000.log").write_text(text)
    for d in _read(tmp_path, tmp_path / "job"):
        assert d["fault_class"] == "hbm_uce" and d["root"]["host"] == "worker-0", d["root"]
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(tmp_path / "job"), "--data-dir", str(tmp_path / "d")])
    assert "(a restart)" in res.output and "rescheduling" not in res.output, res.output
