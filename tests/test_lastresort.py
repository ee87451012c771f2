"""The process's last-resort handler (issue 14): an internal bug is one line and exit 70, never a traceback.

Each case runs the real entry point (``opsbrain.cli.main``) in a subprocess with a command added for the test
that fails the way a bug would; ``CliRunner`` callers still see the exception itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]

# A command that fails as the test says, registered on the real root group, then the real entry point.
PROGRAM = """
import sys
import click
from opsbrain.cli import cli, main

@cli.command("crash-for-test")
@click.option("--data-dir", default=None)
def crash(data_dir):
    how = sys.argv[1]
    if how == "bug":
        {}["no such key"]
    if how == "huge":
        raise RuntimeError("x" * 5000 + "\\nsecond line")
    if how == "unflushed":
        sys.stdout.write("y" * 1000)
        return

if sys.argv[1] == "ctrl-c-outside":
    cli.main = lambda **kw: (_ for _ in ()).throw(KeyboardInterrupt())  # Ctrl-C outside click's own handling
main(["crash-for-test", *sys.argv[2:]])
"""


def run(how: str, *args: str, env: dict[str, str] | None = None, stdout: int | None = subprocess.PIPE,
        home: Path | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "PYTHONPATH": str(REPO), "OPSBRAIN_DEBUG": "", **(env or {})}
    e.pop("PYTHONUNBUFFERED", None)  # stdout block-buffered, as for most users: a closed pipe shows at the flush
    if home is not None:
        e["OPSBRAIN_HOME"] = str(home)
    return subprocess.run([sys.executable, "-c", PROGRAM, how, *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=e, timeout=60, cwd=REPO)


def test_an_internal_error_is_one_line_exit_70_and_a_crash_file(tmp_path: Path) -> None:
    p = run("bug", "--data-dir", str(tmp_path / "data"))
    assert p.returncode == 70, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith("opsbrain: internal error: KeyError: 'no such key'; this is a bug"), lines[0]
    crashes = list((tmp_path / "data" / "crashes").iterdir())
    assert len(crashes) == 1 and crashes[0].name.startswith("opsbrain-crash-"), crashes
    assert str(crashes[0]) in lines[0]
    text = crashes[0].read_text()
    assert "Traceback (most recent call last)" in text and "KeyError: 'no such key'" in text
    assert "command: opsbrain crash-for-test --data-dir" in text
    assert oct(crashes[0].stat().st_mode & 0o777) == oct(0o600)  # the command line may hold a URL's password
    # OPSBRAIN_DEBUG=1: the traceback on stderr instead, and no crash file
    p = run("bug", "--data-dir", str(tmp_path / "debug"), env={"OPSBRAIN_DEBUG": "1"})
    assert p.returncode == 1 and "Traceback (most recent call last)" in p.stderr
    assert not (tmp_path / "debug").exists()
    # in-process callers (CliRunner) still get the exception itself: the handler is at the process entry only
    import click

    from opsbrain.cli import cli

    @click.command("crash-in-process")
    def crash() -> None:
        raise LookupError("seen by the caller")

    cli.add_command(crash)
    try:
        res = CliRunner().invoke(cli, ["crash-in-process"], env={"OPSBRAIN_DEBUG": ""})
    finally:
        cli.commands.pop("crash-in-process")
    assert isinstance(res.exception, LookupError)


def test_the_crash_file_goes_to_the_temp_dir_when_the_data_dir_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    p = run("bug", "--data-dir", str(blocker), env={"TMPDIR": str(tmpdir)})
    assert p.returncode == 70 and len(p.stderr.splitlines()) == 1, p.stderr
    (crash,) = tmpdir.iterdir()
    assert f"traceback: {crash}" in p.stderr and "KeyError" in crash.read_text()


def test_the_line_is_capped_and_one_line_whatever_the_message(tmp_path: Path) -> None:
    p = run("huge", home=tmp_path)
    assert p.returncode == 70
    (line,) = p.stderr.splitlines()
    assert len(line) < 600 and "more characters" in line and "second line" not in line
    assert list((tmp_path / "crashes").iterdir())  # $OPSBRAIN_HOME when no --data-dir is given


def test_ctrl_c_outside_a_command_is_one_line_and_exit_130(tmp_path: Path) -> None:
    p = run("ctrl-c-outside", home=tmp_path)
    assert p.returncode == 130, p.stderr
    assert "Traceback" not in p.stderr and len([x for x in p.stderr.splitlines() if x.strip()]) == 1, p.stderr


def test_a_closed_stdout_exits_quietly(tmp_path: Path) -> None:
    r, w = os.pipe()
    os.close(r)
    try:
        p = run("unflushed", home=tmp_path, stdout=w)
    finally:
        os.close(w)
    assert p.returncode == 1 and p.stderr == "", p.stderr
