"""A job rescheduled as a whole (session 35): MindCluster's job-level rescheduling stops every pod of the job and
re-creates them, its ranks possibly re-placed on other hosts (MindCluster docs, "Job-Level Rescheduling", "Rescheduling
Mode"), so the two runs' rank tables differ on hosts that stay: session 34 read them as two jobs (a device that ran
another rank of each), or, where no device ran both, as one run of six processes. The job object stays, and with it
its UID, ``MINDX_TASK_ID``, by which MindCluster's training scripts name the job's log folder
(``/job/code/alllogs/$MINDX_TASK_ID/plogs/$XDL_IP``): the same folder says one job, read as attempts; two folders
say two jobs, never merged, even where their rank tables would read as a restart.

Every input is written here in that layout (``alllogs/<uid>/plogs/<node address>/plog/plog-<pid>_<stamp>.log``, the
CANN log tree below ``ASCEND_PROCESS_LOG_PATH``) from the HCCL line formats of tests/test_bundle_twojobs.py, four
ranks on two devices of each of two hosts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.test_bundle_twojobs import INIT, RUN, _write

IP = {"node-a": "10.9.0.1", "node-b": "10.9.0.2", "node-c": "10.9.0.3"}
UID1 = "8c1f8a52-8d1e-4c8e-9a57-3f1b2c4d5e6f"
UID2 = "0b7e2d11-4c3a-4f7e-8b2d-9e8f7a6b5c4d"
ONE = "10.9.0.1%eth0_60000_0_1769241601000100"  # the root-info identifier of the 08:00 run
TWO = "10.9.0.2%eth0_60000_0_1769245201000100"  # of the 09:00 run
LINE = RUN.replace("rankNum[3]", "rankNum[4]").replace(
    "deviceType[{rank}], logicDevId[{rank}], phydevId[{rank}], deviceIp[10.8.0.{rank}]",
    "deviceType[{dev}], logicDevId[{dev}], phydevId[{dev}], deviceIp[10.8.{h}.{dev}]")


def _run(root: Path, uid: str, hour: str, ident: str, pid0: int, hosts: tuple[str, str],
         waits: tuple[int, int] | None) -> None:
    """One run at ``hour``: ranks 0, 1 on ``hosts[0]``'s devices 0, 1, ranks 2, 3 on ``hosts[1]``'s; with ``waits``
    (r, d) rank r's transport set-up to rank d fails (d, which logs nothing, the root)."""
    for r in range(4):
        host, dev, pid = hosts[r // 2], r % 2, pid0 + r
        text = LINE.format(pid=pid, day="2026-01-24", rank=r, ident=ident, ip=IP[host], dev=dev, h=IP[host][-1])
        if waits is not None and r == waits[0]:
            d = waits[1]
            text += INIT.format(pid=pid, day="2026-01-24", rank=r, dst=d, rip=f"{IP[hosts[d // 2]]}/{d % 2}",
                                ms=100 + r, ms2=200 + r)
        _write(root / "alllogs" / uid / "plogs" / IP[host] / "plog" / f"plog-{pid}_20260124{hour}0000000.log",
               text.replace("-08:", f"-{hour}:"))


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _both(b: Path, engine: Any) -> list[dict[str, Any]]:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    return [diagnose_bundle(b, engine), diagnose_logs(str(b), engine)]


def _roots(mr: dict[str, Any]) -> set[str]:
    return {f"{r['host']} device {r['device']}" for r in mr.get("roots", [])}


def test_a_job_level_rescheduling_is_one_job_of_two_attempts(tmp_path: Path, engine: Any) -> None:
    """node-a and node-b at 08:00 (rank 0 waits on rank 2, node-b device 0: the root); rescheduled as a whole at 09:00
    onto node-b and node-c, node-b's devices now holding ranks 0 and 1: one job, the evidence from attempt 1."""
    b = tmp_path / "code"
    _run(b, UID1, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    _run(b, UID1, "09", TWO, 900, ("node-b", "node-c"), None)
    for rep in _both(b, engine):
        assert "jobs" not in rep, rep.get("jobs")
        att = rep["attempts"]
        assert [(a["attempt"], a["failed"], a["read"]) for a in att] == [(1, True, True), (2, False, False)], att
        assert att[1]["rescheduled"] == {"job": f"MINDX_TASK_ID {UID1}", "hosts_before": ["10.9.0.1", "10.9.0.2"],
                                         "hosts": ["10.9.0.2", "10.9.0.3"]}, att[1]
        assert "moved" not in att[1] and "suspect_host" not in att[0]
        d = rep["diagnosis"]
        assert d["attempt"] == {"attempt": 1, "of": 2, "failed": True}
        assert _roots(d["root_cluster"]) == {"10.9.0.2 device 0"}, d["root_cluster"]
        assert d["evidence"][0].startswith(
            f"the job ran 2 times, rescheduled as a whole (one job by its files' MINDX_TASK_ID {UID1}: its pods "
            "re-created, its ranks re-placed: attempt 1 on 10.9.0.1, 10.9.0.2, attempt 2 on 10.9.0.2, 10.9.0.3: "
            "attempt 1 (pid 500, 501, 502 ...)"), d["evidence"][0]


def test_a_rescheduled_job_that_failed_again_is_read_on_its_own_fault(tmp_path: Path, engine: Any) -> None:
    """The same, the 09:00 run failing too (rank 0 on node-b waits on rank 3, node-c device 1): attempt 2's verdict."""
    b = tmp_path / "code"
    _run(b, UID1, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    _run(b, UID1, "09", TWO, 900, ("node-b", "node-c"), (0, 3))
    for rep in _both(b, engine):
        assert "jobs" not in rep and [a["read"] for a in rep["attempts"]] == [False, True]
        d = rep["diagnosis"]
        assert d["attempt"]["attempt"] == 2 and _roots(d["root_cluster"]) == {"10.9.0.3 device 1"}, d["root_cluster"]


@pytest.mark.parametrize("hosts", [("node-b", "node-c"), ("node-a", "node-b")],
                         ids=["ranks re-placed", "the same devices and ranks"])
def test_two_jobs_by_their_uids_are_never_merged(tmp_path: Path, engine: Any, hosts: tuple[str, str]) -> None:
    """The 09:00 run in another job's folder (another UID): two jobs, whether its ranks were re-placed or sit on the
    same devices (which, without the folders, reads as a restart: session 34)."""
    b = tmp_path / "code"
    _run(b, UID1, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    _run(b, UID2, "09", TWO, 900, hosts, None)
    for rep in _both(b, engine):
        assert "attempts" not in rep and "attempt" not in rep["diagnosis"]
        assert [(j["marker"], j["hosts"]) for j in rep["jobs"]] == [
            (f"MINDX_TASK_ID {UID1}", ["10.9.0.1", "10.9.0.2"]),
            (f"MINDX_TASK_ID {UID2}", sorted(IP[h] for h in hosts))], rep["jobs"]
        assert _roots(rep["diagnosis"]["root_cluster"]) == {"10.9.0.2 device 0"}


def test_jobs_apart_in_time_on_other_devices_stay_apart(tmp_path: Path, engine: Any) -> None:
    """Two jobs (two UIDs) on other devices of the same hosts within the hour: before session 35 no device ran both
    and no hour parted them, so their six processes read as one run; now two jobs."""
    b = tmp_path / "code"
    _run(b, UID1, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    for r in range(4):  # the second job on devices 4, 5
        f = next((b / "alllogs").rglob(f"plog-{500 + r}_*.log"))
        text = f.read_text(encoding="utf-8").split("\n")[0].replace(ONE, TWO).replace(f"({500 + r},", f"({900 + r},")
        text = text.replace("-08:00:01", "-08:40:01").replace("Id[", "Id[4").replace("Type[", "Type[4")
        _write(b / "alllogs" / UID2 / f.relative_to(b / "alllogs" / UID1).parent / f"plog-{900 + r}_202601240840"
               "00000.log", text + "\n")
    for rep in _both(b, engine):
        assert len(rep["jobs"]) == 2 and "attempts" not in rep, rep.get("jobs")


def test_the_job_log_tree_names_hosts_by_their_address(tmp_path: Path) -> None:
    """``alllogs/<uid>/plogs/<address>/plog/``: the host is the address folder (not ``<address>/plog``), one host
    across two jobs' folders, in both modes."""
    from opsbrain.cli import cli

    b = tmp_path / "code"
    _run(b, UID1, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    _run(b, UID2, "09", TWO, 900, ("node-b", "node-c"), None)
    for mode in ("--bundle", "--logs"):
        js = json.loads(CliRunner().invoke(cli, ["diagnose", mode, str(b), "--json"]).output)
        assert [j["hosts"] for j in js["jobs"]] == [["10.9.0.1", "10.9.0.2"], ["10.9.0.2", "10.9.0.3"]], mode
    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(b)]).output
    assert "or their files name other MindCluster jobs" in out and f"job 2 (MINDX_TASK_ID {UID2}):" in out, out


def test_job_markers() -> None:
    from opsbrain.ingest.asys import host_dirs
    from opsbrain.ingest.rankjobs import job_marker, part_runs
    from opsbrain.ingest.rankrecords import RankProcess

    assert job_marker(f"code/alllogs/{UID1}/plogs/10.0.0.1/plog/plog-1_2.log") == f"MINDX_TASK_ID {UID1}"
    pod = f"var/log/pods/default_default-test-pytorch-worker-0_{UID2}/ascend/0.log"
    assert job_marker(pod) == "job default/default-test-pytorch"
    assert job_marker("node-a/process_log/run/plog/plog-1_2.log") is None
    assert job_marker(f"var/log/pods/kube-system_coredns-5d78c9869d-abcde_{UID2}/coredns/0.log") is None
    one_host = [f"alllogs/{UID1}/plogs/10.0.0.1", f"alllogs/{UID2}/plogs/10.0.0.1"]  # (UID2's folder sorts first)
    assert host_dirs(one_host) == dict.fromkeys(one_host, f"alllogs/{UID2}/plogs/10.0.0.1")
    assert host_dirs([*one_host, "alllogs/x/plogs/10.0.0.2"])["alllogs/x/plogs/10.0.0.2"] == "alllogs/x/plogs/10.0.0.2"

    def run(uid: str | None, hosts: list[tuple[str, int]], pid0: int, t0: float) -> list[RankProcess]:
        out = []
        for r, (host, dev) in enumerate(hosts):
            f = f"alllogs/{uid}/plogs/{host}/plog/plog-{pid0 + r}_1.log" if uid else f"{host}/plog-{pid0 + r}_1.log"
            p = RankProcess(host, str(pid0 + r), files=[f], ranks={f"g{pid0}": (r, 2)}, phy_id=dev)
            p.first_t, p.last_t = t0, t0 + 600.0
            out.append(p)
        return out

    first = run(UID1, [("a", 0), ("b", 0)], 10, 0.0)
    assert [[len(a) for a in j] for j in part_runs(first + run(UID1, [("b", 0), ("c", 0)], 20, 900.0))] == [[2, 2]]
    assert [[len(a) for a in j] for j in part_runs(first + run(UID2, [("a", 0), ("b", 0)], 20, 900.0))] == [[2], [2]]
    later = run(UID1, [("b", 0), ("c", 0)], 20, 86400.0)  # the same job a day later: still its next attempt
    assert [[len(a) for a in j] for j in part_runs(first + later)] == [[2, 2]]
    unmarked = run(None, [("b", 0), ("c", 0)], 20, 900.0)  # no folder says: session 34's rules (two jobs)
    assert [[len(a) for a in j] for j in part_runs(first + unmarked)] == [[2], [2]]


def test_an_attempt_whose_rank_table_changed_without_a_marker_is_no_job_level_rescheduling() -> None:
    """A run merged into a restart's attempt (another communicator of other hosts, at the same time: one job, as
    before session 35) changes that attempt's rank table; without a job marker in the files nothing says the job was
    rescheduled as a whole: the words stay a restart's (session 35's review: 'one job by its files' None')."""
    from opsbrain.ingest.rankjobs import describe_attempts, part_runs, ran_words
    from opsbrain.ingest.rankrecords import RankProcess

    def proc(host: str, pid: int, dev: int, comm: str, rank: int, total: int, t0: float, t1: float) -> RankProcess:
        return RankProcess(worker=host, pid=str(pid), files=[f"{host}/plog-{pid}.log"], ranks={comm: (rank, total)},
                           phy_id=dev, first_t=t0, last_t=t1)

    procs = [proc("h1", 1 + r, r, "c1", r, 2, 0, 100) for r in range(2)]
    procs += [proc("h1", 3 + r, r, "c2", r, 2, 200, 300) for r in range(2)]  # the restart, on the same devices
    procs += [proc("h2", 10 + r, r, "c3", r, 4, 210, 290) for r in range(4)]  # meanwhile, on another host
    jobs = part_runs(procs)
    assert [[len(a) for a in j] for j in jobs] == [[2, 6]]
    att = describe_attempts(jobs[0], 0)
    assert "rescheduled" not in att[1], att[1]
    assert "None" not in ran_words(att) and "a restart" in ran_words(att)
