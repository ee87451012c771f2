"""The live stream's parse memo (:mod:`opsbrain.ingest.linememo`) gives, line by line, what parse_line gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ingest import linememo
from opsbrain.ingest.linememo import LineMemo
from opsbrain.ingest.parsers import parse_line

GENERATED = Path(__file__).parent / "data" / "traces" / "infinitehbd_like.json"


def test_a_line_of_the_same_shape_is_a_hit_with_its_own_time_and_text() -> None:
    memo = LineMemo()
    a = ("[ERROR] DRV(1187,dmp_daemon):2025-03-01-00:10:00.000.000 [dms_fault.c:688][dev3]Event id=0x80e01801, "
         "assertion=occur")
    b = a.replace("2025-03-01-00:10:00.000.000", "2025-03-02-11:12:13.456.789")
    first = memo.parse(a, 10.0, "pod0/node3/npu3", "slog", "ERROR")
    second = memo.parse(b, 99.0, "pod0/node3/npu3", "slog", "ERROR")
    assert first and (memo.hits, memo.misses) == (1, 1)
    assert second == parse_line(b, 99.0, "pod0/node3/npu3", "slog", "ERROR")
    assert all(s.t == 99.0 and s.text == b for s in second)
    # another origin or level is another key
    memo.parse(b, 1.0, "pod0/node4/npu3", "slog", "ERROR")
    assert memo.misses == 2


def test_a_result_whose_text_is_not_the_line_is_not_kept() -> None:
    memo = LineMemo()
    long = "RuntimeError: ACL stream synchronize failed, error code:507048 " + "x" * 20_000
    memo.parse(long, 1.0, None, None, "ERROR")
    memo.parse(long, 2.0, None, None, "ERROR")
    assert memo.hits == 0 or all(s.text == long for s in memo.parse(long, 3.0, None, None, "ERROR"))


def test_a_replay_reads_every_line_as_parse_line_does(tmp_path: Path, monkeypatch: Any) -> None:
    """Every line of a 20-day slice of the generated trace, run: the memo's answer equals parse_line's, and the memo
    is used (its hits are the point)."""
    checked: list[int] = [0, 0]
    plain = LineMemo.parse

    def both(self: LineMemo, text: str, t: float, origin: str | None, source: str | None,
             level: str | None) -> list[Any]:
        got = plain(self, text, t, origin, source, level)
        assert got == parse_line(text, t, origin, source, level), text
        checked[0] += 1
        checked[1] = max(checked[1], self.hits)
        return got

    monkeypatch.setattr(linememo.LineMemo, "parse", both)
    events = [e for e in json.loads(GENERATED.read_text()) if e["event_time"] <= 20.0]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(events))
    res = CliRunner().invoke(cli, ["chaos", "replay", str(trace), "--time-unit", "days", "--run", "--json",
                                   "--data-dir", str(tmp_path / "home")])
    assert res.exit_code in (0, 1), res.output
    if checked[0] == 0:
        pytest.fail("the replay printed no line")
    assert checked[1] > 0, checked
    print("memo lines, hits:", checked)


READ_LINES = [  # plog lines in the formats the bundle tests write (HCCL, RUNTIME, DRV), and an unstamped console line
    "[ERROR] HCCL(40101,python):2025-03-01-10:33:21.000.000 [task_exception_handler.cc:300] [40101]EI0002: The wait "
    "execution of the Notify register times out. Reason: The Notify register has not received the Notify record from "
    "remote rank [11]. base information: [streamID:[5], taskID[7]]",
    "[ERROR] HCCL(40102,python):2025-03-01-10:33:21.100.000 [hccl_communicator.cc:900] [40102]EI0006: Getting socket "
    "times out.",
    "[ERROR] RUNTIME(23456,python):2025-03-01-10:03:20.450.000 [stream.cc:1044][23457]Stream synchronize failed, "
    "device_id=3, retCode=0x7bcad, ErrCode=507053, desc=[device memory uncorrectable ecc error (hbm uce)]",
    "[ERROR] DRV(1187,dmp_daemon):2025-03-01-10:03:20.400.000 [dms_fault.c:688][dev3]fault event: event_id=0x80e01801, "
    "assertion=occur, severity=critical, dev_id=3, hbm multi-bit ecc error, uncorrectable",
    "RuntimeError: ACL stream synchronize failed, error code:507053",
]


@pytest.mark.parametrize("line", READ_LINES)
def test_the_read_memo_gives_what_parse_line_gives_for_another_stamp_and_time(line: str) -> None:
    """A bundle's or --logs input's memo (linememo.ReadMemo): the same line at another plog stamp and time is a hit
    that equals parse_line's own answer; another process id is another key."""
    memo = linememo.ReadMemo()
    first = memo.parse(line, 1.0, "pod0/node1", None, "ERROR")
    later = line.replace("2025-03-01-10:", "2025-03-02-23:")
    assert first and memo.parse(later, 5.0, "pod0/node1", None, "ERROR") == parse_line(later, 5.0, "pod0/node1", None,
                                                                                        "ERROR")
    assert len(memo._memo) == 1
    memo.parse(line.replace("(4010", "(5010").replace("(2345", "(3345").replace("(1187", "(2187"), 2.0, "pod0/node1",
               None, "ERROR")
    assert len(memo._memo) == (2 if line.startswith("[") else 1)
    assert linememo.read_key(later) == linememo.read_key(line)
