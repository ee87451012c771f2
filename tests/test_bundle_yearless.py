"""A logger's head without a year (glog's ``[E706 23:45:07.793 ...``) takes its year from the nearest stamp of the same
file that writes one, else from the bundle's typical time, and the report says which (session 32, tester BB case
04: an incident opened in 2025 while the line's own full stamp said 2026-07-06)."""

from __future__ import annotations

from pathlib import Path

from opsbrain.bundle import read_bundle

GLOG = ("[rank7]:[E706 23:45:07.793807 OpParamMaker.cpp:355] call aclnnX failed, detail:[PID: 111] "
        "2026-07-06-23:45:07.563.105 AclNN_Runtime_Error(EZ9903): launch failed\n"
        "        TraceBack (most recent call last):\n"
        "[rank7]:[E706 23:45:08.100000 OpParamMaker.cpp:355] call aclnnX failed again\n")
OTHER = "[ERROR] 2024-03-01-10:00:00 (PID:42, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"


def _bundle(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_yearless_head_takes_the_year_of_the_files_own_full_stamp(tmp_path: Path) -> None:
    lines, rep = read_bundle(_bundle(tmp_path / "b", {"glog.txt": GLOG, "other.txt": OTHER}))
    origin = rep["time_origin"]
    from datetime import datetime, timedelta

    t0 = datetime.fromisoformat(origin)
    got = {ln.line: t0 + timedelta(seconds=ln.t) for ln in lines if ln.file == "glog.txt"}
    assert got[1].year == got[3].year == 2026, got  # was 2024 or 2025: the year nearest the bundle's own time
    assert got[3] - got[1] > timedelta(0)
    said = [y for y in rep["yearless"] if y["path"] == "glog.txt"]
    assert said and said[0]["year"] == 2026 and "line 1" in said[0]["from"], said


def test_without_a_full_stamp_the_year_is_the_bundles_and_it_says_so(tmp_path: Path) -> None:
    _lines, rep = read_bundle(_bundle(tmp_path / "b", {"glog.txt": GLOG.replace(
        " 2026-07-06-23:45:07.563.105", ""), "other.txt": OTHER}))
    said = [y for y in rep["yearless"] if y["path"] == "glog.txt"]
    assert said and said[0]["from"].startswith("the bundle's"), said
