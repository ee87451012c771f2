""":func:`opsbrain.ingest.surface.may_carry` (one scan of a whole file) never misses a line that
:func:`~opsbrain.ingest.surface.plain` would change: a file it passes is read as it is, line by line the same."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from opsbrain.ingest.surface import may_carry, plain

HEADISH = st.sampled_from(["", "2024-05-01T10:11:12.123456789Z stdout F ", "2024-05-01T10:11:12Z stderr P",
                           "[pod/a-1/main] ", "[pod/x] ", "\x1b[31m", "\x1b", "2025-03-01 00:00:01 ",
                           "2025-03-01T00:00:01,5+08:00 ", "[2025-04-16-03:08:13.704312] ", "Mar  1 00:00:05 ",
                           "Dec 31 23:59:59 ", "worker-3: ", "10.0.0.5: ", "node1: ", "EI0002: ", "gpu12.dc1: ",
                           "2025-03-01 00:00:01 worker-3: ", "> ", "> > ", ">", "[rank3]: ", "[rank0]:",
                           "(Worker_DP0_TP7 pid=2112) ", "(pid=3, ip=10.0.0.2) ", "ERROR 12-11 09:09:33 [file.py:822] ",
                           "INFO 06-09 06:57:48 worker_base.py:581] ", "vllm-ascend-1    | ", "svc_1 | ",
                           "Dec  2 10:00:00 host-1 kernel: ", "Mar 19 14:31:09 dell-63 kubelet[1067]: ", "    ", "\t",
                           '2024-05-01T10:11:12+08:00 {host="w-1", job="t"}  ', "2024-05-01T10:11:12Z {} ",
                           '2024-05-01T10:11:12.5Z {a="b"}', '2024-05-01T10:11:12.123456789+08:00 {h="w"} '])
BODYISH = st.sampled_from(["", "[ERROR] RUNTIME(1,python):x", "| 0 | 910B |", "  indented", "\tTab", " [x",
                           "plain words", "x", "\x0b", "\x1c", "[", "|", " ", "[W723 10:35:57.4 a.ts:57] x",
                           "[E compiler_depend.ts:421] x", "E0818 16:33:56.754985  1 client.go:90] x", "[rank1]:[E1",
                           "[Error]: x", "[INFO ] y", ">>> import torch", "(EngineCore pid=1) x",
                           "x [repeated 6x across cluster]"])
LINE = st.builds(lambda a, b, c, d: a + b + c + d, HEADISH, HEADISH, BODYISH,
                 st.text(alphabet=st.sampled_from(list("0123456789-:. T[]|/ abZ\t\x1b")), max_size=30))


@settings(max_examples=1500, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=6))
@example(["> ", ""]).via("a quote marker with its blank")
@example([">", ""]).via("session 54: a lone quote marker before a newline (the scan's $ read only the text's end)")
def test_a_file_it_passes_has_no_line_plain_would_change(lines: list[str]) -> None:
    changed = [ln for ln in lines if plain(ln) != (ln, "")]
    if not may_carry("\n".join(lines).encode()):
        assert not changed, changed


def test_what_it_passes_and_what_it_flags() -> None:
    assert not may_carry(b"[INFO] HCCL(1,python):2025-03-01-00:00:00.000.000 [x.cc:1]ok\nplain line\n")
    assert not may_carry(b"2025-03-01 00:00:01.123 INFO a train step\nMar  1 00:00:05 host kernel: x")
    for flagged in (b"ok\n2024-05-01T10:11:12Z stdout F [ERROR] x", b"[pod/a/b] x", b"ok\nworker-3: [ERROR] x",
                    b"\x1b[31mERR", "caf\u00e9".encode()):
        assert may_carry(flagged), flagged
