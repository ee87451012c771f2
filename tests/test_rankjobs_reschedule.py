"""A job rescheduled off a failed host (session 34): MindCluster's pod-level or process-level rescheduling stops the
faulty node's pods and starts them on another node (a spare), the other ranks again on their devices. The plogs hold
two runs of one job whose rank tables differ only in where the host that left ran its ranks: read as one job with
two attempts, the moved ranks and the host they left (the earlier attempt's suspect) said in the evidence and in
``attempts``, in both modes. Kept apart: another rank count, two hosts' ranks moved, a start over ``RESTART_S``
later. A collection that lacks one rank's plog in a run (a partial collection) does not split a restart.

Every input is written here in the real layout (``<host>/process_log/run/plog/plog-<pid>_<stamp>.log``) from the
HCCL line formats of tests/test_bundle_twojobs.py (SetupAgent's root-info line, the transport set-up failure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.test_rankjobs_restart import _run as run_at

FIRST = ("node-a", "node-b", "node-c")  # rank r on FIRST[r]'s device r
T1 = "10.9.0.1%eth0_60000_0_1769241601000100"  # the root-info identifier of the 08:00 run
T2 = "10.9.0.1%eth0_60000_0_1769245201000100"  # of the 09:00 run (HCCL makes one per run)


def _run(root: Path, hour: str, ident: str, pid0: int, hosts: tuple[str, ...], order: tuple[int, ...] | None,
         size: int = 3, lost: tuple[int, ...] = ()) -> None:
    """One run at ``hour`` on 2026-01-24 (tests/test_rankjobs_restart.py's), rank r on ``hosts[r]``'s device r."""
    run_at(root, "2026-01-24", hour, ident, pid0, order, size=size, hosts=hosts, lost=lost)


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.fixture()
def rescheduled(tmp_path: Path) -> Path:
    """The job fails at 08:10 rooted on node-b (rank 0 waits on rank 2, rank 2 on rank 1); at 09:00 it runs again,
    node-b's rank moved to the spare node-d, node-a and node-c's ranks on their devices; the restart runs clean."""
    b = tmp_path / "moved"
    _run(b, "08", T1, 500, FIRST, (0, 2, 1))
    _run(b, "09", T2, 900, ("node-a", "node-d", "node-c"), None)
    return b


def _roots(mr: dict[str, Any]) -> set[str]:
    return {str(r["host"]) for r in mr.get("roots", [])}


MOVE = "attempt 2 moved rank 1 from node-b device 1 to node-d device 1; node-b left the job: attempt 1's suspect"


def test_a_rescheduling_onto_a_spare_node_is_the_next_attempt(rescheduled: Path, engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for rep in (diagnose_bundle(rescheduled, engine), diagnose_logs(str(rescheduled), engine)):
        assert "jobs" not in rep, rep.get("jobs")  # one job, not two
        att = rep["attempts"]
        assert [(a["attempt"], a["failed"], a["read"]) for a in att] == [(1, True, True), (2, False, False)], att
        assert att[0]["suspect_host"] == "node-b" and "suspect_host" not in att[1] and "moved" not in att[0]
        assert att[1]["moved"] == {"from_host": "node-b", "to_hosts": ["node-d"],
                                   "ranks": [{"rank": 1, "from": "node-b device 1", "to": "node-d device 1"}]}
        d = rep["diagnosis"]
        assert d["attempt"] == {"attempt": 1, "of": 2, "failed": True}
        assert _roots(d["root_cluster"]) == {"node-b"}, d["root_cluster"]
        lead = d["evidence"][0]
        assert lead.startswith("the job ran 2 times with the same ranks, all but one host's on the same devices "
                               "(a rescheduling, node-b's ranks to node-d: attempt 1 (pid 500, 501, 502)"), lead
        assert MOVE in lead and lead.endswith("the evidence is from attempt 1: the restart ran clean (no error "
                                              "logged after it began)"), lead


def test_the_text_answer_says_which_ranks_moved(rescheduled: Path) -> None:
    from opsbrain.cli import cli

    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(rescheduled)])
    assert out.exit_code == 0, out.output
    assert ("attempts: the job ran 2 times with the same ranks, all but one host's on the same devices (a "
            "rescheduling, node-b's ranks to node-d)") in out.output
    assert "attempt 2: pid 900, 901, 902, 2026-01-24T09:00:01 to 2026-01-24T09:00:01, no error; " + MOVE in out.output
    assert "jobs: 2" not in out.output
    js = json.loads(CliRunner().invoke(cli, ["diagnose", "--logs", str(rescheduled), "--json"]).output)
    assert [a.get("suspect_host") for a in js["attempts"]] == ["node-b", None]
    assert js["attempts"][1]["moved"]["from_host"] == "node-b"


def test_a_rescheduled_run_that_failed_again_is_read_on_its_own_fault(tmp_path: Path, engine: Any) -> None:
    """Rescheduled onto node-d at 09:00, the job fails again at 09:10, now rooted on node-d (rank 0 waits on 2, 2 on
    1): the verdict is attempt 2's, root node-d, and the move is still said."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = tmp_path / "again"
    _run(b, "08", T1, 500, FIRST, (0, 2, 1))
    _run(b, "09", T2, 900, ("node-a", "node-d", "node-c"), (0, 2, 1))
    for rep in (diagnose_bundle(b, engine), diagnose_logs(str(b), engine)):
        assert "jobs" not in rep and [a["read"] for a in rep["attempts"]] == [False, True]
        d = rep["diagnosis"]
        assert d["attempt"]["attempt"] == 2 and _roots(d["root_cluster"]) == {"node-d"}, d["root_cluster"]
        assert MOVE in d["evidence"][0] and "the latest attempt failed too" in d["evidence"][0]


@pytest.mark.parametrize("case", ["two hosts moved", "another rank count", "the moved host stayed"])
def test_other_rank_tables_stay_two_jobs(tmp_path: Path, engine: Any, case: str) -> None:
    """Two hosts' ranks moved (one rescheduling moves one faulty node's pods); a run of four ranks; node-b's rank
    moved while node-b ran another rank (ranks re-placed among the job's hosts): two jobs, as before."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = tmp_path / "apart"
    _run(b, "08", T1, 500, FIRST, (0, 2, 1))
    hosts, size = {"two hosts moved": (("node-a", "node-d", "node-e"), 3),
                   "another rank count": (("node-a", "node-d", "node-c", "node-e"), 4),
                   "the moved host stayed": (("node-b", "node-d", "node-c"), 3)}[case]
    _run(b, "09", T2, 900, hosts, tuple(range(size)), size=size)
    for rep in (diagnose_bundle(b, engine), diagnose_logs(str(b), engine)):
        assert len(rep["jobs"]) == 2 and "attempts" not in rep and "attempt" not in rep["diagnosis"], case


@pytest.mark.parametrize("lost", [(2,), ()], ids=["restart lacks node-c's plog", "restart has every plog"])
def test_a_missing_plog_does_not_split_a_restart(tmp_path: Path, engine: Any, lost: tuple[int, ...]) -> None:
    """The same-devices restart at 09:00 whose collection lacks node-c's plog (a partial collection): one job of two
    attempts, as with every plog; the earlier run lacking one reads alike (:func:`test_parting_rules`)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    b = tmp_path / "partial"
    _run(b, "08", T1, 500, FIRST, (0, 2, 1))
    _run(b, "09", T2, 900, FIRST, None, lost=lost)
    for rep in (diagnose_bundle(b, engine), diagnose_logs(str(b), engine)):
        assert "jobs" not in rep, rep.get("jobs")
        assert [a["pids"] for a in rep["attempts"]] == [["500", "501", "502"], ["900", "901", "902"][:3 - len(lost)]]
        assert not any(a.get("moved") for a in rep["attempts"])
        assert rep["diagnosis"]["attempt"]["attempt"] == 1 and _roots(rep["diagnosis"]["root_cluster"]) == {"node-b"}


def test_parting_rules() -> None:
    """One host's ranks moved to a host or devices the earlier attempt did not use: an attempt; two hosts', ranks
    swapped among the job's hosts, another rank count or a start over RESTART_S later: another job; a rank without a
    plog in either run is no difference."""
    from opsbrain.ingest.rankjobs import RESTART_S, moved_ranks, part_runs
    from opsbrain.ingest.rankrecords import RankProcess

    def run(hosts: dict[int, tuple[str, int]], pid0: int, t0: float, total: int = 4) -> list[RankProcess]:
        out = []
        for r, (host, dev) in hosts.items():
            p = RankProcess(host, str(pid0 + r), ranks={f"g{pid0}": (r, total)}, phy_id=dev)
            p.first_t, p.last_t = t0, t0 + 600.0
            out.append(p)
        return out

    first = {0: ("a", 0), 1: ("a", 1), 2: ("b", 0), 3: ("b", 1)}
    one = run(first, 10, 0.0)
    moved = run({0: ("a", 0), 1: ("a", 1), 2: ("d", 4), 3: ("d", 5)}, 20, 900.0)
    assert [[len(a) for a in job] for job in part_runs(one + moved)] == [[4, 4]]
    assert moved_ranks(one, moved) == [(2, ("b", 0, ""), ("d", 4, "")), (3, ("b", 1, ""), ("d", 5, ""))]
    spare = run({0: ("b", 4), 1: ("b", 5), 2: ("b", 0), 3: ("b", 1)}, 20, 900.0)  # a's ranks on b's spare devices
    assert moved_ranks(one, spare) == [(0, ("a", 0, ""), ("b", 4, "")), (1, ("a", 1, ""), ("b", 5, ""))]
    two = run({0: ("c", 0), 1: ("a", 1), 2: ("d", 0), 3: ("b", 1)}, 20, 900.0)  # a's rank 0 and b's rank 2 moved
    assert moved_ranks(one, two) is None and [len(j) for j in part_runs(one + two)] == [1, 1]
    swapped = run({0: ("b", 0), 1: ("b", 1), 2: ("a", 0), 3: ("a", 1)}, 20, 900.0)
    assert moved_ranks(one, swapped) is None
    wider = run({0: ("a", 0), 1: ("a", 1), 2: ("d", 0), 3: ("d", 1)}, 20, 900.0, total=8)
    assert moved_ranks(one, wider) is None and [len(j) for j in part_runs(one + wider)] == [1, 1]
    late = run({0: ("a", 0), 1: ("a", 1), 2: ("d", 0), 3: ("d", 1)}, 20, 600.0 + RESTART_S + 10.0)
    assert [len(j) for j in part_runs(one + late)] == [1, 1]
    partial = run({0: ("a", 0), 2: ("b", 0), 3: ("b", 1)}, 30, 0.0)  # rank 1's plog not collected
    again = run(first, 40, 900.0)
    assert moved_ranks(partial, again) == [] and moved_ranks(again, partial) == []
    assert [[len(a) for a in job] for job in part_runs(partial + again)] == [[3, 4]]
    clash = run({0: ("a", 1), 2: ("b", 0), 3: ("b", 1)}, 40, 900.0)  # a device that holds another rank
    assert moved_ranks(one, clash) is None
