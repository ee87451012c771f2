"""``opsbrain sweep run`` on a real source, as an operator runs it (tester AC, 15): wall-clock times shown as times,
one service per schedule and data directory, a garbage page's bytes kept out of the error line."""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.errors import InputError
from opsbrain.service.lock import ScheduleLock
from opsbrain.sources.serve import PageServer
from tests.test_sources_http import reply, serving

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  OK ")


def page() -> str:
    ms = int(time.time() * 1000)
    return "".join(f'npu_chip_info_temperature{{id="{i}"}} 45 {ms}\n' for i in range(4))


def sweep_run(home: Path, url: str, *extra: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["sweep", "run", "--source", "prometheus", "--url", url, "--name", "lab",
                                   "--interval", "1s", "--max-runtime", "1.5", "--data-dir", str(home), *extra])
    return res.exit_code, res.stdout + res.stderr


def test_a_real_sources_sweeps_are_shown_at_their_utc_time(tmp_path: Path) -> None:
    with PageServer(page) as srv:
        code, out = sweep_run(tmp_path, srv.url)
    assert code == 0, out
    lines = [ln for ln in out.splitlines() if ln[:2] == "20"]
    assert lines and all(ISO.match(ln) for ln in lines), out
    assert "t=1" not in out and re.search(r"sweeps to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ,", out), out


def test_a_second_run_of_the_same_schedule_is_refused_in_one_line(tmp_path: Path) -> None:
    with ScheduleLock(tmp_path, "sweep-lab"), PageServer(page) as srv:  # as another `sweep run --name lab` holds it
        code, out = sweep_run(tmp_path, srv.url)
        assert code == 2 and "Traceback" not in out, out
        (line,) = [ln for ln in out.splitlines() if ln.startswith("opsbrain: error:")]
        assert "'sweep-lab' is already running from this data directory" in line and f"pid {os.getpid()}" in line
        code, out = sweep_run(tmp_path / "other", srv.url)  # another data directory is another schedule store
        assert code == 0, out
    with PageServer(page) as srv:  # released: the schedule runs again
        assert sweep_run(tmp_path, srv.url)[0] == 0


def test_a_garbage_pages_bytes_are_not_echoed() -> None:
    rng = random.Random(3)
    body = bytes(rng.randrange(256) for _ in range(3000))
    with serving(reply(body)) as url:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", url + "/metrics"])
    assert res.exit_code == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.isprintable() and len(line) < 200 and "not UTF-8 text" in line, line
    with serving(reply(b'npu_chip_info_temperature{id="0"} 45\nbad\x1b[31mline x y z ' + b"w " * 500 + b"\n")) as url:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", url + "/metrics"])
    assert res.exit_code == 2 and "\\x1b[31m" in res.stderr and "\x1b" not in res.stderr, res.stderr
    assert len(res.stderr) < 400 and "more characters" in res.stderr


def test_an_input_error_never_carries_control_characters() -> None:
    assert str(InputError("bad \x1b[2J\x07 page \ufffd")) == "bad \\x1b[2J\\x07 page \ufffd"
