"""Repeated lines of a file that is not UTF-8 (session 37): folded by the rule a UTF-8 file is folded by
(:func:`opsbrain.ingest.repeats.fold_bytes`, after its text is decoded), its later lines keeping their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.bundle import scan_bundle

WARN = ("[WARNING] HCCL(40101,python):2025-03-01-10:02:00.000.001 [heartbeat.cc:100][40101] 心跳检查: 远端无响应, "
        "重试")
ERR = "[ERROR] RUNTIME(40101,python):2025-03-01-10:03:21.000.000 [stream.cc:1044][40102]Stream synchronize failed"


@pytest.mark.parametrize("codec", ["gb18030", "utf-16"])
def test_a_file_not_in_utf8_is_folded_as_a_utf8_one(codec: str, tmp_path: Path) -> None:
    runs = {}
    for name, enc in (("utf8", "utf-8"), (codec, codec)):
        plog = tmp_path / name / "node-1" / "process_log" / "run" / "plog" / "plog-40101_20250301100000000.log"
        plog.parent.mkdir(parents=True)
        plog.write_bytes(("\n".join([WARN] * 3000 + [ERR, WARN, WARN]) + "\n").encode(enc))
        runs[name] = scan_bundle(tmp_path / name)
    got, want = runs[codec], runs["utf8"]
    assert want.report["lines"]["folded"] == 2999 + 1
    assert got.report["lines"]["folded"] == 2999 + 1
    assert got.report["lines"]["read"] == want.report["lines"]["read"] == 3003
    rows = [(ln.text, ln.line, ln.repeats) for ln in got.lines]
    assert rows == [(ln.text, ln.line, ln.repeats) for ln in want.lines]
    assert rows == [(WARN, 1, 3000), (WARN, 3002, 2), (ERR, 3001, 1)]  # (in time order)
    assert any(f"read as {codec}" in x for x in got.report["limits"]) or codec == "utf-16"
