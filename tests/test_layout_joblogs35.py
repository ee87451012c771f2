"""Session 35: MindCluster's job log tree names one host per node address in both modes, wherever it is given from.

MindCluster's training-script samples write a job's logs to ``/job/code/alllogs/$MINDX_TASK_ID/`` (resumable-training
guide, "Using Resumable Training on the CLI"): ``plogs/$XDL_IP`` (ASCEND_PROCESS_LOG_PATH), ``trainlogs/$XDL_IP-$RANK``
(TRAIN_LOG_PATH; ``-<time>`` added by the FAQ "Training Logs Are Overwritten After Task Rescheduling") and
``ttplogs/ttplog$XDL_IP-$RANK`` (TTP_LOG_PATH, MindIO TFT's ``ttp_log.log``). Before: the ttplogs folder was a host
of its own in both modes; given from ``alllogs/`` or ``alllogs/<uid>/`` the bundle named the plog's host
``plogs/<address>`` and the console's ``trainlogs/<address>-<rank>``, ``--logs`` ``<address>`` and
``<address>-<rank>``: two hosts for one node, and the modes apart.

Lines: hbm-uce-real's plog and console (real formats: an HBM UCE on device 3, a Python traceback); the MindIO TFT
lines are written here in the ``[time][pid][level][source] message`` form of ascend-fd's kg_parse test input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_layout_documented35 import _both

W = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real" / "worker-0"
UID = "8c1f8a52-8d1e-4c8e-9a57-3f1b2c4d5e6f"
PLOG = "plog-23456_20250301100000123.log"
TTP = ("[2025-03-01 10:00:01,095][23456][INFO][ttp_mindx_api:56] register action[report_fault_ranks] success\n"
       "[2025-03-01 10:03:21,116][23456][ERROR] report fault ranks: [3]\n")
A, B = "192.168.10.11", "192.168.10.12"


def _tree(root: Path, console_on: str = A, stamp: str = "-20250301100000") -> Path:
    """``root/code/alllogs/<uid>/``: node A's plog and TTP log, the console (the traceback) on ``console_on``."""
    job = root / "code" / "alllogs" / UID
    files = {f"plogs/{A}/plog/{PLOG}": (W / "process_log/run/plog" / PLOG).read_bytes(),
             f"trainlogs/{console_on}-3{stamp}/train.log": (W / "rank-3.log").read_bytes(),
             f"ttplogs/ttplog{A}-3/ttp_log.log": TTP.encode()}
    for rel, data in files.items():
        (job / rel).parent.mkdir(parents=True, exist_ok=True)
        (job / rel).write_bytes(data)
    return job


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


GIVEN = {"code": 2, "alllogs": 1, "the job's folder": 0}  # how many levels above the job's folder is given


@pytest.mark.parametrize("up", GIVEN.values(), ids=GIVEN.keys())
def test_one_node_s_plog_console_and_ttp_log_are_one_host(tmp_path: Path, engine: Any, up: int) -> None:
    job = _tree(tmp_path)
    given = job.parents[up - 1] if up else job
    rep, logs = _both(given, engine)
    for d in (rep["diagnosis"], logs["diagnosis"]):
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == (A, 3), d["root"]
    workers = rep["workers"]
    assert {w["name"] for w in workers} == {A}, workers  # (ttplogs/ttplog<A>-3 is no host of its own)
    assert len({w["internal_node"] for w in workers}) == 1, workers


@pytest.mark.parametrize("up", GIVEN.values(), ids=GIVEN.keys())
@pytest.mark.parametrize("stamp", ["-20250301100000", ""], ids=["with its time", "without"])
def test_a_console_alone_is_placed_on_its_node_in_both_modes(tmp_path: Path, engine: Any, up: int,
                                                              stamp: str) -> None:
    """The traceback's console on node B, whose plog was not collected: both modes name B (its address)."""
    job = _tree(tmp_path, console_on=B, stamp=stamp)
    (job / "plogs").rename(tmp_path / "plogs-elsewhere")  # (node A's plog left out: the console decides)
    given = job.parents[up - 1] if up else job
    for rep in _both(given, engine):
        assert rep["diagnosis"]["root"]["host"] == B, rep["diagnosis"]["root"]


def test_logs_names_the_ttp_folder_after_its_node() -> None:
    """``--logs``'s rank table (the names its answers use): the TTP log's folder is node A's, in each job."""
    from opsbrain.ingest.ranks import RankCollector

    for head in (f"code/alllogs/{UID}/", f"{UID}/", ""):
        ranks = RankCollector()
        ttp = ranks.worker_of(f"{head}ttplogs/ttplog{A}-3/ttp_log.log")
        plog = ranks.worker_of(f"{head}plogs/{A}/plog/{PLOG}")
        ranks.other_workers |= {ttp, plog}
        shown = ranks.shown()
        assert shown(ttp) == shown(plog) == A, (head, ttp, shown(ttp))


@pytest.mark.parametrize("up", GIVEN.values(), ids=GIVEN.keys())
def test_the_job_is_found_by_its_folder_from_every_root(tmp_path: Path, engine: Any, up: int) -> None:
    """Session 36: the job's UID (``MINDX_TASK_ID``, its folder's name below ``alllogs/``) is found given from the job's
    folder or ``alllogs/`` too, by the folders above the directory given: a job rescheduled as a whole is one job of two
    attempts in both modes (tests/test_rankjobs_jobreschedule.py's runs), as given from above. Before, from
    ``alllogs/`` and ``alllogs/<uid>/`` no marker was found and the two runs read as two jobs (``jobs: 2``)."""
    from tests.test_rankjobs_jobreschedule import ONE, TWO, UID2, _run

    code = tmp_path / "code"
    _run(code, UID, "08", ONE, 500, ("node-a", "node-b"), (0, 2))
    _run(code, UID, "09", TWO, 900, ("node-b", "node-c"), None)
    job = code / "alllogs" / UID
    given = job.parents[up - 1] if up else job
    for rep in _both(given, engine):
        assert "jobs" not in rep, rep.get("jobs")
        att = rep["attempts"]
        assert att[1]["rescheduled"] == {"job": f"MINDX_TASK_ID {UID}", "hosts_before": ["10.9.0.1", "10.9.0.2"],
                                         "hosts": ["10.9.0.2", "10.9.0.3"]}, att
    if up == 1:  # from alllogs/ with a second job's folder beside: two jobs, each by its own folder
        _run(code, UID2, "10", ONE.replace("1769241601", "1769248801"), 1300, ("node-a", "node-b"), None)
        for rep in _both(given, engine):
            assert [j["marker"] for j in rep["jobs"]] == [f"MINDX_TASK_ID {UID}", f"MINDX_TASK_ID {UID2}"], rep["jobs"]


def test_the_job_marker_reads_the_folders_above_the_directory_given() -> None:
    from opsbrain.ingest.rankjobs import job_marker

    plog = f"plogs/{A}/plog/{PLOG}"
    assert job_marker(plog) is None
    assert job_marker(plog, f"/job/code/alllogs/{UID}") == f"MINDX_TASK_ID {UID}"
    assert job_marker(f"{UID}/{plog}", "/job/code/alllogs/") == f"MINDX_TASK_ID {UID}"
    assert job_marker(f"alllogs/{UID}/{plog}", "/data/alllogs/old") == f"MINDX_TASK_ID {UID}"  # the files' own first
    assert job_marker(plog, "/job/code/logs") is None
