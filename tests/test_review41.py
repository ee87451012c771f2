"""Session 41's review (review41) of the merged changes: hostile input to the new readings stays bounded in time and
memory, and a reading does not leak from one file or process to another."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from faultlib.faults.params import FaultParams
from opsbrain.bundle.reader import read_bundle
from opsbrain.cli import cli
from opsbrain.diagnosis.rootcluster import analyse
from opsbrain.ingest.workers import host_root
from tests.test_rootcluster import collect
from tests.test_tester41b import FAILED_LIST, SERVER_NEED8, SERVER_RANK9


@contextmanager
def _within(seconds: int) -> Iterator[None]:
    """Fails the block if it runs longer than ``seconds`` (an unbounded loop is stopped, not waited for)."""
    def _late(*_: object) -> None:
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, _late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _remotes(lines: list[str]) -> list[int]:
    return [e.remote_rank for e in collect({"paste.log": lines}).processes[0].errors if e.remote_rank is not None]


def test_a_huge_agent_id_in_the_connected_list_is_read_in_bounded_time() -> None:
    # an agent id is 16 digits: a garbled or hostile one must not make the reader walk every rank below it (before:
    # range(max id) was listed on each line, 10^15 steps here)
    huge = [SERVER_RANK9[0], SERVER_RANK9[1], SERVER_RANK9[2].replace("[0000000000000007]", "[0999999999999999]")]
    with _within(2):
        got = _remotes(huge)
    assert 7 in got and 128 >= len(got) > 100  # the gaps are named, capped


def test_a_huge_needed_size_is_read_in_bounded_time() -> None:
    lines = [x.replace("need connect rankNum is [8]", "need connect rankNum is [9999999999]") for x in SERVER_NEED8]
    with _within(2):
        got = _remotes(lines)
    assert got[:4] == [1, 3, 5, 7] and len(got) <= 128


def test_many_unconnected_lists_do_not_walk_the_process_s_errors_each_time() -> None:
    # before: each list line rebuilt the set of named ranks from all of the process's errors (20,000 socket errors and
    # 20,000 lists took 32 s); each line is now read against the ranks kept so far
    sock = ("[ERROR] HCCL(340,python3.9):2026-07-15-19:50:49.450.492 [adapter_hccp.cc:872][340][Recv][RaSocket]"
            "errNo[0x0000000005000013] Wait timeout for sockets recv, data[0x{:x}], size[4]")
    lines = [sock.format(i) for i in range(3000)]
    lines += [FAILED_LIST.replace("[10,17,", f"[{i},17,") for i in range(3000)]
    with _within(4):
        got = _remotes(lines)
    assert len(got) == 128


def test_a_connected_list_s_gaps_are_as_before() -> None:
    assert sorted(_remotes(SERVER_RANK9)) == [9]
    assert sorted(_remotes(SERVER_NEED8)) == [1, 3, 5, 7]
    # ids of a line out of ascending order (ascend-fd's parsed record lists them so): the gap is still rank 1
    shuffled = [SERVER_NEED8[0], SERVER_NEED8[1], SERVER_NEED8[2], SERVER_NEED8[3].replace(
        "[0000000000000000],[0000000000000002]", "[0000000000000002],[0000000000000000]")]
    assert sorted(_remotes(shuffled)) == [1, 3, 5, 7]


def _plog(body: str) -> str:
    return f"[ERROR] HCCL(342,python3.9):2026-07-15-19:50:49.450.492 [x.cc:1][57044]{body}"


def test_a_number_too_long_for_int_is_no_crash_in_a_bundle(tmp_path: Path) -> None:
    # Python refuses int() of more than 4,300 digits (ValueError); a bundle's lines are not cut as --logs cuts them
    # (4,096 characters), so a garbled plog ended the whole diagnosis ("opsbrain: error: Exceeds the limit (4300
    # digits)"); before review41 the EI0015 lists (session 41) and the older EI0002 / cluster / link readings did
    d = "9" * 4400
    bodies = [
        f"[TopoInfoExchangeServer][Setup]Broadcast Rank Basic Infos failed, connectFailedAgentIdList[{d},17,]",
        f"[DisplayConnectedRank]total connected num is [{d}],line num is [{d}]",
        "[DisplayConnectedRank]total connected num is [15],line num is [2]",
        f"[DisplayConnectedRank]need connect rankNum is [{d}]",
        f"[DisplayConnectedRank]connected rankinfo[LINE {d}]: [0000000000000000];",
        "EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received "
        f"the Notify record from remote rank [{d}].",
        f"Cluster Exception Location[IP/ID]:[1.2.3.4/{d}]",
        f"Transport init error, remoteIpAddr[1.2.3.4/{d}]",
        f"connected p2p timeout, remote physic id: [{d}]",
        f"task failed, remote rank: [{d}]",
        f"base information is type:NOTIFY WAIT, remoteRank:{d}",
        f"| 1.2.3.4({d}) | 1.2.3.5({d}) | client | no connect |",
        f"HcclCommInitRootInfo failed, rankNum[{d}], rank[{d}], logicDevId[{d}]",
    ]
    plog = tmp_path / "node1" / "plog" / "plog-342_1.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("\n".join(_plog(b) for b in bodies) + f"\nchipId: {d}\n")
    (tmp_path / "node1" / "rank_0.log").write_text(
        f"[ERROR] 2026-07-15-19:50:49 (PID:342, Device:{d}, RankID:{d}) ERR00100 PTA call acl api failed\n"
        f"EI0002: [PID: 342] 2026-07-15-19:50:49.586.187 The wait execution of the Notify register times out. "
        f"Reason: from remote rank: [{d}]\n")
    (tmp_path / "node1" / "npu_info.txt").write_text(f"hccn_tool -i {d} -ip -g\nipaddr:1.2.3.4\n")
    _lines, report = read_bundle(str(tmp_path))
    assert report["lines"]["read"] >= len(bodies) + 3  # read to the end, not stopped by a number


def test_root_s_home_under_home_is_no_worker() -> None:
    # /home/root is root's home on Yocto-built systems; the home copied with a default log path is home/<user> before
    # it is /root (before review41: worker "node1/home" for MindIE's ~/mindie/log and CANN's ~/ascend/log)
    assert host_root("node1/home/root/mindie/log/debug/mindie-server_1.log") == ("node1", None)
    assert host_root("node1/home/root/ascend/log/debug/plog/plog-12_1.log") == ("node1", None)
    assert host_root("node1/root/mindie/log/debug/mindie-server_1.log") == ("node1", None)
    assert host_root("node1/home/alice/ascend/log/plog/plog-12_1.log") == ("node1", None)


def test_a_kind_s_default_duration_is_in_the_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # hbm_ce_storm and npu_fail_slow heal after their parameter's default when the scenario gives no duration (the
    # built-in hbm-ce-storm does so); scen41's injected.duration_s said null, "lasts until the response ends it"
    from tests.test_scen41_fault_duration import _injected, _scenario

    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))
    path = _scenario(tmp_path, [{"at": 300, "kind": "hbm_ce_storm", "target": "pod0/node31/npu2/hbm"},
                                {"at": 400, "kind": "npu_fail_slow", "target": "pod0/node12/npu1"}])
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--json", "--data-dir", str(tmp_path / "d")])
    assert res.exit_code in (0, 1), res.output
    storm, slow = _injected(res.output)
    p = FaultParams()
    assert (storm["duration_s"], storm["duration_is"]) == (p.ce_storm_duration_s, "heals_after"), storm
    assert (slow["duration_s"], slow["duration_is"]) == (p.fail_slow_duration_s, "heals_after"), slow


_INIT = ("[{lvl}] HCCL({pid},all_reduce_test):2025-11-21-01:{mm}:01.624.966 [op_base.cc:481] [{pid}]"
         "HcclCommInitRootInfo {how}, return[0x0000000005000004], rankNum[{n}], rank[{rank}], "
         "rootInfo identifier[10.0.0.1%eth0_{port}_0_1], server[10.0.0.1%eth0], logicDevId[{rank}]")


def test_an_unconnected_rank_is_looked_up_in_the_communicator_whose_init_failed() -> None:
    # the root's world communicator (16 ranks) came up; a later 8-rank communicator's root-info exchange timed out,
    # its rank 1 never connected. World rank 1 (healthy, no error) is not that rank: before review41 the unconnected
    # rank was looked up in the process's first communicator and world rank 1 was named the root
    world = _INIT.format(lvl="INFO", pid=1041081, mm="10", how="success", n=16, rank=0, port=60000)
    failed = _INIT.format(lvl="ERROR", pid=1041081, mm="20", how="failed", n=8, rank=0, port=60001)
    other = _INIT.format(lvl="INFO", pid=2000, mm="10", how="success", n=16, rank=1, port=60000)
    c = collect({"node1/plog-1041081_1.log": [world, *SERVER_NEED8, failed], "node1/plog-2000_1.log": [other]})
    rc = analyse(c)
    assert [p.pid for p in rc.roots] != ["2000"]
    assert rc.roots[0].name.startswith("rank 1") and "absent" in rc.rule
    # without the failed init's line the communicator is not known: no process is taken for the rank
    c = collect({"node1/plog-1041081_1.log": [world, *SERVER_NEED8, failed.replace("rankNum[8]", "rankNum[16]")
                                              .replace("60001", "60000")], "node1/plog-2000_1.log": [other]})
    assert [p.pid for p in analyse(c).roots] == ["2000"]  # the same communicator: world rank 1 is the one


def test_a_chip_map_row_with_a_huge_number_is_no_row() -> None:
    """A garbled chip-map or npu-smi row with a number past int()'s 4,300 digits ended the bundle's diagnosis
    (review41 found it fuzzing ascend-fd's fixtures): such a run of digits is no id."""
    from opsbrain.ingest.chipmap import chip_map

    huge = "9" * 5000
    lines = ["NPU ID  Chip ID  Chip Logic ID  Chip Name", f"{huge}  0  0  Ascend910", f"0  {huge}  0  Ascend910",
             f"| {huge}  Ascend910B3 | OK | 93.1  44  0 / 0 |", f"| {huge} | 0000:C1:00.0 | 0  0 / 0  3393 / 65536 |"]
    assert chip_map(lines) is None  # no row: such a run of digits is no id (and no exception)
