"""``sweep once`` of a real source shares ``sweep run``'s schedule (tester, session 32): it took no lock and kept no
history, so a Critical (two new HBM UCEs in 24 h) seen by one ``once`` was forgotten by the next, and two could
write the same schedule's history at once."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.service import lock
from opsbrain.service.lock import ONCE, ScheduleLock
from opsbrain.sources.serve import PageServer
from opsbrain.sources.service import sweep_once_kept
from opsbrain.store import RunStore
from tests.test_sweep_history_kept import T0, SeqSource, service, uce


def hbm_page(count: dict[str, float]) -> str:
    ms = int(time.time() * 1000)
    return (f'npu_chip_info_temperature{{id="0"}} 45 {ms}\n'
            f'npu_chip_info_hbm_ecc_total_double_bit_error_cnt{{id="0"}} {count["n"]} {ms}\n')


def once(home: Path, url: str, *extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", url, "--name", "lab",
                                   "--data-dir", str(home), *extra])
    return res.exit_code, res.stdout + res.stderr


def test_successive_onces_keep_the_24_h_history(tmp_path: Path) -> None:
    count = {"n": 0.0}
    seen = []
    with PageServer(lambda: hbm_page(count)) as srv:
        for n in (0.0, 1.0, 3.0):
            count["n"] = n
            code, out = once(tmp_path, srv.url, "--output", "plain")
            seen.append((code, next((ln.split()[0] for ln in out.splitlines() if "hbm_uce" in ln), "OK")))
            time.sleep(0.01)
    assert seen == [(0, "OK"), (1, "Alarm"), (1, "Critical")]  # before: Warning, Warning (one collection each)
    assert len(RunStore(tmp_path).load_collections("sweep-lab")) == 3


def test_once_reads_what_sweep_run_kept_and_run_reads_what_once_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    svc = service(store, SeqSource([0.0, 1.0]))  # `sweep run --name lab`
    assert [uce(svc) for _ in range(2)] == ["OK", "Alarm"]
    report = sweep_once_kept(SeqSource([3.0], t0=T0 + 600.0), "lab", tmp_path)  # `sweep once --name lab`
    assert next(f.severity for f in report.findings if f.check == "hbm_uce") == "Critical"
    again = service(store, SeqSource([3.0], t0=T0 + 900.0))  # the service restarted: the once's collection is kept
    assert again.pod.source.kept.restored == 3 and uce(again) == "Critical"


def test_once_is_refused_in_one_line_while_sweep_run_holds_the_schedule(tmp_path: Path) -> None:
    count = {"n": 0.0}
    with ScheduleLock(tmp_path, "sweep-lab"), PageServer(lambda: hbm_page(count)) as srv:  # as `sweep run` holds it
        t0 = time.monotonic()
        code, out = once(tmp_path, srv.url)
        assert time.monotonic() - t0 < 10 and srv.scrapes == 0  # refused at once, nothing collected
    assert code == 2 and "Traceback" not in out, out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("opsbrain: error:")]
    assert "sweep once: schedule 'sweep-lab' is already running from this data directory (sweep run, pid " \
        f"{os.getpid()}" in line, line


def test_a_second_once_waits_for_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = {"n": 0.0}
    held = ScheduleLock(tmp_path, "sweep-lab", command=ONCE).acquire()  # another `sweep once` sweeping
    timer = threading.Timer(0.5, held.release)
    timer.start()
    with PageServer(lambda: hbm_page(count)) as srv:
        code, out = once(tmp_path, srv.url)
        assert code == 0, out  # waited, then swept
        with ScheduleLock(tmp_path, "sweep-lab", command=ONCE):
            monkeypatch.setattr(lock, "ONCE_WAIT_S", 0.2)
            code, out = once(tmp_path, srv.url)
    timer.join()
    assert code == 2 and "already running from this data directory (sweep once, pid" in out, out


def test_the_twins_once_takes_no_name() -> None:
    res = CliRunner().invoke(cli, ["sweep", "once", "--name", "lab"])
    assert res.exit_code == 2 and "--name need --source" in res.stderr.replace("--url/--dir/", ""), res.stderr
