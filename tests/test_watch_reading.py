"""``opsbrain watch`` reads what ``diagnose --logs`` reads, by the same rules, and says what it skips (session 31):
links are followed with --follow-links and listed otherwise; a GBK line, a line of megabytes and a binary file are
read, cut and left out as ``diagnose --logs`` does, each said in the summary; ``--from-start`` groups old lines by
their own time stamps."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.errors import InputError
from opsbrain.sources.follow import LogFollower
from opsbrain.sources.watch import Watcher

UCE = fmt.device_os_event(datetime(2026, 12, 5, 2, 45, 10), 3, "80E01801")
OPTICAL_ZH = "3月 01 10:10:00 gz-trn-c12 ascend-fd: 光模块光功率异常，RX功率-18.5dBm低于阈值-15dBm"


def _host(root: Path, name: str = "h1") -> Path:
    (root / name).mkdir(parents=True)
    return root / name


def test_a_linked_host_directory_is_listed_and_read_with_follow_links(tmp_path: Path) -> None:
    real = _host(tmp_path / "real", "npu-host-07")
    (real / "device-os.log").write_text("")
    logs = tmp_path / "logs"
    logs.mkdir()
    os.symlink(real, logs / "npu-host-07")
    plain, linked = LogFollower(logs), LogFollower(logs, follow_links=True)
    (real / "device-os.log").write_text(UCE + "\n")
    assert plain.poll(1.0) == [] and any("npu-host-07: symbolic link: not followed" in x for x in plain.skipped())
    (sig,) = linked.poll(1.0)
    assert sig.component is not None and sig.component.startswith("npu-host-07/npu3")
    os.symlink(logs, tmp_path / "link")
    with pytest.raises(InputError, match="--follow-links"):
        Watcher(tmp_path / "link", None, print)


def test_gbk_long_and_binary_input_is_read_as_diagnose_reads_it(tmp_path: Path) -> None:
    host = _host(tmp_path, "gz-trn-c12")
    for name in ("syslog", "app.log", "mixed.log"):
        (host / name).write_text("")
    follow = LogFollower(tmp_path)
    (host / "syslog").write_bytes(OPTICAL_ZH.encode("gb18030") + b"\n")
    mixed = host / "mixed.log"  # a central syslog: UTF-8 lines, then one host's GBK line
    mixed.write_bytes(b"Mar  1 10:00:00 gz-trn-c12 app: started\n")
    (host / "app.log").write_bytes(b"x" * (6 << 20) + b" [ERROR] RUNTIME(1,python3): error code is 507053\n")
    (host / "core.1234").write_bytes(os.urandom(200_000))
    got = follow.poll(1.0)
    with mixed.open("ab") as fh:
        fh.write(OPTICAL_ZH.encode("gb18030") + b"\n")
    got += follow.poll(2.0)  # the rest of the long line too (4 MB of a file per poll)
    assert sorted(s.file for s in got if s.kind == "tk:optical_power") == [
        os.path.join("gz-trn-c12", "mixed.log"), os.path.join("gz-trn-c12", "syslog")]
    assert not any(s.file and "core" in s.file for s in got)  # random bytes give no fault
    st = follow.stats
    assert st.lines_cut == 1 and st.binary_lines > 0
    assert any("core.1234: binary content (not text): not read after line 64" in x for x in follow.skipped())
    assert any("syslog: read as gb18030" in n for n in st.notes) and any("mixed.log: lines read as gb18030" in n
                                                                          for n in st.notes)


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_from_start_groups_old_lines_by_their_time_stamps(tmp_path: Path, engine: Any) -> None:
    node = _host(tmp_path, "npu-c03")
    (node / "messages").write_text(
        "Nov 28 11:00:00 npu-c03 kernel: Out of memory: Killed process 2111666 (python3) total-vm:812345kB\n"
        "Dec  2 09:00:00 npu-c03 kernel: NMI watchdog: Watchdog detected hard LOCKUP on cpu 17\n")
    (node / "device-os.log").write_text(UCE + "\n")
    got: list[dict[str, Any]] = []
    clock = [0.0]
    w = Watcher(tmp_path, engine, got.append, from_start=True, clock=lambda: clock[0],
                wall=lambda: datetime(2026, 12, 5, 3, 0).timestamp() + clock[0])
    w.step()
    clock[0] = 3.0
    w.step()
    days = sorted(r["opened_at"][:10] for r in got)
    assert days == ["2026-11-28", "2026-12-02", "2026-12-05"], [(r["incident"], r["fault_class"]) for r in got]
    assert {r["fault_class"] for r in got if r["opened_at"].startswith("2026-12-05")} == {"hbm_uce"}
