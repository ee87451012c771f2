"""A row a paste cut at its width, joined back to the row it continues (opsbrain.ingest.pasterows.goes_on / rejoin),
and never two lines that each stand alone (tester AB case 25: the wrapped assert lost its environment reading)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.pasterows import goes_on, rejoin
from opsbrain.ingest.text import ingest_text

CUT = ("AssertionError: local_world_size (8) must be less than or equal to the number",
       "of visible devices (0).")


def test_a_cut_sentence_is_joined_and_read_as_one_line() -> None:
    assert goes_on(*CUT)
    assert list(rejoin(CUT, 10_000)) == [(1, " ".join(CUT))]
    sigs, stats = ingest_text("\n".join(CUT) + "\n")
    assert "cfg:env" in {s.kind for s in sigs} and stats.lines == 2
    assert {s.line_no for s in sigs} == {1}


@pytest.mark.parametrize(("prev", "row"), [
    # a log line with its head or level, then a line of its own
    ("[ERROR] RUNTIME(1234,python3):2025-01-01-10:00:00.000.000 [stream.cc:12] 1234 stream sync failed here",
     "this line is not its rest"),
    ("ERROR 09-07 01:11:09 [multiproc_executor.py:596] Worker proc VllmWorker-0 died unexpectedly with code",
     "shutting down the engine now"),
    ("2025-06-12 09:47:56,123 INFO worker.py:100 loading the model weights for layers one two three four",
     "model loaded in three seconds"),
    # a traceback's lines: indented, or the header
    ('  File "/vllm-workspace/vllm-ascend/vllm_ascend/quantization/w8a8_dynamic.py", line 315, in all2all',
     "    scatter_size_list = scatter_sizes.cpu().tolist()"),
    ("Traceback (most recent call last): raised while running the distributed step of the model forward",
     "  File \"x.py\", line 1, in <module>"),
    # a table row and a rule end in their border
    ("| 0     910B3               | OK            | 93.6        42                0    / 0             |",
     "| 0                         | 0000:C1:00.0  | 0           0    / 0          3384 / 65536         |"),
    ("--------------------------------------------------------------------------------------------",
     "npu-smi 23.0.0                   Version: 23.0.0"),
    # end punctuation, a short line, a name before a colon, a call, libstdc++'s abort
    ("RuntimeError: the NPU process exited before the collective finished on every rank of the job.",
     "during handling of the above exception, another exception occurred"),
    ("short line without an end", "of visible devices (0)."),
    ("RuntimeError: the NPU process exited before the collective finished on every rank of the job",
     "error: the second command failed"),
    ("RuntimeError: the NPU process exited before the collective finished on every rank of the job",
     "what():  std::exception"),
    ("RuntimeError: the NPU process exited before the collective finished on every rank of the job",
     "terminate called after throwing an instance of 'c10::Error'"),
    ("RuntimeError: the NPU process exited before the collective finished on every rank of the job",
     "torch._C._distributed_c10d.DistBackendError: failed"),
])
def test_lines_that_stand_alone_are_never_joined(prev: str, row: str) -> None:
    assert not goes_on(prev, row)
    assert [n for n, _t in rejoin([prev, row], 10_000)] == [1, 2]


def test_blank_lines_and_a_traceback_keep_their_numbers() -> None:
    rows = ["Traceback (most recent call last):", '  File "t.py", line 3, in <module>', "    main()", "",
            "ValueError: the value given for the option is wrong and is not one the program knows of", "x"]
    assert [n for n, _t in rejoin(rows, 10_000)] == [1, 2, 3, 4, 5, 6]


def test_a_joined_line_is_cut_at_the_line_limit() -> None:
    prev = "AssertionError: " + "word " * 30 + "number"
    assert [t for _n, t in rejoin([prev, "of visible devices (0)."], 60)] == [(prev + " of")[:60]]
