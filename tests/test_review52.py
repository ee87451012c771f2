"""Session 52 review (review52) of the session's merged readings.

1. The deliberate join (:meth:`opsbrain.ingest.recovered.RecoveredScan._join`) recovered every line between a join
   record's head and its end, whatever it said: a failure another rank printed inside those lines (eight ranks time
   out at the same barrier together and their line-buffered stderr interleaves) was left out of the reading. Only the
   record's own lines are recovered now (the barrier's message, `` Original exception: ``, gloo's ``[.../gloo/...:N]``
   line, a blank line); and two records printed at once (their lines interleaved) are both recovered, where the
   second head used to drop the first.
2. safetensors' ``InvalidHeaderLength`` (the file ends inside its header: a file cut short) is printed by current
   releases in words, ``invalid header length`` (huggingface/safetensors @24b0b285 safetensors/src/tensor.rs line 75,
   ``InvalidHeaderLength => write!(f, "invalid header length")``; bindings/python/src/lib.rs line 624 ``Error while
   deserializing header: {e}``); :data:`opsbrain.ingest.parsers.hostenv.RE_WEIGHTS_CUT` read only the variant's name.
"""

from __future__ import annotations

import time

from opsbrain.diagnosis.realtext import TextView
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.hostenv import RE_WEIGHTS_CUT
from opsbrain.ingest.recovered import RecoveredScan, recovered_in

# lxp3/wenet-ascend-910b3 @1093100c examples/aishell/s0 train log (tester52j; tests/test_join52.py), cut
_WAIT = "successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0."
_CHECK = " Please check rank 0 logs for faulty rank."
_GLOO = "[/pytorch/third_party/gloo/gloo/transport/tcp/"
BARRIER_0 = "[rank0]:[E ProcessGroupGloo.cpp:144] [Rank 0]: Rank 1 failed to pass monitoredBarrier in 30000 ms"
BARRIER_7 = f"[rank7]:[E ProcessGroupGloo.cpp:144] Rank 7 {_WAIT}{_CHECK}"
RECORD_0 = [
    "2026-06-16 13:52:07,017 INFO Detected uneven workload distribution: [Rank 0]: Rank 1 failed to pass "
    "monitoredBarrier in 30000 ms",
    " Original exception: ",
    _GLOO + "unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete",
    "Break current worker to manually join all workers, world_size 8, current rank 0, current local_rank 0",
]
RECORD_7 = [
    f"2026-06-16 13:52:07,017 INFO Detected uneven workload distribution: Rank 7 {_WAIT}{_CHECK}",
    " Original exception: ",
    _GLOO + "pair.cc:534] Connection closed by peer [127.0.0.1]:63626",
    "Break current worker to manually join all workers, world_size 8, current rank 7, current local_rank 7",
]
# vllm-project/vllm-ascend#1670 (a 910B run out of device memory), the exception line as printed
NPU_OOM = ("RuntimeError: NPU out of memory. Tried to allocate 88.00 MiB (NPU 0; 60.96 GiB total capacity; 4.24 GiB "
           "already allocated; 4.24 GiB current active; 7.47 MiB free; 4.37 GiB reserved in total by PyTorch) If "
           "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")


def _interleaved() -> list[str]:
    """Rank 0's and rank 7's records, line by line in turn."""
    return [x for pair in zip(RECORD_0, RECORD_7, strict=True) for x in pair]


def _view(lines: list[str]) -> TextView:
    view = TextView()
    for n, line in enumerate(lines, 1):
        view(line, None, n)
    return view


def test_a_failure_printed_inside_a_join_record_is_not_recovered():
    lines = [BARRIER_0, *RECORD_0[:3], NPU_OOM, RECORD_0[3]]
    got = recovered_in(lines)
    assert 5 not in got  # the other rank's failure keeps its reading
    assert got == {1, 2, 3, 4, 6}  # the record and rank 0's barrier error are still recovered
    view = _view(lines)
    assert view.fails()


def test_the_record_lines_alone_are_recovered_as_before():
    lines = [BARRIER_0, BARRIER_7, *RECORD_0, "", *RECORD_7]
    assert recovered_in(lines) == {1, 2, 3, 4, 5, 6, 8, 9, 10, 11}
    assert not _view(lines).fails()


def test_two_records_printed_at_once_are_both_recovered():
    # the same real lines, two ranks' records interleaved line by line as eight processes' stderr interleaves
    mixed = _interleaved()
    lines = [BARRIER_0, BARRIER_7, *mixed]
    assert recovered_in(lines) == set(range(1, 11))
    assert not _view(lines).fails()


def test_a_failure_between_interleaved_records_is_not_recovered():
    mixed = _interleaved()
    lines = [BARRIER_0, BARRIER_7, *mixed[:4], NPU_OOM, *mixed[4:]]
    got = recovered_in(lines)
    assert 7 not in got and len(got) == 10
    assert _view(lines).fails()


def test_an_end_with_no_head_open_recovers_nothing_of_another_rank():
    # a second end with no record of its own open: only its own rank's barrier errors, not rank 0's
    lines = [BARRIER_0, RECORD_7[3]]
    assert recovered_in(lines) == set()


def test_the_scan_is_not_busy_after_interleaved_records_end():
    scan = RecoveredScan()
    mixed = _interleaved()
    for n, line in enumerate(mixed, 1):
        scan.step(n, line)
    assert not scan.busy


def test_join_body_is_linear():
    from opsbrain.ingest.recovered import JOIN_BODY  # new with the fix

    for line in ("[/gloo/" * 9000 + "x" * 10000, "[" + "a/gloo/b:1" * 6000, "[rank0]: " * 7000 + "x"):
        t = time.perf_counter()
        JOIN_BODY.search(line)
        assert time.perf_counter() - t < 2.0


def test_safetensors_header_length_in_words_reads_cfg_env():
    # a CLI's red test table on a truncated model.safetensors (stored public text: "..._damaged_model_file...
    # [truncated-*]  SafetensorError: Error while deserializing header: invalid header length")
    line = "SafetensorError: Error while deserializing header: invalid header length"
    assert RE_WEIGHTS_CUT.search(line)
    assert "cfg:env" in {s.kind for s in parse_line(line)}


def test_safetensors_json_header_error_is_still_not_read():
    # a shard whose header was all null bytes (a fix summary's symptom, stored public text), not read (hostenv)
    line = ("SafetensorError: Error while deserializing header: invalid JSON in header: EOF while parsing a value at "
            "line 1 column 0")
    assert not RE_WEIGHTS_CUT.search(line)
