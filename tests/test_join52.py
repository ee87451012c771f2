"""A training loop's deliberate join (session 52, the lead; tester52j's and tester52l's WeNet runs on 910B3): WeNet's
``wenet_join`` (wenet-e2e/wenet wenet/utils/train_utils.py; CosyVoice's ``cosyvoice_join`` the same) logs at INFO
``Detected uneven workload distribution: <the barrier's error>`` ... ``Break current worker to manually join all
workers, world_size W, current rank R, ...`` when its monitored barrier timed out, and every rank leaves the epoch
together by design. That record and rank R's c10 barrier error before it are no failure; a barrier error of a rank
that never joins, and a record cut before its end, keep their readings."""

from __future__ import annotations

import time

import pytest

from opsbrain.diagnosis.realtext import TextView
from opsbrain.ingest.recovered import BARRIER_ERROR, JOIN_END, RecoveredScan, recovered_in

# lxp3/wenet-ascend-910b3 @1093100c examples/aishell/s0 train log (tester52j), cut
_WAIT = "successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0."
_CHECK = " Please check rank 0 logs for faulty rank."
_GLOO = "[/pytorch/third_party/gloo/gloo/transport/tcp/"
JOIN = "\n".join([
    "[rank0]:[E ProcessGroupGloo.cpp:144] [Rank 0]: Rank 1 failed to pass monitoredBarrier in 30000 ms",
    f"[rank7]:[E ProcessGroupGloo.cpp:144] Rank 7 {_WAIT}{_CHECK}",
    "2026-06-16 13:52:07,017 INFO Detected uneven workload distribution: [Rank 0]: Rank 1 failed to pass "
    "monitoredBarrier in 30000 ms",
    " Original exception: ",
    _GLOO + "unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete",
    "Break current worker to manually join all workers, world_size 8, current rank 0, current local_rank 0",
    "",
    f"2026-06-16 13:52:07,017 INFO Detected uneven workload distribution: Rank 7 {_WAIT}{_CHECK}",
    " Original exception: ",
    _GLOO + "pair.cc:534] Connection closed by peer [127.0.0.1]:63626",
    "Break current worker to manually join all workers, world_size 8, current rank 7, current local_rank 7",
]) + "\n"
LONE = f"[rank2]:[E ProcessGroupGloo.cpp:144] Rank 2 {_WAIT}{_CHECK}"


def _view(text: str) -> TextView:
    view = TextView()
    for n, line in enumerate(text.splitlines(), 1):
        view(line, None, n)
    return view


def test_the_join_and_its_barrier_errors_are_recovered():
    assert recovered_in(JOIN.splitlines()) == {1, 2, 3, 4, 5, 6, 8, 9, 10, 11}
    assert not _view(JOIN).fails()


def test_a_rank_that_never_joins_keeps_its_barrier_error():
    text = LONE + "\n" + JOIN
    assert 1 not in recovered_in(text.splitlines())
    assert _view(text).fails()


def test_a_record_cut_before_its_end_is_read():
    cut = "\n".join(JOIN.splitlines()[:5])
    assert recovered_in(cut.splitlines()) == set()
    assert _view(cut).fails()


def test_a_join_far_from_the_error_does_not_recover_it():
    steps = "\n".join(f"2026-06-16 13:52:07,017 DEBUG TRAIN | Batch {i}/200 loss 3.0" for i in range(300))
    text = LONE + "\n" + steps \
        + "\n2026-06-16 13:52:07,017 INFO Detected uneven workload distribution: x\nBreak current worker to manually " \
          "join all workers, world_size 8, current rank 2, current local_rank 2\n"
    assert 1 not in recovered_in(text.splitlines())


def test_the_one_line_form_is_recovered():
    # llama-recipes-style ports log head and end in one record line
    line = ("Detected uneven workload distribution.Break current worker to manually join all workers, world_size 8, "
            "current rank 3, current local_rank 3")
    assert recovered_in([LONE.replace("Rank 2", "Rank 3").replace("rank2", "rank3"), line]) == {1, 2}


@pytest.mark.parametrize("pattern", [BARRIER_ERROR, JOIN_END])
def test_hostile_lines_are_linear(pattern):
    line = "[E ProcessGroupGloo.cpp:1] Rank 1 successfully reached monitoredBarrier, " * 800 + "x" * 10000
    t = time.perf_counter()
    pattern.search(line)
    assert time.perf_counter() - t < 2.0


def test_the_scan_is_not_busy_after_a_record_ends():
    scan = RecoveredScan()
    for n, line in enumerate(JOIN.splitlines(), 1):
        scan.step(n, line)
    assert not scan.busy
