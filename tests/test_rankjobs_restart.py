"""A job restarted on its devices (session 34): the plogs hold two runs of one job (two pids each device, a later
start, the same rank table), read as one job with two attempts, not two jobs. The verdict is about the earlier
attempt's fault when the restart ran clean, the later one's when it failed again, in both modes, and the answer says
which attempt its evidence is from. Two different jobs (another rank table, months apart) stay apart.

Every input is written here in the real layout (``<host>/process_log/run/plog/plog-<pid>_<stamp>.log``) from the
HCCL line formats of tests/test_bundle_twojobs.py (SetupAgent's root-info line, the transport set-up failure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.test_bundle_twojobs import HOSTS, INIT, IPS, RUN, _write

IP = dict(zip(HOSTS, IPS, strict=True)) | {"node-d": "10.9.0.4", "node-e": "10.9.0.5"}  # node-d, node-e: spare nodes


def _run(root: Path, day: str, hour: str, ident: str, pid0: int, order: tuple[int, ...] | None,
         size: int = 3, hosts: tuple[str, ...] = HOSTS, lost: tuple[int, ...] = ()) -> None:
    """One run of a job at ``hour``: rank k on ``hosts[k]``'s device k of ``size`` ranks; with ``order`` each rank
    waits on the next of it (a transport set-up failure, the last one the root), without it a clean run. The ranks
    of ``lost`` have no plog in the collection (tests/test_rankjobs_reschedule.py)."""
    for r, host in enumerate(hosts):
        if r in lost:
            continue
        pid = pid0 + r
        text = RUN.format(pid=pid, day=day, rank=r, ident=ident, ip=IP[host]).replace("rankNum[3]", f"rankNum[{size}]")
        if order is not None and r != order[-1]:
            dst = order[order.index(r) + 1]
            text += INIT.format(pid=pid, day=day, rank=r, dst=dst, rip=f"{IP[hosts[dst]]}/{dst}",
                                ms=100 + r, ms2=200 + r)
        stamp = day.replace("-", "") + hour + "0000000"
        _write(root / host / "process_log" / "run" / "plog" / f"plog-{pid}_{stamp}.log",
               text.replace("-08:", f"-{hour}:"))


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.fixture()
def clean_restart(tmp_path: Path) -> Path:
    """The job fails at 08:10 (root node-a device 0); restarted at 09:00 (a new root-info identifier, as HCCL makes
    one per run) on the same devices, it runs clean."""
    b = tmp_path / "clean"
    _run(b, "2026-01-24", "08", "10.9.0.1%eth0_60000_0_1769241601000100", 500, (2, 1, 0))
    _run(b, "2026-01-24", "09", "10.9.0.1%eth0_60000_0_1769245201000100", 900, None)
    return b


@pytest.fixture()
def failed_again(tmp_path: Path) -> Path:
    """The job fails at 08:10 (root node-a); restarted at 09:00 it fails again at 09:10, now node-c the root."""
    b = tmp_path / "again"
    _run(b, "2026-01-24", "08", "10.9.0.1%eth0_60000_0_1769241601000100", 500, (2, 1, 0))
    _run(b, "2026-01-24", "09", "10.9.0.1%eth0_60000_0_1769245201000100", 900, (0, 1, 2))
    return b


def _roots(mr: dict[str, Any]) -> set[str]:
    return {str(r["host"]) for r in mr.get("roots", [])}


def test_a_clean_restart_is_one_job_whose_verdict_is_the_first_attempt(clean_restart: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for rep in (diagnose_bundle(clean_restart, engine), diagnose_logs(str(clean_restart), engine)):
        assert "jobs" not in rep, rep.get("jobs")  # one job, not two
        att = rep["attempts"]
        assert [(a["attempt"], a["failed"], a["read"]) for a in att] == [(1, True, True), (2, False, False)], att
        assert [a["pids"] for a in att] == [["500", "501", "502"], ["900", "901", "902"]]
        d = rep["diagnosis"]
        assert d["attempt"] == {"attempt": 1, "of": 2, "failed": True}
        assert _roots(d["root_cluster"]) == {"node-a"}, d["root_cluster"]
        assert any(e.startswith("the job ran 2 times") and "the evidence is from attempt 1: the restart ran clean"
                   in e for e in d["evidence"]), d["evidence"]


def test_a_restart_that_failed_again_is_read_on_its_own_fault(failed_again: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    rep = diagnose_bundle(failed_again, engine)
    assert "jobs" not in rep and [a["read"] for a in rep["attempts"]] == [False, True]
    d = rep["diagnosis"]
    assert d["attempt"]["attempt"] == 2 and _roots(d["root_cluster"]) == {"node-c"}, d["root_cluster"]
    prim = next(i for i in rep["incidents"] if i["id"] == rep["primary"])
    assert prim.get("attempt") == 2 and prim["opened_at"].startswith("2026-01-24T09"), prim
    assert {i.get("attempt") for i in rep["incidents"]} >= {1, 2}
    logs = diagnose_logs(str(failed_again), engine)["diagnosis"]
    assert logs["attempt"]["attempt"] == 2 and _roots(logs["root_cluster"]) == {"node-c"}
    assert any("the latest attempt failed too" in e for e in d["evidence"])


def test_the_text_answer_says_which_attempt(clean_restart: Path) -> None:
    from opsbrain.cli import cli

    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(clean_restart)])
    assert out.exit_code == 0, out.output
    assert "attempts: the job ran 2 times on the same devices with the same ranks (a restart)" in out.output
    assert "attempt 1: pid 500, 501, 502, 2026-01-24T08:00:01 to 2026-01-24T08:10:00, first error " in out.output
    assert "; the verdict's evidence is from it" in out.output and "jobs: 2" not in out.output
    js = json.loads(CliRunner().invoke(cli, ["diagnose", "--logs", str(clean_restart), "--json"]).output)
    assert js["diagnosis"]["attempt"]["attempt"] == 1 and len(js["attempts"]) == 2


def test_another_rank_table_on_the_same_devices_is_another_job(tmp_path: Path, engine: Any) -> None:
    """A run within the hour on the same devices in a wider communicator (another rank table: four ranks, three of
    them on these hosts): two jobs, as before."""
    from opsbrain.bundle import diagnose_bundle

    b = tmp_path / "other"
    _run(b, "2026-01-24", "08", "10.9.0.1%eth0_60000_0_1769241601000100", 500, (2, 1, 0))
    _run(b, "2026-01-24", "09", "10.9.0.2%eth0_60000_0_1769245201000100", 900, (0, 1, 2), size=4)
    rep = diagnose_bundle(b, engine)
    assert len(rep["jobs"]) == 2 and "attempts" not in rep and "attempt" not in rep["diagnosis"]


def test_parting_rules() -> None:
    """A restart within the hour on the same placement is an attempt; the same placement months later, or a run
    whose rank count differs, is another job; one run stays one job of one attempt."""
    from opsbrain.ingest.rankjobs import RESTART_S, part_jobs, part_runs, read_attempt
    from opsbrain.ingest.rankrecords import RankProcess

    def proc(host: str, pid: str, dev: int, t0: float, ident: str = "g", total: int = 2) -> RankProcess:
        p = RankProcess(host, pid, ranks={ident: (dev, total)}, phy_id=dev)
        p.first_t, p.last_t = t0, t0 + 600.0
        return p

    first = [proc("a", "1", 0, 0.0), proc("b", "2", 1, 0.0)]
    first[0].errors.append(object())  # type: ignore[arg-type]
    again = [proc("a", "3", 0, 900.0, "h"), proc("b", "4", 1, 900.0, "h")]
    runs = part_runs(first + again)
    assert [[len(a) for a in job] for job in runs] == [[2, 2]] and read_attempt(runs[0]) == 0
    assert len(part_jobs(first + again)) == 1
    late = [proc("a", "3", 0, 600.0 + RESTART_S + 10.0, "h"), proc("b", "4", 1, 600.0 + RESTART_S + 10.0, "h")]
    assert [len(job) for job in part_runs(first + late)] == [1, 1]
    wider = [proc("a", "3", 0, 900.0, "h", 4), proc("b", "4", 1, 900.0, "h", 4)]
    assert [len(job) for job in part_runs(first + wider)] == [1, 1]
    assert part_runs(first) == [[first]]
