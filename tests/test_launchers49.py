"""The launchers' own text around an NPU job started outside Kubernetes (session 49, tester49m): Open MPI's report of
a rank ended by SIGKILL reads as the kill (``os:sigkill``), a launcher refusing the layout or the hosts it was given
reads as the environment (``cfg:env``). Every line is copied from the source its comment names (docs/formats.md)."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_mpirun_rank_killed_by_signal_9_is_the_kill() -> None:
    # open-mpi/ompi#2661 (orterun's [orterun:proc-aborted-strsignal]): ranks needing 98 GB on 64 GB nodes
    line = "mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed)."
    assert "os:sigkill" in kinds(line)


def test_mpirun_rank_crashed_by_another_signal_is_no_kill() -> None:
    # FedML-AI/FedML#588: a rank's own segmentation fault is not a kill from outside
    line = "mpirun noticed that process rank 0 with PID 636815 on node fl98 exited on signal 11 (Segmentation fault)."
    assert "os:sigkill" not in kinds(line)


def test_open_mpi_not_enough_slots_is_the_launch_layout() -> None:
    # inducer/grudge#227 (help-orte-rmaps-base.txt): more ranks than slots, fixed with --oversubscribe
    line = "There are not enough slots available in the system to satisfy the 2"
    assert "cfg:env" in kinds(line)


def test_deepspeed_runner_host_not_reachable_by_ssh_is_the_set_up() -> None:
    # hpcac/2023-APAC-HPC-AI#1 (deepspeed/launcher/runner.py, main: the ssh check of the first host failed)
    line = ("RuntimeError: Using hostfile at /home/552/dz9214/hostfile but host=gadi-gpu-v100-0011 was not reachable "
            "via ssh. If you are running with a single node please remove /home/552/dz9214/hostfile or setup "
            "passwordless ssh.")
    assert "cfg:env" in kinds(line)
