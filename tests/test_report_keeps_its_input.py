"""``opsbrain report J.json --out J.json`` replaced the journal with its own report (session 41, review41): the
report refuses to write over one of its inputs unless --force."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli


def test_a_report_does_not_replace_its_own_journal(tmp_path: Path) -> None:
    ran = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--json", "--data-dir", str(tmp_path)])
    assert ran.exit_code in (0, 1), ran.output
    src = tmp_path / "j.json"
    src.write_text(ran.stdout)
    before = src.read_bytes()
    res = CliRunner().invoke(cli, ["report", str(src), "--format", "md", "--out", str(src)])
    assert res.exit_code == 2 and "over its input" in res.output and "Traceback" not in res.output
    assert src.read_bytes() == before  # the journal is intact
    res = CliRunner().invoke(cli, ["report", str(src), "--format", "md", "--out", str(tmp_path / "." / "j.json")])
    assert res.exit_code == 2 and src.read_bytes() == before  # the same file by another spelling
    ok = CliRunner().invoke(cli, ["report", str(src), "--format", "md", "--out", str(tmp_path / "r.md")])
    assert ok.exit_code == 0 and json.loads(src.read_text())["incidents"] is not None

