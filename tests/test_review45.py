"""Session 45's second read of the merged code (review45): defects found in the day's merges, each with the test that
failed before its fix."""

from __future__ import annotations

from pathlib import Path

from opsbrain.ingest.textpaths import ingest_paths

LATER = ("[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.424 [comm_base.cc:967][107626]   "
         "_________________________LINK_ERROR_INFO___________________________")
EARLIER = ("[INFO] HCCL(59420,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]"
           "SetupAgent ranks[2]")
"""(tests/test_time_origin45.py's two lines: ascend-fd's st_event_timeout_testcase, worker-0's plogs.)"""


def test_a_file_without_stamps_after_a_settled_origin_sits_at_the_last_stamp(tmp_path: Path) -> None:
    """``--logs a.log b.log``: :func:`ingest_path` asks for the signals after each path given, which settles the
    reader's origin (:meth:`LineReader._settle`); a later file's lines before any stamp of its own take the time of
    the last stamp read. bundle45's settle moved that time the wrong way (``_last -= delta``): b.log's traceback sat
    at -1640.6 s, twice the two stamps' distance before the origin, where main 718dbc0e put it at 0 s."""
    (tmp_path / "a.log").write_text(f"{LATER}\n{EARLIER}\n")
    (tmp_path / "b.log").write_text("Traceback (most recent call last):\n"
                                    "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n")
    sigs, _stats, _base = ingest_paths([str(tmp_path / "a.log"), str(tmp_path / "b.log")])
    late = [s for s in sigs if s.file == "a.log"]
    after = [s for s in sigs if s.file == "b.log"]
    assert late and all(abs(s.t - 820.294277) < 1e-3 for s in late), [(s.kind, s.t) for s in late]
    assert after and all(abs(s.t) < 1e-6 for s in after), [(s.kind, s.t) for s in after]


def test_the_dram_location_rule_takes_linear_time_on_a_long_line() -> None:
    """:data:`opsbrain.ingest.where.DRAM_LOCATION` (tester45h) had two unbounded lazy gaps: on a line with the kernel's
    ``[Hardware Error]:`` head and many location fields but no ``device:`` it tried every field against the rest of
    the line (40,000 characters: 4 s; 100 KB: 25 s; the reader's 4,096-character cut: 32 ms a line, on each of the
    first 5,000 lines that the device scan of ``diagnose --logs`` reads). The real record's fields sit within a few
    dozen characters of each other (linux drivers/firmware/efi/cper.c ``cper_mem_err_location``)."""
    import time

    from opsbrain.ingest.where import DRAM_LOCATION, device_in

    line = "[Hardware Error]: " + "rank: 1 " * 5000
    t0 = time.perf_counter()
    assert DRAM_LOCATION.search(line) is None
    assert time.perf_counter() - t0 < 1.0
    real = ("[Hardware Error]:   node: 1 card: 4 module: 0 rank: 0 bank: 1 bank_group: 0 bank_address: 1 device: 14 "
            "row: 58165 column: 816")
    assert DRAM_LOCATION.search(real) and device_in(real) is None
    assert device_in("rank: 1 device: 3 HCCL error") == 3


def test_two_incidents_of_one_group_at_once_move_it_once() -> None:
    """Two nodes of the job's group crash in the same second and their incidents are handled at once, no spare in
    their pod (recov45's world, tests/test_recov45_superpod_move.py). Before, each incident moved the whole group:
    the second took 8 more pool nodes of another pod (pod2) for a restart that another restart overtook, and
    ``moved_pods`` named pod2 for a job running on pod3 (the scale-out's launch count, :meth:`ScaleOut._short`). The
    second incident now takes its node's place in the move under way."""
    from faultlib import ids

    got = _two_crashes()
    sim, job, orch = got["sim"], got["job"], got["orch"]
    assert {ids.pod_of(n) for n in job.nodes} == {"pod3"} and job.state in ("running", "checkpointing"), job.nodes
    moves = [f for k in ("crash0", "crash1") for f in orch.follow_ups(k) if f["type"] == "superpod_move"]
    assert len(moves) == 1, moves
    taken = [f["component"] for k in ("crash0", "crash1") for f in orch.follow_ups(k) if f["type"] == "spare_used"]
    assert {ids.pod_of(n) for n in taken} == {"pod3"}, taken
    assert orch.exec.moved_pods == {"llm": {"pod0": "pod3"}}
    assert len([n for n in sim.control.spares if ids.pod_of(n) == "pod2"]) == 12


def _two_crashes() -> dict[str, object]:
    from faultlib import ids
    from faultlib.durations import at_medians
    from faultlib.engine import Simulation
    from faultlib.injection.spec import FaultSpec
    from faultlib.simparams import SimParams
    from faultlib.topology import Topology, TopologyParams
    from faultlib.workloads.training import TrainingJob
    from opsbrain.recovery import Orchestrator, load_runbooks
    from opsbrain.verdict import Diagnosis
    from tests.test_recov45_superpod_move import PARAMS

    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=Topology.build(TopologyParams(), pods=4))
    by_pod: dict[str, list[str]] = {}
    for n in sim.topology.nodes():
        by_pod.setdefault(str(ids.pod_of(n)), []).append(n)
    job = TrainingJob("llm", by_pod["pod0"][:8], sim.params.training.model_copy(update=PARAMS.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares(by_pod["pod1"][:7] + by_pod["pod2"][:12] + by_pod["pod3"][:9])
    crashed = [job.nodes[2], job.nodes[5]]
    for n in crashed:
        sim.inject(FaultSpec(at_s=100, kind="node_crash", target=n, duration_s=1200.0))
    orch = Orchestrator(sim, load_runbooks(), params=PARAMS)
    sim.run(110)
    for k, n in enumerate(crashed):
        orch.handle(f"crash{k}", Diagnosis("node_crash", n, 0.95))
    sim.run(3 * 3600)
    return {"sim": sim, "job": job, "orch": orch}
