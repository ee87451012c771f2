"""A bundle holding two jobs' process logs on the same hosts and devices, months apart (session 33, tester BJ's
``twojobs``): read as two jobs, each incident tagged with its job, the verdict's root cluster the primary incident's
job's, the other job's listed apart; ``--logs`` of the same files picks the same job. One job whose files hold
first errors months apart (ascend-fd's st_testcase) stays one job.

Every input is written here (hand-made plog lines in the format the HCCL runtime writes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

RUN = ("[INFO] HCCL({pid},python3):{day}-08:00:01.000.100 [topoinfo_detect.cc:506] [{pid}][HCCL_TRACE][Flat]"
       "SetupAgent rankNum[3], rank[{rank}], rootInfo identifier[{ident}], server[{ip}%eth0], "
       "serverPort[60000]deviceType[{rank}], logicDevId[{rank}], phydevId[{rank}], deviceIp[10.8.0.{rank}]\n")
INIT = ("[ERROR] HCCL({pid},python3.8):{day}-08:10:00.000.{ms:03d} [transport_manager.cc:777] [5][Create][DestLink]"
        "Transport init error! createLink para:rank[{rank}]-localUserrank[{rank}]-localIpAddr[], dst_rank[{dst}]-"
        "remoteUserrank[{dst}]-remoteIpAddr[{rip}], machineType[1],\n"
        "[ERROR] HCCL({pid},python3.8):{day}-08:10:00.000.{ms2:03d} [transport_manager.cc:247] [5][Create]"
        "errNo[0x0000000005000006] transport create fail in thread, local rank[{rank}] remote rank[{dst}]\n")
HOSTS = ("node-a", "node-b", "node-c")
IPS = ("10.9.0.1", "10.9.0.2", "10.9.0.3")


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _job(root: Path, day: str, ident: str, pid0: int, order: tuple[int, ...]) -> None:
    """One job of three ranks, rank r on host r's device r: each host of ``order`` waits on the next one's (a
    transport set-up failure); the last of ``order`` waits for nobody: the root."""
    for r, host in enumerate(HOSTS):
        pid = pid0 + r
        stamp = day.replace("-", "") + "080000000"
        text = RUN.format(pid=pid, day=day, rank=r, ident=ident, ip=IPS[r])
        if r != order[-1]:
            dst = order[order.index(r) + 1]
            text += INIT.format(pid=pid, day=day, rank=r, dst=dst, rip=f"{IPS[dst]}/{dst}", ms=100 + r, ms2=200 + r)
        _write(root / host / "process_log" / "run" / "plog" / f"plog-{pid}_{stamp}.log", text)


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.fixture()
def two_jobs(tmp_path: Path) -> Path:
    """January's job: c waits on b, b on a (root node-a device 0); June's, on the same devices under another
    communicator: a waits on b, b on c (root node-c device 2)."""
    b = tmp_path / "bundle"
    _job(b, "2026-01-24", "10.9.0.1%eth0_60000_0_111", 500, (2, 1, 0))
    _job(b, "2026-06-19", "10.9.0.1%eth0_60000_0_222", 900, (0, 1, 2))
    return b


def _root_hosts(mr: dict[str, Any]) -> set[str]:
    return {str(r["host"]) for r in mr.get("roots", [])}


def test_two_jobs_on_the_same_devices_are_read_as_two(two_jobs: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle

    rep = diagnose_bundle(two_jobs, engine)
    jobs = rep.get("jobs") or []
    assert [j["first_line"][:10] for j in jobs] == ["2026-01-24", "2026-06-19"], jobs
    assert [[c["identifier"] for c in j["communicators"]] for j in jobs] == [["10.9.0.1%eth0_60000_0_111"],
                                                                             ["10.9.0.1%eth0_60000_0_222"]]
    for inc in rep["incidents"]:  # each incident is of the job whose days it opened in
        assert inc.get("job") == (1 if inc["opened_at"].startswith("2026-01-24") else 2), inc
        assert inc["id"] in jobs[inc["job"] - 1]["incidents"]
    d = rep["diagnosis"]
    prim = next(i for i in rep["incidents"] if i["id"] == rep["primary"])
    mine = jobs[prim["job"] - 1]
    assert mine["verdict"] and d["root"]["host"] == ("node-a" if prim["job"] == 1 else "node-c"), (d["root"], prim)
    assert _root_hosts(d["root_cluster"]) == {d["root"]["host"]}  # the verdict's job's own root, not a mix
    other = d["other_jobs"]
    assert [o["job"] for o in other] == [3 - prim["job"]]
    assert _root_hosts(other[0]["root_cluster"]) == {"node-c" if prim["job"] == 1 else "node-a"}
    assert any(e.startswith(f"job {other[0]['job']} of the input (not this verdict's)") for e in d["evidence"])


def test_logs_of_two_jobs_pick_the_same_job_as_the_bundle(two_jobs: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = diagnose_bundle(two_jobs, engine)["diagnosis"]
    res = diagnose_logs(str(two_jobs), engine)
    d = res["diagnosis"]
    assert len(res["jobs"]) == 2 and _root_hosts(d["root_cluster"]) == _root_hosts(b["root_cluster"])
    assert [_root_hosts(o["root_cluster"]) for o in d["other_jobs"]] == [
        _root_hosts(o["root_cluster"]) for o in b["other_jobs"]]


def test_one_job_with_errors_months_apart_stays_one(tmp_path: Path) -> None:
    """One communicator, its ranks' files months apart (a fixture pasted from several runs of one job; ascend-fd's
    st_testcase): no device ran two processes and no other communicator is named: one job, the table as before."""
    from opsbrain.ingest.rankjobs import part_jobs
    from opsbrain.ingest.ranks import RankCollector

    b = tmp_path / "b"
    _job(b, "2026-01-24", "hccl_world_group", 500, (2, 1, 0))
    late = b / "node-c" / "process_log" / "run" / "plog" / "plog-502_20260124080000000.log"
    late.write_text(late.read_text().replace("2026-01-24", "2026-06-19"))  # node-c's file months later
    col = RankCollector()
    for f in sorted(b.rglob("plog-*.log")):
        col.feed_lines(f.read_text().splitlines(), str(f.relative_to(b)))
    table = col.table()
    assert len(table.processes) == 3 and table.jobs == []
    assert len(part_jobs(table.processes)) == 1


def test_processes_sharing_a_device_at_the_same_time_are_not_parted() -> None:
    """Single-rank inference instances on one NPU run side by side (the twin writes such a bundle): one device, two
    processes at the same time, is no evidence of two jobs; the same device used months later is."""
    from opsbrain.ingest.rankjobs import part_jobs
    from opsbrain.ingest.rankrecords import RankProcess

    def proc(pid: str, t0: float, t1: float) -> RankProcess:
        p = RankProcess("node-a", pid, ranks={"identifier-NA": (0, 1)}, phy_id=0)
        p.first_t, p.last_t = t0, t1
        return p

    assert len(part_jobs([proc("1", 0.0, 600.0), proc("2", 10.0, 590.0)])) == 1
    assert len(part_jobs([proc("1", 0.0, 600.0), proc("2", 9e6, 9e6 + 600.0)])) == 2
